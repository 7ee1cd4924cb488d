package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/server"
	"github.com/workrail/workrail/server/config"
	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/store"
)

// statusReport is the daemon's GET /api/status and `workrail status --json`.
// Only a running daemon has the rest: a stopped one is {running, home}.
type statusReport struct {
	Running bool   `json:"running"`
	Home    string `json:"home"`
	*DaemonReport
}

// DaemonReport is what a running daemon reports about itself.
type DaemonReport struct {
	URL               string        `json:"url"`
	PID               int           `json:"pid"`
	Version           string        `json:"version"`
	StartedAt         string        `json:"startedAt"` // RFC 3339 to the nanosecond: tells a restarted daemon
	UptimeSeconds     int64         `json:"uptimeSeconds"`
	AppliedConfigHash string        `json:"appliedConfigHash"`
	PendingRestart    []string      `json:"pendingRestart"`
	ConfigProblem     *engine.Error `json:"configProblem,omitempty"`
	Sessions          int           `json:"sessions"`
	DBBytes           int64         `json:"dbBytes"`
	// Health counts the sessions verified since the daemon started, by
	// status (the Console's summary: status never reads every log).
	Health map[string]int `json:"health"`
	// Retention is the retention sweep's dry run: what it would delete now.
	Retention store.SweepPlan `json:"retention"`
	// RetentionProblem says why the dry run could not be read ("" when it
	// could).
	RetentionProblem string `json:"retentionProblem,omitempty"`
	// Config is every key of config.json: desired, applied, and its class.
	Config []config.Entry `json:"config"`
	// Goroutines and OpenFiles are the daemon's own counts now: both come
	// back to the same level whenever it is idle, so a rise that stays is
	// a leak (the soak test watches them).
	Goroutines int `json:"goroutines"`
	OpenFiles  int `json:"openFiles"`
}

// daemonStatus is what the running daemon reports about itself.
func daemonStatus(h home.Dir, d *server.Daemon, st *store.Store, snap config.Snapshot) statusReport {
	info := d.Info()
	r := &DaemonReport{URL: info.URL, PID: info.PID, Version: info.Version,
		StartedAt: d.Started().UTC().Format(time.RFC3339Nano), UptimeSeconds: int64(d.Uptime() / time.Second),
		AppliedConfigHash: snap.AppliedHash, ConfigProblem: snap.DesiredErr,
		PendingRestart: append([]string{}, snap.Pending...),
		Health:         map[string]int{}, Config: snap.Entries}
	if ids, err := st.SessionIDs(); err == nil {
		r.Sessions = len(ids)
	}
	if fi, err := os.Stat(h.DB()); err == nil {
		r.DBBytes = fi.Size()
	}
	plan, err := st.SweepPlan(snap.Applied.RetentionDays)
	if err != nil {
		plan = store.SweepPlan{RetentionDays: snap.Applied.RetentionDays, Stale: []store.StaleSession{}}
		r.RetentionProblem = err.Error()
	}
	r.Retention = plan
	for status, n := range st.Checked() {
		r.Health[string(status)] = n
	}
	r.Goroutines = runtime.NumGoroutine()
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil {
		r.OpenFiles = len(fds)
	}
	return statusReport{Running: true, Home: string(h), DaemonReport: r}
}

// adminAPI answers the daemon's status, doctor and restart.
type adminAPI struct {
	h       home.Dir
	st      *store.Store
	live    *config.Live
	running *atomic.Pointer[server.Daemon]
	restart func() *protocol.ErrorResult
}

// Status is the statusReport.
func (a adminAPI) Status() jsontext.Value {
	return answerOf(daemonStatus(a.h, a.running.Load(), a.st, a.live.Snapshot()))
}

// Doctor is every session's store.Report.
func (a adminAPI) Doctor() (jsontext.Value, error) {
	reports, err := a.st.Doctor()
	if err != nil {
		return nil, err
	}
	return answerOf(reports), nil
}

// Restart asks for a restart unless config.json would stop one.
func (a adminAPI) Restart() *protocol.ErrorResult { return a.restart() }

// homeCommand parses the flags of a command whose only flag is --json and
// resolves the home folder. done says the caller returns code now.
func homeCommand(name, jsonUsage string, args []string, stdout, stderr io.Writer) (h home.Dir, asJSON bool, code int, done bool) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.BoolVar(&asJSON, "json", false, jsonUsage)
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return "", false, code, true
	}
	h, err := home.Resolve()
	if err != nil {
		return "", asJSON, printFailure(asJSON, name, err, stdout, stderr), true
	}
	return h, asJSON, 0, false
}

func runStatus(args []string, stdout, stderr io.Writer) int {
	h, asJSON, code, done := homeCommand("status", "print the status as JSON", args, stdout, stderr)
	if done {
		return code
	}
	r := statusReport{Home: string(h)}
	err := askDaemon(h, "GET", "/api/status", &r)
	if err != nil && !errors.Is(err, errNotRunning) {
		return printFailure(asJSON, "status", err, stdout, stderr)
	}
	if asJSON {
		printJSON(stdout, r)
	} else {
		printStatus(stdout, r)
	}
	if !r.Running {
		return 3 // as LSB init scripts say "not running"
	}
	return 0
}

func printStatus(w io.Writer, r statusReport) {
	if !r.Running {
		fmt.Fprintf(w, "No WorkRail daemon is running for %s.\nStart one with `workrail` (your IDE's `workrail mcp` also starts it).\n", r.Home)
		return
	}
	fmt.Fprintf(w, "WorkRail %s is running (pid %d, up %s).\n", r.Version, r.PID, time.Duration(r.UptimeSeconds)*time.Second)
	fmt.Fprintf(w, "  Console:   %s/ (`workrail console` logs you in)\n  Home:      %s\n", r.URL, r.Home)
	fmt.Fprintf(w, "  Config:    %s applied\n", shortHash(r.AppliedConfigHash))
	switch {
	case r.ConfigProblem != nil:
		fmt.Fprintf(w, "             config.json has a problem, so a restart would fail: %s\n", r.ConfigProblem.Message)
	case len(r.PendingRestart) > 0:
		fmt.Fprintf(w, "             restart needed for %s: run `workrail restart`, then reload your IDE's MCP server\n", strings.Join(r.PendingRestart, ", "))
	}
	fmt.Fprintf(w, "  Sessions:  %d, database %s\n", r.Sessions, bytesText(r.DBBytes))
	fmt.Fprintf(w, "  Runtime:   %d goroutines, %d open files\n", r.Goroutines, r.OpenFiles)
	if len(r.Health) > 0 {
		fmt.Fprintf(w, "  Health:    %s (of the sessions checked since start)\n", healthText(r.Health))
	}
	fmt.Fprintf(w, "  Retention: %s\n", retentionText(r.Retention))
}

// shortHash is the first 12 hex digits of a sha256:… hash.
func shortHash(h string) string {
	hex := strings.TrimPrefix(h, "sha256:")
	if len(hex) > 12 {
		hex = hex[:12]
	}
	return "sha256:" + hex
}

func healthText(counts map[string]int) string {
	var parts []string
	for _, s := range []string{"healthy", "corrupt_tail", "indexes_damaged", "unreadable"} {
		if n := counts[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, strings.ReplaceAll(s, "_", " ")))
		}
	}
	return strings.Join(parts, ", ")
}

func bytesText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// lifecycleTimeout bounds the wait for a daemon to stop or come back.
const lifecycleTimeout = 15 * time.Second

func runStop(args []string, stdout, stderr io.Writer) int {
	h, asJSON, code, done := homeCommand("stop", "print the result as JSON", args, stdout, stderr)
	if done {
		return code
	}
	var before statusReport
	if err := askDaemon(h, "GET", "/api/status", &before); errors.Is(err, errNotRunning) {
		return report(asJSON, stdout, map[string]any{"stopped": false, "running": false}, "No WorkRail daemon is running for "+string(h)+".")
	} else if err != nil {
		return printFailure(asJSON, "stop", err, stdout, stderr)
	}
	if err := askDaemon(h, "POST", "/api/stop", nil); err != nil && !errors.Is(err, errNotRunning) {
		return printFailure(asJSON, "stop", err, stdout, stderr)
	}
	if !waitFor(func() bool { return errors.Is(askDaemon(h, "GET", "/health", nil), errNotRunning) }) {
		return printFailure(asJSON, "stop", fmt.Errorf("the daemon (pid %d) is still answering after %s", before.PID, lifecycleTimeout), stdout, stderr)
	}
	return report(asJSON, stdout, map[string]any{"stopped": true, "pid": before.PID},
		fmt.Sprintf("Stopped the daemon (pid %d). An IDE's next WorkRail call starts it again.", before.PID))
}

func runRestart(args []string, stdout, stderr io.Writer) int {
	h, asJSON, code, done := homeCommand("restart", "print the new status as JSON", args, stdout, stderr)
	if done {
		return code
	}
	var before statusReport
	previous := "" // the startedAt of the daemon restarted, if one ran
	switch err := askDaemon(h, "GET", "/api/status", &before); {
	case errors.Is(err, errNotRunning):
		if _, err := startDetached(h); err != nil {
			return printFailure(asJSON, "restart", fmt.Errorf("start the daemon: %w", err), stdout, stderr)
		}
	case err != nil:
		return printFailure(asJSON, "restart", err, stdout, stderr)
	default:
		previous = before.StartedAt
		if err := askDaemon(h, "POST", "/api/restart", nil); err != nil {
			return printFailure(asJSON, "restart", err, stdout, stderr)
		}
	}
	var after statusReport
	back := waitFor(func() bool {
		return askDaemon(h, "GET", "/api/status", &after) == nil && after.DaemonReport != nil && after.StartedAt != previous
	})
	if !back {
		return printFailure(asJSON, "restart", fmt.Errorf("the daemon did not come back within %s; see %s", lifecycleTimeout, h.DaemonLog()), stdout, stderr)
	}
	return report(asJSON, stdout, after, fmt.Sprintf("The daemon is running (pid %d), config %s applied. Reload your IDE's MCP server to see tool changes.",
		after.PID, shortHash(after.AppliedConfigHash)))
}

// report prints a command's result: v as JSON, or the sentence.
func report(asJSON bool, stdout io.Writer, v any, sentence string) int {
	if asJSON {
		printJSON(stdout, v)
	} else {
		fmt.Fprintln(stdout, sentence)
	}
	return 0
}

// waitFor polls done until it holds or lifecycleTimeout passes.
func waitFor(done func() bool) bool {
	deadline := time.Now().Add(lifecycleTimeout)
	for time.Now().Before(deadline) {
		if done() {
			return true
		}
		time.Sleep(25 * time.Millisecond)
	}
	return done()
}

// retentionText says what the retention sweep keeps, and what it would
// delete now.
func retentionText(p store.SweepPlan) string {
	if p.Cutoff.IsZero() {
		return "sessions are kept forever (retentionDays is 0)"
	}
	text := fmt.Sprintf("sessions idle for %d days are deleted; the next sweep deletes %d", p.RetentionDays, len(p.Stale))
	for i, s := range p.Stale {
		if i == 5 {
			text += fmt.Sprintf(", … (%d more)", len(p.Stale)-5)
			break
		}
		sep := ", "
		if i == 0 {
			sep = ": "
		}
		text += sep + s.Session.String()
	}
	return text
}
