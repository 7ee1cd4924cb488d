package shim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// healthTimeout bounds one GET /health: a daemon answers it at once.
const healthTimeout = 2 * time.Second

// ensureDaemon makes sure a WorkRail daemon for this home answers on the
// home's socket, starting one if none does. A lock file in the home folder
// makes ten shims that start at once launch one daemon between them.
func (s *Shim) ensureDaemon() error {
	s.ensure.Lock()
	defer s.ensure.Unlock()
	if s.identify() == nil {
		return nil
	}
	unlock, err := s.cfg.Home.Lock("daemon.start.lock", s.cfg.StartTimeout)
	if err != nil {
		return err
	}
	defer unlock()
	why := s.identify()
	if why == nil {
		return nil // another shim started it while this one waited
	}
	// A daemon writes daemon.json only after binding its socket, so one that
	// does not answer there is gone, whatever live pid daemon.json names
	// (pids are reused): start another at once.
	s.cfg.Log.Printf("starting the daemon for %s (%v)", s.cfg.Home, why)
	exited, err := s.cfg.StartDaemon()
	if err != nil {
		return fmt.Errorf("could not start the daemon: %w", err)
	}
	running := func() bool {
		select {
		case <-exited:
			return false
		default:
			return true
		}
	}
	if !s.waitIdentified(running) {
		return fmt.Errorf("the daemon did not come up; last log lines:\n%s", tail(s.cfg.Home.DaemonLog(), 5))
	}
	return nil
}

// identity is what a daemon answers to GET /health on its socket.
type identity struct {
	Service string `json:"service"`
	Home    string `json:"home"`
	PID     int    `json:"pid"`
	Version string `json:"version"`
}

// identify asks the home's socket who answers it: nil when it is a
// WorkRail daemon for this home (and the shim may send to it), else why not.
func (s *Shim) identify() error {
	ctx, cancel := context.WithTimeout(context.Background(), healthTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://localhost/health", nil)
	if err != nil {
		return err
	}
	// Ask whoever is bound to the socket path now, on a connection of its
	// own, not one pooled from a server that may have been replaced since.
	req.Close = true
	err = s.checkIdentity(req)
	s.found.Store(err == nil)
	if err != nil {
		s.client.CloseIdleConnections()
	}
	return err
}

func (s *Shim) checkIdentity(req *http.Request) error {
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("no daemon answers: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answers /health with %s", s.cfg.Home.Socket(), resp.Status)
	}
	var id identity
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&id); err != nil {
		return fmt.Errorf("%s answers /health with no identity: %w", s.cfg.Home.Socket(), err)
	}
	if id.Service != "workrail" || !sameDir(id.Home, string(s.cfg.Home)) {
		return fmt.Errorf("%s is answered by %q for home %q, not by a workrail daemon for this home", s.cfg.Home.Socket(), id.Service, id.Home)
	}
	return nil
}

// sameDir reports whether two paths name one folder.
func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// waitIdentified polls the socket until this home's daemon answers, the
// start timeout passes, or alive says the process it waits for is gone.
func (s *Shim) waitIdentified(alive func() bool) bool {
	deadline := time.Now().Add(s.cfg.StartTimeout)
	for time.Now().Before(deadline) && alive() {
		if s.identify() == nil {
			return true
		}
		time.Sleep(25 * time.Millisecond)
	}
	return s.identify() == nil
}

func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "(no log at " + path + ")"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
