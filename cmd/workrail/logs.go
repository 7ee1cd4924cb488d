package main

import (
	"io"
	"log"
	"log/slog"
	"os"
	"strings"

	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/server/logfile"
)

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
