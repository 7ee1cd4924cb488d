package main

import (
	"errors"
	"fmt"
	"io"
	"log"
	"time"

	"github.com/workrail/workrail/console"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/server"
	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/server/sources"
	"github.com/workrail/workrail/store"
	"github.com/workrail/workrail/web"
	"github.com/workrail/workrail/workflows"
)

// errAlreadyRunning means another daemon holds this home's database.
var errAlreadyRunning = errors.New("another workrail daemon is already running on this home folder")

// startDaemon wires the daemon: the store it owns, the token keys, the
// configuration, the workflow sources, the use cases over them, and the
// transport serving those and the Console. It fails fast (about a second)
// when another daemon owns the home folder. The caller closes the store
// after shutting the daemon down.
func startDaemon(h home.Dir, port int, logTo io.Writer) (*server.Daemon, *store.Store, error) {
	logger := log.New(logTo, "workrail: ", log.LstdFlags|log.Lmicroseconds)
	if err := h.CheckPrivate(); err != nil {
		return nil, nil, err
	}
	st, err := store.Open(h.DB(), store.Options{})
	if errors.Is(err, store.ErrLocked) {
		return nil, nil, alreadyRunning(h)
	}
	if err != nil {
		return nil, nil, err
	}
	d, err := serveStore(h, port, st, logger)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return d, st, nil
}

func serveStore(h home.Dir, port int, st *store.Store, logger *log.Logger) (*server.Daemon, error) {
	keys, err := home.LoadKeyRing(string(h))
	if err != nil {
		return nil, err
	}
	cfg, err := h.Config()
	if err != nil {
		return nil, err
	}
	reg, err := sources.New(workflows.FS, h.WorkflowDirs(cfg))
	if err != nil {
		return nil, err
	}
	token, err := h.AuthToken()
	if err != nil {
		return nil, err
	}
	uc := execute.New(st, keys, reg, cfg.DefaultPreferences, time.Now, logger.Printf)
	con := console.New(console.Config{Store: st, Workflows: reg, Runs: uc, Files: reg, Secret: []byte(token), Now: time.Now, Logf: logger.Printf,
		About: console.About{Version: version, Home: string(h), StartedAt: time.Now(), Snippets: snippets(executable(), h)}})
	return server.Start(server.Config{Home: h, Port: port, Version: version, Token: token, Tools: uc,
		Console: con.Routes, Static: web.Static, Doctor: st.Doctor, Log: logger, Now: time.Now})
}

func alreadyRunning(h home.Dir) error {
	info, err := h.ReadInfo()
	if err != nil {
		return fmt.Errorf("%w (%s is locked)", errAlreadyRunning, h.DB())
	}
	return fmt.Errorf("%w: pid %d, Console %s, started %s", errAlreadyRunning, info.PID, info.URL, info.StartedAt)
}
