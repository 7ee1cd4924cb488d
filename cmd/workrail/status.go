package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/workrail/workrail/cmd/workrail/daemon"
	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/store"
)

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
	r := daemon.Status{Home: string(h)}
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

func printStatus(w io.Writer, r daemon.Status) {
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
	var before daemon.Status
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
	var before daemon.Status
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
	var after daemon.Status
	back := waitFor(func() bool {
		return askDaemon(h, "GET", "/api/status", &after) == nil && after.Report != nil && after.StartedAt != previous
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
