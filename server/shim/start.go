package shim

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"
)

// ensureDaemon makes sure a daemon is listening on the home's socket,
// starting one if needed. A lock file in the home folder makes ten shims
// that start at once launch one daemon between them.
func (s *Shim) ensureDaemon() error {
	s.ensure.Lock()
	defer s.ensure.Unlock()
	if s.reachable() {
		return nil
	}
	unlock, err := s.cfg.Home.Lock("daemon.start.lock", s.cfg.StartTimeout)
	if err != nil {
		return err
	}
	defer unlock()
	if s.reachable() {
		return nil
	}
	if info, err := s.cfg.Home.ReadInfo(); err == nil && info.Alive() {
		// A daemon is running but not answering on its socket yet (it may
		// be starting); wait while it stays alive.
		if s.waitReachable(info.Alive) {
			return nil
		}
	}
	s.cfg.Log.Printf("starting the daemon for %s", s.cfg.Home)
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
	if !s.waitReachable(running) {
		return fmt.Errorf("the daemon did not come up; last log lines:\n%s", tail(s.cfg.Home.DaemonLog(), 5))
	}
	return nil
}

func (s *Shim) reachable() bool {
	c, err := net.DialTimeout("unix", s.cfg.Home.Socket(), time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// waitReachable polls the socket until it answers, the timeout passes, or
// alive says the process it waits for is gone.
func (s *Shim) waitReachable(alive func() bool) bool {
	deadline := time.Now().Add(s.cfg.StartTimeout)
	for time.Now().Before(deadline) && alive() {
		if s.reachable() {
			return true
		}
		time.Sleep(25 * time.Millisecond)
	}
	return s.reachable()
}

// EnsureDaemon starts the daemon ahead of the first message, so the IDE's
// initialize is answered without a start-up pause mid-call.
func (s *Shim) EnsureDaemon() error { return s.ensureDaemon() }

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
