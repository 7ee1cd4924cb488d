package daemon

import (
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/workrail/workrail/console"
	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/server/logfile"
)

// recentErrors is how many of the daemon's errors the Console lists.
const recentErrors = 5

// Log is the daemon's logger: JSON lines to the home's log file
// (rotated by size), the last errors remembered for the Console, and, with
// --verbose, text lines to stderr. Without --verbose nothing of it reaches
// stderr, which for a daemon a shim started is the unrotated daemon.log.
type Log struct {
	*slog.Logger
	errors *logfile.Errors
}

func NewLog(h home.Dir, verbose bool, stderr io.Writer) *Log {
	file := logfile.New(h.Log(), logfile.Options{Broken: func(err error) { fmt.Fprintln(stderr, "workrail:", err) }})
	errs := logfile.NewErrors(recentErrors)
	if err := errs.Load(h.Log()); err != nil {
		fmt.Fprintln(stderr, "workrail: reading the last errors from the log:", err)
	}
	handlers := []slog.Handler{slog.NewJSONHandler(file, nil), errs}
	if verbose {
		handlers = append(handlers, slog.NewTextHandler(stderr, nil))
	}
	l := slog.New(slog.NewMultiHandler(handlers...)).With("proc", "daemon", "pid", os.Getpid())
	return &Log{Logger: l, errors: errs}
}

// printf is the logger for the packages that report internal errors
// printf-style.
func (l *Log) printf(format string, args ...any) { l.Error(fmt.Sprintf(format, args...)) }

// warnf logs what the daemon repaired or worked around itself: no error
// for the Console to list.
func (l *Log) warnf(format string, args ...any) { l.Warn(fmt.Sprintf(format, args...)) }

// LastErrors implements console.ErrorLog.
func (l *Log) LastErrors() []console.LoggedError {
	var out []console.LoggedError
	for _, r := range l.errors.Last() {
		msg := r.Message
		if err := r.Attrs["err"]; err != "" {
			msg += ": " + err
		}
		e := console.LoggedError{Time: r.Time, Tool: r.Attrs["tool"], Code: r.Attrs["code"], Message: msg}
		_ = e.Session.UnmarshalText([]byte(r.Attrs["session"])) // none, or not an id: no link
		out = append(out, e)
	}
	return out
}
