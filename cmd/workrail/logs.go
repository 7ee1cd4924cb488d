package main

import (
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"strings"

	"github.com/workrail/workrail/console"
	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/server/logfile"
)

// recentErrors is how many of the daemon's errors the Console lists.
const recentErrors = 5

// daemonLog is the daemon's logger: JSON lines to the home's log file
// (rotated by size), the last errors remembered for the Console, and, with
// --verbose, text lines to stderr. Without --verbose nothing of it reaches
// stderr, which for a daemon a shim started is the unrotated daemon.log.
type daemonLog struct {
	*slog.Logger
	errors *logfile.Errors
}

func newDaemonLog(h home.Dir, verbose bool, stderr io.Writer) *daemonLog {
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
	return &daemonLog{Logger: l, errors: errs}
}

// printf is the logger for the packages that report internal errors
// printf-style.
func (l *daemonLog) printf(format string, args ...any) { l.Error(fmt.Sprintf(format, args...)) }

// warnf logs what the daemon repaired or worked around itself: no error
// for the Console to list.
func (l *daemonLog) warnf(format string, args ...any) { l.Warn(fmt.Sprintf(format, args...)) }

// LastErrors implements console.ErrorLog.
func (l *daemonLog) LastErrors() []console.LoggedError {
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

// shimLogger is the shim's logger: its lines go to stderr as they always
// did (the IDE shows them) and, as JSON, to the home's log file. Never to
// stdout, which carries protocol bytes only.
func shimLogger(h home.Dir, stderr io.Writer) *log.Logger {
	file := slog.New(slog.NewJSONHandler(logfile.New(h.Log(), logfile.Options{}), nil)).With("proc", "shim", "pid", os.Getpid())
	return log.New(shimOutput{stderr: log.New(stderr, "workrail mcp: ", log.LstdFlags), file: file}, "", 0)
}

// shimOutput receives each of the shim's lines bare and writes it to both.
// The shim logs only when something is off (no daemon answered, a reply
// could not be delivered), so its lines are warnings.
type shimOutput struct {
	stderr *log.Logger
	file   *slog.Logger
}

func (o shimOutput) Write(p []byte) (int, error) {
	msg := strings.TrimSuffix(string(p), "\n")
	o.stderr.Print(msg)
	o.file.Warn(msg)
	return len(p), nil
}
