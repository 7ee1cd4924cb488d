package store

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
)

// ErrDamaged is wrapped by errors from reading a part of the file whose
// structure (its pages, not a session's log) is damaged.
var ErrDamaged = errors.New("the database file is damaged")

// DamagedError says a whole file cannot be trusted for writing: some of
// its pages cannot be read (see pagefile.Read).
type DamagedError struct {
	Path     string
	Problems []string
}

func (e *DamagedError) Error() string {
	shown := e.Problems
	if len(shown) > 3 {
		shown = append(shown[:3:3], fmt.Sprintf("and %d more", len(e.Problems)-3))
	}
	return fmt.Sprintf("store: %s is damaged (%s); nothing was written to it. Run `workrail doctor` to see which sessions are intact, "+
		"then `workrail doctor --salvage NEW.db` to copy them into a new file (it says how to put that file in place)", e.Path, strings.Join(shown, "; "))
}

func (e *DamagedError) Unwrap() error { return ErrDamaged }

// guarded runs fn, turning a panic into an error wrapping ErrDamaged:
// bbolt panics on a page it cannot make sense of, and reading a page past
// the end of the mapped file faults, which SetPanicOnFault makes a panic
// here instead of a crash. Only damage makes these happen.
func guarded(what fmt.Stringer, fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("store: %s: %w (%v)", what, ErrDamaged, p)
		}
	}()
	return fn()
}

// label names what a guarded read was doing.
type label string

func (l label) String() string { return string(l) }

// unwrapDamage is the readable part of a damage error.
func unwrapDamage(err error) string {
	s := err.Error()
	if i := strings.Index(s, ErrDamaged.Error()+" ("); i >= 0 {
		return strings.TrimSuffix(s[i+len(ErrDamaged.Error())+2:], ")")
	}
	return s
}
