package shim

import (
	"bytes"
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
// home's socket, starting one if none does, or replacing one of an older
// version that nothing else uses. A lock file in the home folder makes ten
// shims that start at once launch one daemon between them. Until it
// returns, nothing is sent: a connection of this shim's own would keep an
// older daemon from retiring.
func (s *Shim) ensureDaemon() (err error) {
	s.ensure.Lock()
	defer s.ensure.Unlock()
	defer func() { s.found.Store(err == nil) }()
	if id, err := s.identify(); err == nil && !s.replaces(id) {
		return nil
	}
	unlock, err := s.cfg.Home.Lock("daemon.start.lock", s.cfg.StartTimeout)
	if err != nil {
		return err
	}
	defer unlock()
	id, why := s.identify()
	if why == nil {
		if !s.replaces(id) || !s.retire(id) {
			return nil // another shim started it while this one waited, or it serves on
		}
		why = fmt.Errorf("the daemon of version %s retired for version %s", id.Version, s.cfg.Version)
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

// replaces reports whether this shim should try to replace the daemon id:
// it runs an older version, and this shim has not already left it running
// (it asks once, and says once why it uses the older daemon).
func (s *Shim) replaces(id identity) bool {
	return !s.kept && olderThan(id.Version, s.cfg.Version)
}

// retire asks the older daemon id to stop. It does so only when idle: no
// MCP request in flight and no connection to its socket but this one (a
// shim keeps its connections open, so another one means another IDE
// window). It reports whether the daemon has stopped answering; when it
// has not, this shim uses it and says so once.
func (s *Shim) retire(id identity) bool {
	s.kept = true
	s.client.CloseIdleConnections()
	status, err := s.askRetire()
	switch {
	case err != nil:
		s.cfg.Log.Printf("an older daemon (version %s) runs; asking it to retire failed (%v), so this window uses it", id.Version, err)
		return false
	case status == http.StatusConflict:
		s.cfg.Log.Printf("an older daemon (version %s) is in use by another window; this window (version %s) uses it, and it will be replaced when idle", id.Version, s.cfg.Version)
		return false
	case status != http.StatusOK:
		s.cfg.Log.Printf("an older daemon (version %s) runs and answered %d when asked to retire; this window uses it", id.Version, status)
		return false
	}
	if !s.waitSilent() {
		s.cfg.Log.Printf("the older daemon (version %s) agreed to retire but still answers; this window uses it", id.Version)
		return false
	}
	s.kept = false
	return true
}

// askRetire posts /retire on the socket, on a connection of its own that
// closes after the answer, and returns the status.
func (s *Shim) askRetire() (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), healthTimeout)
	defer cancel()
	body, _ := json.Marshal(map[string]string{"version": s.cfg.Version})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://localhost/retire", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Close = true
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	return resp.StatusCode, nil
}

// waitSilent polls the socket until no daemon answers it, for at most the
// start timeout.
func (s *Shim) waitSilent() bool {
	deadline := time.Now().Add(s.cfg.StartTimeout)
	for time.Now().Before(deadline) {
		if _, err := s.identify(); err != nil {
			return true
		}
		time.Sleep(25 * time.Millisecond)
	}
	return false
}

// identity is what a daemon answers to GET /health on its socket.
type identity struct {
	Service string `json:"service"`
	Home    string `json:"home"`
	PID     int    `json:"pid"`
	Version string `json:"version"`
}

// identify asks the home's socket who answers it: its identity when it is
// a WorkRail daemon for this home (and the shim may send to it), else why
// not.
func (s *Shim) identify() (identity, error) {
	ctx, cancel := context.WithTimeout(context.Background(), healthTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://localhost/health", nil)
	if err != nil {
		return identity{}, err
	}
	// Ask whoever is bound to the socket path now, on a connection of its
	// own, not one pooled from a server that may have been replaced since.
	req.Close = true
	id, err := s.checkIdentity(req)
	if err != nil {
		s.client.CloseIdleConnections()
	}
	return id, err
}

func (s *Shim) checkIdentity(req *http.Request) (identity, error) {
	var id identity
	resp, err := s.client.Do(req)
	if err != nil {
		return id, fmt.Errorf("no daemon answers: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return id, fmt.Errorf("%s answers /health with %s", s.cfg.Home.Socket(), resp.Status)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&id); err != nil {
		return id, fmt.Errorf("%s answers /health with no identity: %w", s.cfg.Home.Socket(), err)
	}
	if id.Service != "workrail" || !sameDir(id.Home, string(s.cfg.Home)) {
		return id, fmt.Errorf("%s is answered by %q for home %q, not by a workrail daemon for this home", s.cfg.Home.Socket(), id.Service, id.Home)
	}
	return id, nil
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
		if _, err := s.identify(); err == nil {
			return true
		}
		time.Sleep(25 * time.Millisecond)
	}
	_, err := s.identify()
	return err == nil
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
