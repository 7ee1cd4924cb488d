package config

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/workrail/workrail/engine"
)

// Load reads config.json at path: absent is the defaults; a file that
// cannot be read or that the schema refuses is an error.
func Load(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return Defaults(), nil
	}
	if err != nil {
		return Defaults(), err
	}
	cfg, e := Parse(b)
	if e != nil {
		return cfg, fmt.Errorf("%s: %w", path, e)
	}
	return cfg, nil
}

// Live is a running daemon's configuration: what it applied when it
// started, and config.json as it is now. Each read looks at the file's
// stat and reads it again only when it changed, so reading is cheap enough
// for every poll; a change to a runtime-safe key is applied there and then.
type Live struct {
	path string

	mu         sync.Mutex
	onApply    func(Config) // hears each live change; must not call back into Live
	stamp      stamp
	sum        [32]byte
	desired    Config
	desiredErr *engine.Error
	applied    Config
	gen        uint64
	// portKept says the command line or the environment chose the port
	// in use, which a restart keeps: config.json's port is not pending.
	portKept bool
}

// stamp is what tells a changed file without reading it.
type stamp struct {
	exists bool
	size   int64
	mtime  time.Time
	ino    uint64
}

// NewLive watches config.json at path for a daemon that applied applied.
func NewLive(path string, applied Config) *Live {
	l := &Live{path: path, applied: applied, desired: applied}
	l.Snapshot()
	return l
}

// OnApply makes f hear of each runtime-safe change put in effect. f must
// not call back into l.
func (l *Live) OnApply(f func(Config)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.onApply = f
}

// Snapshot is desired vs applied at one moment.
type Snapshot struct {
	Path    string
	Desired Config
	// DesiredErr says why config.json cannot be used as it is now; the
	// daemon keeps what it applied, and a restart would fail.
	DesiredErr  *engine.Error
	Applied     Config
	AppliedHash string
	Entries     []Entry
	// Pending lists the restart-required keys a restart would change.
	Pending []string
	// Generation moves whenever config.json's content changes.
	Generation uint64
}

// RestartNeeded says a restart would put desired changes in effect.
func (s Snapshot) RestartNeeded() bool { return len(s.Pending) > 0 }

// Snapshot reads config.json again if it changed and returns desired vs
// applied.
func (l *Live) Snapshot() Snapshot {
	l.mu.Lock()
	defer l.mu.Unlock()
	// The callback runs under the lock, so two changes are heard in the
	// order they were applied.
	if applied, changed := l.refresh(); changed && l.onApply != nil {
		l.onApply(applied)
	}
	s := Snapshot{Path: l.path, Desired: l.desired, DesiredErr: l.desiredErr, Applied: l.applied,
		AppliedHash: l.applied.Hash(), Generation: l.gen}
	if s.DesiredErr != nil {
		s.Desired = s.Applied
	}
	s.Entries = Compare(s.Desired, s.Applied)
	s.Pending = PendingRestart(s.Entries)
	if l.portKept {
		s.Pending = slices.DeleteFunc(s.Pending, func(k string) bool { return k == "port" })
	}
	return s
}

// Listening makes the port the daemon listens on the applied one: with
// --port 0, WORKRAIL_PORT or the free-port fallback it is not config.json's.
// kept says the command line or the environment chose it, so a restart
// keeps it. It returns the applied configuration's new hash.
func (l *Live) Listening(port int, kept bool) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.applied.Port, l.portKept = port, kept
	return l.applied.Hash()
}

// Applied is the configuration in effect now.
func (l *Live) Applied() Config { return l.Snapshot().Applied }

// refresh re-reads the file when its stat changed. It reports the applied
// configuration and whether a runtime-safe change was just applied.
func (l *Live) refresh() (Config, bool) {
	st := statOf(l.path)
	if st == l.stamp && l.gen > 0 {
		return l.applied, false
	}
	l.stamp = st
	var b []byte
	if st.exists {
		var err error
		if b, err = os.ReadFile(l.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			l.gen++
			l.desiredErr = engine.Errorf(engine.CodeInvalidInput, "%s cannot be read: %v", l.path, err)
			return l.applied, false
		}
	}
	sum := sha256.Sum256(b)
	if sum == l.sum && l.gen > 0 {
		return l.applied, false
	}
	l.sum = sum
	l.gen++
	desired, e := Parse(b)
	l.desiredErr = e
	if e != nil {
		return l.applied, false
	}
	l.desired = desired
	next := ApplyRuntimeSafe(l.applied, desired)
	if next.Hash() == l.applied.Hash() {
		return l.applied, false
	}
	l.applied = next
	return next, true
}

func statOf(path string) stamp {
	fi, err := os.Stat(path)
	if err != nil {
		return stamp{}
	}
	s := stamp{exists: true, size: fi.Size(), mtime: fi.ModTime()}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.ino = sys.Ino
	}
	return s
}
