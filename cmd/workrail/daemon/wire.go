package daemon

import (
	"context"
	"errors"
	"fmt"
	"net/http"
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

// ErrAlreadyRunning means another daemon holds this home's database.
var ErrAlreadyRunning = errors.New("another workrail daemon is already running on this home folder")

// refreshDerived rebuilds, in the background, the derived records of
// every session written under other definitions than this build's (an
// upgrade or a downgrade changed one); agents are served meanwhile, and a
// session an agent touches first is rebuilt on that touch. Then, with
// warm, it loads the resume records. stop ends it between two of its
// transactions and waits.
func refreshDerived(st *store.Store, logger *Log, warm bool) (stop func()) {
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

// serve builds the use cases, the Console and the transport over the
// store and starts serving; the repositories' background fetches start
// with it.
func (d *Daemon) serve(p parts) error {
	h, logger, st, cfg := d.cfg.Home, d.cfg.Log, d.st, p.cfg
	token, err := h.AuthToken()
	if err != nil {
		return err
	}
	live := config.NewLive(h.Path("config.json"), cfg)
	d.live = live
	// The hooks are built before the daemon they serve, and may be called
	// as soon as it listens.
	running := &d.running
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
	uc := execute.New(st, p.keys, p.reg, cfg.Preferences(), time.Now, logger.printf, execute.WithObserver(gitrepo.NewObserver()), execute.WithFeatures(features),
		execute.WithSecrets(secrets.Background()))
	var resumer console.Resumer // the Console's search lists what resume_session offers, while the tool is on
	if features.ResumeSession {
		resumer = uc
	}
	imports := budget.New(budget.DefaultBytes, budget.DefaultWaiting, budget.DefaultWait) // the Console's previews and the import API share it
	// A sync that moves a repository tells the clients listening that the
	// prompts may have changed.
	changed := func() {
		if srv := running.Load(); srv != nil {
			srv.NotifyListChanged()
		}
	}
	srcs := Sources{h: h, cfg: cfg, repos: p.repos, changed: changed}
	con := console.New(console.Config{Store: st, Workflows: p.reg, Runs: uc, Files: p.reg, Secret: []byte(token), Now: time.Now, Logf: logger.printf, Errors: logger, ImportBudget: imports,
		Logins:   consoleLogins{},
		Sources:  srcs,
		Resumer:  resumer,
		Bundles:  uc,
		About:    console.About{Version: d.cfg.Version, Home: string(h), StartedAt: started, Log: h.Log(), Snippets: d.cfg.Snippets},
		Settings: func() console.Settings { return consoleSettings(live.Snapshot()) },
		Restart: func() error {
			// The Console's answer is a page: its stylesheet is fetched
			// before the daemon goes away.
			if r := restartAfter(consoleRestartWait); r != nil {
				return r.Error
			}
			return nil
		}})
	srv, err := server.Start(server.Config{Home: h, Port: d.cfg.Port.Port, AnyPort: d.cfg.AnyPort, Version: d.cfg.Version, Token: token, Tools: uc,
		Library: libraryAPI{uc: uc, st: st, logf: logger.printf},
		Console: con.Routes, Features: features, Static: web.Static, Log: logger.Logger, Now: time.Now,
		AppliedConfigHash: func(bound int) string { return live.Listening(bound, d.cfg.Port.Given) },
		API: server.API{
			Admin:    adminAPI{h: h, st: st, live: live, running: running, restart: restart},
			Sessions: shareAPI{uc: uc, st: st, logf: logger.printf},
			Secrets:  secretsAPI{uc: uc, st: st, logf: logger.printf},
			Sources:  sourcesAnswers{srcs},
		},
		ImportBudget: imports})
	if err != nil {
		return err
	}
	d.srv = srv
	running.Store(srv)
	live.OnApply(func(c config.Config) {
		logger.Info("config.json: applied a runtime-safe change live", "appliedConfigHash", c.Hash())
		if err := srv.SetAppliedConfigHash(c.Hash()); err != nil {
			logger.Error("daemon.json could not be written", "err", err)
		}
	})
	d.stopRepos = syncRepos(p.repos, cfg.WorkflowReposSyncMinutes, changed)
	return nil
}

// WorkflowDirs lists the folder sources: the user's workflows folder, then
// the config's extra paths.
func WorkflowDirs(h home.Dir, cfg config.Config) []catalog.Source {
	dirs := []catalog.Source{{Kind: catalog.User, Path: h.Path("workflows")}}
	for _, p := range cfg.WorkflowPaths {
		dirs = append(dirs, catalog.Source{Kind: catalog.Config, Path: p})
	}
	return dirs
}

func alreadyRunning(h home.Dir) error {
	info, err := h.ReadInfo()
	if err != nil {
		return fmt.Errorf("%w (%s is locked)", ErrAlreadyRunning, h.DB())
	}
	return fmt.Errorf("%w: pid %d, Console %s, started %s", ErrAlreadyRunning, info.PID, info.URL, info.StartedAt)
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
