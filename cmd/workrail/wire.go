package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/workrail/workrail/console"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/server"
	"github.com/workrail/workrail/server/budget"
	"github.com/workrail/workrail/server/config"
	"github.com/workrail/workrail/server/gitrepo"
	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/server/login"
	"github.com/workrail/workrail/server/secrets"
	"github.com/workrail/workrail/store"
	"github.com/workrail/workrail/web"
)

// errAlreadyRunning means another daemon holds this home's database.
var errAlreadyRunning = errors.New("another workrail daemon is already running on this home folder")

// startDaemon wires the daemon: the store it owns, the token keys, the
// configuration, the workflow sources, the use cases over them, and the
// transport serving those and the Console. It fails fast (about a second)
// when another daemon owns the home folder. With anyPort, a port another
// program holds gives way to a free one. After shutting the daemon down,
// the caller calls release: it stops the retention sweep and closes the
// store.
func startDaemon(h home.Dir, port portChoice, anyPort bool, logger *daemonLog) (d *server.Daemon, release func() error, err error) {
	if err := h.CheckPrivate(); err != nil {
		return nil, nil, err
	}
	st, err := store.Open(h.DB(), store.Options{Now: time.Now, Logf: logger.warnf})
	if errors.Is(err, store.ErrLocked) {
		return nil, nil, alreadyRunning(h)
	}
	if err != nil {
		return nil, nil, err
	}
	d, live, stopRepos, err := serveStore(h, port, anyPort, st, logger)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	stopSweep := startSweeper(st, func() int { return live.Applied().RetentionDays }, logger.printf)
	// A new chat's first resume_session should not pay for reading every
	// session's record (about 140 ms at 10,000 sessions): they are read
	// once the records of another definition are rebuilt.
	stopRefresh := refreshDerived(st, logger, live.Applied().Features.ResumeSession)
	logger.Info("daemon started", "version", version, "url", d.URL())
	return d, func() error { stopSweep(); stopRefresh(); stopRepos(); return st.Close() }, nil
}

// refreshDerived rebuilds, in the background, the derived records of
// every session written under other definitions than this build's (an
// upgrade or a downgrade changed one); agents are served meanwhile, and a
// session an agent touches first is rebuilt on that touch. Then, with
// warm, it loads the resume records. stop ends it between two of its
// transactions and waits.
func refreshDerived(st *store.Store, logger *daemonLog, warm bool) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		started := time.Now()
		n, err := st.RefreshDerived(ctx)
		if err != nil && !errors.Is(err, context.Canceled) {
			logger.printf("derived records: the rebuild stopped after %d sessions: %v", n, err)
		}
		if n > 0 {
			logger.Info("derived records rebuilt from the logs in this build's definitions", "sessions", n, "took", time.Since(started).Round(time.Millisecond).String())
		}
		if warm && ctx.Err() == nil {
			st.WarmResume()
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// consoleRestartWait is how long a restart asked for in the Console waits,
// so the page that says so loads whole.
const consoleRestartWait = 500 * time.Millisecond

// serveStore builds the daemon over st and starts it; stopRepos ends the
// background fetches of the workflow repositories, which it starts.
func serveStore(h home.Dir, port portChoice, anyPort bool, st *store.Store, logger *daemonLog) (_ *server.Daemon, _ *config.Live, stopRepos func(), _ error) {
	keys, err := home.LoadKeyRing(string(h))
	if err != nil {
		return nil, nil, nil, err
	}
	cfg, err := config.Load(h.Path("config.json"))
	if err != nil {
		return nil, nil, nil, err
	}
	if !port.given {
		port.port = cfg.Port
	}
	repos := openRepos(h, cfg, logger.Logger)
	reg, err := newRegistry(h, cfg, repos)
	if err != nil {
		return nil, nil, nil, err
	}
	token, err := h.AuthToken()
	if err != nil {
		return nil, nil, nil, err
	}
	live := config.NewLive(h.Path("config.json"), cfg)
	// The hooks are built before the daemon they serve, and may be called
	// as soon as it listens.
	var running atomic.Pointer[server.Daemon]
	restartAfter := func(wait time.Duration) *protocol.ErrorResult {
		if e := live.Snapshot().DesiredErr; e != nil {
			r := protocol.NewError(engine.Errorf(engine.CodeInvalidInput,
				"the daemon would not start again: %s. Fix config.json (or run `workrail config` to see it), then restart", e.Message))
			return &r
		}
		time.AfterFunc(wait, func() { running.Load().Request(server.ActionRestart) })
		return nil
	}
	restart := func() *protocol.ErrorResult { return restartAfter(0) }
	started := time.Now()
	features := protocol.Features(cfg.Features)
	uc := execute.New(st, keys, reg, cfg.Preferences(), time.Now, logger.printf, execute.WithObserver(gitrepo.NewObserver()), execute.WithFeatures(features),
		execute.WithSecrets(secrets.Background()))
	var resumer console.Resumer // the Console's search lists what resume_session offers, while the tool is on
	if features.ResumeSession {
		resumer = uc
	}
	imports := budget.New(budget.DefaultBytes, budget.DefaultWaiting, budget.DefaultWait) // the Console's previews and the import API share it
	// A sync that moves a repository tells the clients listening that the
	// prompts may have changed.
	changed := func() {
		if d := running.Load(); d != nil {
			d.NotifyListChanged()
		}
	}
	srcs := sourcesAPI{h: h, cfg: cfg, repos: repos, changed: changed}
	con := console.New(console.Config{Store: st, Workflows: reg, Runs: uc, Files: reg, Secret: []byte(token), Now: time.Now, Logf: logger.printf, Errors: logger, ImportBudget: imports,
		Logins:   consoleLogins{},
		Sources:  srcs,
		Resumer:  resumer,
		Bundles:  uc,
		About:    console.About{Version: version, Home: string(h), StartedAt: started, Log: h.Log(), Snippets: snippets(executable(), h)},
		Settings: func() console.Settings { return consoleSettings(live.Snapshot()) },
		Restart: func() error {
			// The Console's answer is a page: its stylesheet is fetched
			// before the daemon goes away.
			if r := restartAfter(consoleRestartWait); r != nil {
				return r.Error
			}
			return nil
		}})
	d, err := server.Start(server.Config{Home: h, Port: port.port, AnyPort: anyPort, Version: version, Token: token, Tools: uc,
		Library: libraryAPI{uc: uc, st: st, logf: logger.printf},
		Console: con.Routes, Features: features, Static: web.Static, Log: logger.Logger, Now: time.Now,
		AppliedConfigHash: func(bound int) string { return live.Listening(bound, port.given) },
		API: server.API{
			Admin:    adminAPI{h: h, st: st, live: live, running: &running, restart: restart},
			Sessions: shareAPI{uc: uc, st: st, logf: logger.printf},
			Secrets:  secretsAPI{uc: uc, st: st, logf: logger.printf},
			Sources:  sourcesAnswers{srcs},
		},
		ImportBudget: imports})
	if err != nil {
		return nil, nil, nil, err
	}
	running.Store(d)
	live.OnApply(func(c config.Config) {
		logger.Info("config.json: applied a runtime-safe change live", "appliedConfigHash", c.Hash())
		if err := d.SetAppliedConfigHash(c.Hash()); err != nil {
			logger.Error("daemon.json could not be written", "err", err)
		}
	})
	return d, live, syncRepos(repos, cfg.WorkflowReposSyncMinutes, changed), nil
}

// workflowDirs lists the folder sources: the user's workflows folder, then
// the config's extra paths.
func workflowDirs(h home.Dir, cfg config.Config) []catalog.Source {
	dirs := []catalog.Source{{Kind: catalog.User, Path: h.Path("workflows")}}
	for _, p := range cfg.WorkflowPaths {
		dirs = append(dirs, catalog.Source{Kind: catalog.Config, Path: p})
	}
	return dirs
}

func alreadyRunning(h home.Dir) error {
	info, err := h.ReadInfo()
	if err != nil {
		return fmt.Errorf("%w (%s is locked)", errAlreadyRunning, h.DB())
	}
	return fmt.Errorf("%w: pid %d, Console %s, started %s", errAlreadyRunning, info.PID, info.URL, info.StartedAt)
}

// consoleSettings is a configuration snapshot as the Console reads it.
func consoleSettings(s config.Snapshot) console.Settings {
	out := console.Settings{Path: s.Path, AppliedHash: s.AppliedHash, Pending: s.Pending, Generation: s.Generation,
		PageSize: s.Applied.Console.PageSize, PollSeconds: s.Applied.Console.PollSeconds}
	if s.DesiredErr != nil {
		out.Problem = s.DesiredErr.Message
	}
	for _, e := range s.Entries {
		out.Entries = append(out.Entries, console.SettingEntry{Key: e.Key, Why: e.Why, Desired: e.Desired, Applied: e.Applied,
			RestartRequired: e.Class == config.RestartRequired, Differs: e.Differs})
	}
	return out
}

// consoleLogins are the daemon's Console logins as the Console asks about
// them: every Console request has passed the daemon's login check, which
// left what it found in the request.
type consoleLogins struct{}

func (consoleLogins) Fresh(r *http.Request) bool                    { return server.FreshLogin(r) }
func (consoleLogins) FreshFor() time.Duration                       { return login.FreshFor }
func (consoleLogins) Logout(w http.ResponseWriter, r *http.Request) { server.Logout(w, r) }
