package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/store"
)

// runDoctor verifies every session: through the running daemon when there
// is one (it owns the file), otherwise by opening the database read-only.
func runDoctor(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the reports as JSON")
	rebuild := fs.Bool("rebuild-indexes", false, "rebuild the derived indexes of sessions whose log is healthy but whose indexes differ (stop the daemon first)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	h, err := home.Resolve()
	if err != nil {
		fmt.Fprintln(stderr, "workrail doctor:", err)
		return 1
	}
	if *rebuild {
		if err := rebuildIndexes(h, stdout); err != nil {
			fmt.Fprintln(stderr, "workrail doctor:", err)
			return 1
		}
	}
	reports, err := doctorReports(h)
	if err != nil {
		fmt.Fprintln(stderr, "workrail doctor:", err)
		return 1
	}
	healthy := 0
	for _, r := range reports {
		if r.OK() {
			healthy++
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(map[string]any{"sessions": reports, "healthy": healthy, "total": len(reports)})
	} else {
		printReports(stdout, reports, healthy)
	}
	if healthy != len(reports) {
		return 1
	}
	return 0
}

func printReports(w io.Writer, reports []store.Report, healthy int) {
	for _, r := range reports {
		switch {
		case r.OK():
			fmt.Fprintf(w, "%-10s healthy (%d events)\n", r.Session, r.Health.LastGood)
		case r.Health.Status == execute.Healthy:
			fmt.Fprintf(w, "%-10s healthy log, damaged indexes: %s\n", r.Session, r.IndexProblem)
		default:
			fmt.Fprintf(w, "%-10s %s at index %d: %s\n", r.Session, r.Health.Status, r.Health.FirstBad, r.Health.Reason)
		}
	}
	fmt.Fprintf(w, "%d of %d sessions healthy\n", healthy, len(reports))
}

// doctorReports asks the daemon on the home's socket when one answers
// (it owns the file), else reads the file itself; whatever daemon.json
// says.
func doctorReports(h home.Dir) ([]store.Report, error) {
	reports, err := doctorViaDaemon(h)
	if err == nil {
		return reports, nil
	}
	if _, err := os.Stat(h.DB()); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	s, err := store.Open(h.DB(), store.Options{ReadOnly: true})
	if errors.Is(err, store.ErrLocked) {
		return nil, fmt.Errorf("another process holds %s but no daemon answers on %s; if a workrail daemon is stuck, stop it and run doctor again", h.DB(), h.Socket())
	}
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return s.Doctor()
}

func doctorViaDaemon(h home.Dir) ([]store.Report, error) {
	dial := func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", h.Socket())
	}
	c := &http.Client{Timeout: time.Minute, Transport: &http.Transport{DialContext: dial}}
	resp, err := c.Get("http://workrail/api/doctor")
	if err != nil {
		return nil, fmt.Errorf("ask the running daemon: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the running daemon answered %s", resp.Status)
	}
	var out []store.Report
	return out, json.NewDecoder(resp.Body).Decode(&out)
}

// rebuildIndexes refolds the indexes of every session doctor finds them
// damaged in. It needs the file to itself.
func rebuildIndexes(h home.Dir, w io.Writer) error {
	if info, err := h.ReadInfo(); err == nil && info.Alive() {
		return fmt.Errorf("the daemon (pid %d) owns the database: stop it, then run doctor --rebuild-indexes again", info.PID)
	}
	s, err := store.Open(h.DB(), store.Options{})
	if errors.Is(err, store.ErrLocked) {
		return fmt.Errorf("another process holds %s; stop it first", h.DB())
	}
	if err != nil {
		return err
	}
	defer s.Close()
	reports, err := s.Doctor()
	if err != nil {
		return err
	}
	for _, r := range reports {
		if r.Health.Status != execute.Healthy || r.IndexProblem == "" {
			continue
		}
		if err := s.RebuildIndexes(r.Session); err != nil {
			return err
		}
		fmt.Fprintf(w, "%-10s indexes rebuilt (%s)\n", r.Session, r.IndexProblem)
	}
	return nil
}
