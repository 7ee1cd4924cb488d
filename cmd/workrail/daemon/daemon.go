// Package daemon assembles the WorkRail daemon from its configuration:
// the store it owns, the token keys, config.json, the workflow sources
// and repositories, the use cases over them, the secret scanner, the
// Console, and the transport serving those (server), with the background
// work that goes with them (the retention sweep, the derived records'
// rebuild, the repositories' sync). It is the one place these parts are
// wired: `workrail daemon` parses its flags and calls New, the commands
// that read the file while no daemon runs build their use cases with
// Service, and tests start a whole daemon in process with New.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/workrail/workrail/console"
	"github.com/workrail/workrail/engine/token"
	"github.com/workrail/workrail/server"
	"github.com/workrail/workrail/server/config"
	"github.com/workrail/workrail/server/gitsource"
	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/server/sources"
	"github.com/workrail/workrail/store"
)

// Config is what a daemon is built from.
type Config struct {
	Home home.Dir
	// Port is where the Console and HTTP MCP endpoint listen.
	Port Port
	// AnyPort: when the port is taken, listen on a free one instead (a
	// daemon a shim started).
	AnyPort bool
	Version string
	// Snippets are the ways to register this binary in an IDE, which the
	// Console shows until the first session.
	Snippets []console.Snippet
	// Log is the daemon's log (NewLog).
	Log *Log
}

// Port is the port a daemon listens on, and whether the command line or
// the environment chose it; when not, config.json's "port" does.
type Port struct {
	Port  int
	Given bool
}

// Daemon is a running daemon and the parts it owns.
type Daemon struct {
	cfg       Config
	st        *store.Store
	live      *config.Live
	srv       *server.Daemon
	running   atomic.Pointer[server.Daemon] // srv, for the hooks built before it
	stopRepos func()
	stopWork  func()
	closeOnce sync.Once
	closeErr  error
}

// New checks the home folder is private, opens its store (failing in
// about a second with ErrAlreadyRunning when another daemon owns it),
// wires the parts over it and starts serving.
func New(cfg Config) (_ *Daemon, err error) {
	h := cfg.Home
	if err := h.CheckPrivate(); err != nil {
		return nil, err
	}
	st, err := store.Open(h.DB(), store.Options{Now: time.Now, Logf: cfg.Log.warnf})
	if errors.Is(err, store.ErrLocked) {
		return nil, alreadyRunning(h)
	}
	if err != nil {
		return nil, err
	}
	d := &Daemon{cfg: cfg, st: st}
	defer func() {
		if err != nil {
			if d.stopRepos != nil {
				d.stopRepos()
			}
			st.Close()
		}
	}()
	p, err := loadParts(h, cfg.Log.Logger)
	if err != nil {
		return nil, err
	}
	if !d.cfg.Port.Given {
		d.cfg.Port.Port = p.cfg.Port
	}
	if err := d.serve(p); err != nil {
		return nil, err
	}
	stopSweep := startSweeper(st, func() int { return d.live.Applied().RetentionDays }, cfg.Log.printf)
	// A new chat's first resume_session should not pay for reading every
	// session's record (about 140 ms at 10,000 sessions): they are read
	// once the records of another definition are rebuilt.
	stopRefresh := refreshDerived(st, cfg.Log, d.live.Applied().Features.ResumeSession)
	d.stopWork = func() { stopSweep(); stopRefresh() }
	cfg.Log.Info("daemon started", "version", cfg.Version, "url", d.srv.URL())
	return d, nil
}

// Server is the daemon's transport: its URL, port, routes and login links.
func (d *Daemon) Server() *server.Daemon { return d.srv }

// Store is the store the daemon owns.
func (d *Daemon) Store() *store.Store { return d.st }

// Run serves until ctx ends, a listener stops, or the daemon is asked to
// stop or restart; it returns that action (ActionStop when ctx ended) or
// the listener's error. The caller then calls Close.
func (d *Daemon) Run(ctx context.Context) (server.Action, error) {
	select {
	case <-ctx.Done():
		return server.ActionStop, nil
	case err := <-d.srv.Errs():
		return "", fmt.Errorf("listener stopped: %w", err)
	case a := <-d.srv.Control():
		return a, nil
	}
}

// Close stops serving (cutting the requests still open when ctx ends),
// stops the background work and closes the store. Calling it again
// returns the first call's result.
func (d *Daemon) Close(ctx context.Context) error {
	d.closeOnce.Do(func() {
		err := d.srv.Shutdown(ctx)
		d.stopWork()
		d.stopRepos()
		d.closeErr = errors.Join(err, d.st.Close())
	})
	return d.closeErr
}

// parts are what the daemon and the commands that read the file while
// no daemon runs build alike: the token keys, config.json, the
// repositories as the home's cache holds them, and the workflow sources.
type parts struct {
	keys  *token.Ring
	cfg   config.Config
	repos *gitsource.Set
	reg   *sources.Registry
}

func loadParts(h home.Dir, log *slog.Logger) (parts, error) {
	keys, err := home.LoadKeyRing(string(h))
	if err != nil {
		return parts{}, err
	}
	cfg, err := config.Load(h.Path("config.json"))
	if err != nil {
		return parts{}, err
	}
	repos := OpenRepos(h, cfg, log)
	reg, err := NewRegistry(h, cfg, repos)
	if err != nil {
		return parts{}, err
	}
	return parts{keys: keys, cfg: cfg, repos: repos, reg: reg}, nil
}
