package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/store"
)

// runDoctor verifies every session: through the running daemon when there
// is one (it owns the file), otherwise by reading the file itself.
func runDoctor(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the reports as JSON")
	rebuild := fs.Bool("rebuild-indexes", false, "rebuild the derived indexes of sessions whose log is healthy but whose indexes differ (stop the daemon first)")
	salvage := fs.String("salvage", "", "copy every intact session into the new database `FILE` (stop the daemon first)")
	scanSecrets := fs.Bool("secrets", false, "list the sessions holding text the secret scanner matches (event, field, rule; never the secret); exit 1 if any")
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	h, err := home.Resolve()
	if err != nil {
		return printFailure(*asJSON, "doctor", err, stdout, stderr)
	}
	if *scanSecrets {
		return secretsDoctor(h, *asJSON, stdout, stderr)
	}
	switch {
	case *salvage != "":
		err = salvageInto(h, *salvage, stdout)
	case *rebuild:
		err = rebuildIndexes(h, stdout)
	}
	if err != nil {
		return printFailure(*asJSON, "doctor", err, stdout, stderr)
	}
	if *salvage != "" {
		return 0
	}
	rep, err := doctorReport(h)
	if err != nil {
		return printFailure(*asJSON, "doctor", err, stdout, stderr)
	}
	healthy := 0
	for _, r := range rep.Sessions {
		if r.OK() {
			healthy++
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(map[string]any{"structure": rep.Structure, "sessions": rep.Sessions, "healthy": healthy, "total": len(rep.Sessions)})
	} else {
		printReport(stdout, h, rep, healthy)
	}
	if healthy != len(rep.Sessions) || len(rep.Structure) > 0 {
		return 1
	}
	return 0
}

func printReport(w io.Writer, h home.Dir, rep store.FileReport, healthy int) {
	for _, p := range rep.Structure {
		fmt.Fprintf(w, "file damaged: %s\n", p)
	}
	for _, r := range rep.Sessions {
		switch {
		case r.OK():
			fmt.Fprintf(w, "%-10s healthy (%d events)\n", r.Session, r.Health.LastGood)
		case r.Health.Status == execute.Healthy:
			fmt.Fprintf(w, "%-10s healthy log, damaged indexes: %s\n", r.Session, r.IndexProblem)
		case r.Health.Status == execute.Unreadable:
			fmt.Fprintf(w, "%-10s unreadable: %s\n", r.Session, r.Health.Reason)
		default:
			fmt.Fprintf(w, "%-10s %s at index %d: %s\n", r.Session, r.Health.Status, r.Health.FirstBad, r.Health.Reason)
		}
	}
	fmt.Fprintf(w, "%d of %d sessions healthy\n", healthy, len(rep.Sessions))
	if len(rep.Structure) > 0 {
		fmt.Fprintf(w, "The database file is damaged; the healthy sessions above are those a salvage keeps. Stop the daemon, then run\n"+
			"  workrail doctor --salvage %s\n", filepath.Join(string(h), "salvaged.db"))
	}
}

// doctorReport asks the daemon on the home's socket when one answers (it
// owns the file), else reads the file itself; whatever daemon.json says.
func doctorReport(h home.Dir) (store.FileReport, error) {
	reports, err := doctorViaDaemon(h)
	if err == nil {
		return store.FileReport{Structure: []string{}, Sessions: reports}, nil
	}
	if _, err := os.Stat(h.DB()); errors.Is(err, os.ErrNotExist) {
		return store.FileReport{Structure: []string{}, Sessions: []store.Report{}}, nil // nothing recorded yet
	}
	rep, err := store.DoctorFile(h.DB(), time.Second)
	if errors.Is(err, store.ErrLocked) {
		return rep, fmt.Errorf("another process holds %s but no daemon answers on %s; if a workrail daemon is stuck, stop it and run doctor again", h.DB(), h.Socket())
	}
	return rep, err
}

func doctorViaDaemon(h home.Dir) ([]store.Report, error) {
	resp, err := daemonClient(h, time.Minute).Get("http://workrail/api/doctor")
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

// stopped refuses to go on while a daemon owns the database.
func stopped(h home.Dir) error {
	if _, err := doctorViaDaemon(h); err == nil {
		return errors.New("the daemon is running and owns the database: stop it first")
	}
	return nil
}

// salvageInto copies every intact session into a new database and says
// how to put it in place.
func salvageInto(h home.Dir, out string, w io.Writer) error {
	if err := stopped(h); err != nil {
		return err
	}
	if _, err := os.Stat(h.DB()); errors.Is(err, os.ErrNotExist) {
		return engine.Errorf(engine.CodeInvalidInput,
			"there is no database at %s to salvage, so there is nothing to copy. Check WORKRAIL_HOME names the home you mean; a daemon creates the database on its first start", h.DB())
	}
	rep, err := store.Salvage(h.DB(), out)
	if err != nil {
		return err
	}
	for _, l := range rep.Lost {
		fmt.Fprintf(w, "%-10s lost: %s\n", l.Session, l.Reason)
	}
	fmt.Fprintf(w, "Salvaged %d of %d sessions into %s.\n", len(rep.Salvaged), len(rep.Salvaged)+len(rep.Lost), out)
	fmt.Fprintf(w, "To use it, with the daemon stopped:\n  mv %s %s.damaged && mv %s %s\n", h.DB(), h.DB(), out, h.DB())
	return nil
}

// rebuildIndexes refolds the indexes of every session doctor finds them
// damaged in. It needs the file to itself.
func rebuildIndexes(h home.Dir, w io.Writer) error {
	if err := stopped(h); err != nil {
		return err
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
