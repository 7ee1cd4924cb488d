package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/workrail/workrail/cmd/workrail/daemon"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/server/config"
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
	acceptLoss := fs.Bool("accept-loss", false, "with --salvage: say how to put the copy in place even when it holds fewer sessions than the file did (those listed as lost are given up)")
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
	if *salvage != "" {
		code, err := salvageInto(h, *salvage, *asJSON, *acceptLoss, stdout)
		if err != nil {
			return printFailure(*asJSON, "doctor", err, stdout, stderr)
		}
		return code
	}
	if *rebuild {
		if err := rebuildIndexes(h, stdout); err != nil {
			return printFailure(*asJSON, "doctor", err, stdout, stderr)
		}
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
		enc.Encode(map[string]any{"structure": rep.Structure, "sessions": rep.Sessions, "healthy": healthy, "total": len(rep.Sessions),
			"count": rep.Count, "unreached": rep.Unreached, "damagedPages": rep.DamagedPages, "missingPages": rep.MissingPages})
	} else {
		printReport(stdout, h, rep, healthy)
	}
	if healthy != len(rep.Sessions) || len(rep.Structure) > 0 {
		return 1
	}
	return 0
}

// reportLines bounds each list the text reports print: past it they
// count what they left out, which --json lists.
const reportLines = 10

// printReport prints a summary: the first damaged pages and unhealthy
// sessions, then counts, so a file with thousands of sessions gets a
// report of a few KB.
func printReport(w io.Writer, h home.Dir, rep store.FileReport, healthy int) {
	printFirst(w, len(rep.Structure), "damaged pages", func(i int) string { return "file damaged: " + rep.Structure[i] })
	var bad []store.Report
	states := map[string]int{}
	for _, r := range rep.Sessions {
		states[state(r)]++
		if !r.OK() {
			bad = append(bad, r)
		}
	}
	printFirst(w, len(bad), "sessions not healthy", func(i int) string { return sessionLine(bad[i]) })
	switch rep.Count {
	case store.CountExact:
		fmt.Fprintf(w, "%d of %d sessions healthy%s\n", healthy, len(rep.Sessions), byState(states, healthy))
	case store.CountUnknown: // nothing naming a session was found
		fmt.Fprintln(w, "Found 0 intact sessions.")
	default:
		fmt.Fprintf(w, "%d of %d sessions found healthy%s\n", healthy, len(rep.Sessions), byState(states, healthy))
	}
	if r := reach(rep.Reach, len(rep.Sessions)); r != "" {
		fmt.Fprintln(w, r)
	}
	if len(rep.Structure) > 0 {
		fmt.Fprintf(w, "The database file is damaged; the healthy sessions are those a salvage keeps. Stop the daemon, then run\n"+
			"  workrail doctor --salvage %s\n", filepath.Join(string(h), "salvaged.db"))
	}
}

// printFirst prints line(i) for the first reportLines of n items, then
// how many it left out.
func printFirst(w io.Writer, n int, what string, line func(i int) string) {
	for i := range min(n, reportLines) {
		fmt.Fprintln(w, line(i))
	}
	if n > reportLines {
		fmt.Fprintf(w, "… and %d more %s (workrail doctor --json lists every one)\n", n-reportLines, what)
	}
}

func sessionLine(r store.Report) string {
	switch {
	case r.OK():
		return fmt.Sprintf("%-10s healthy (%d events)", r.Session, r.Health.LastGood)
	case r.Health.Status == execute.Healthy:
		return fmt.Sprintf("%-10s healthy log, damaged indexes: %s", r.Session, r.IndexProblem)
	case r.Health.Status == execute.Unreadable:
		return fmt.Sprintf("%-10s unreadable: %s", r.Session, r.Health.Reason)
	}
	return fmt.Sprintf("%-10s %s at index %d: %s", r.Session, r.Health.Status, r.Health.FirstBad, r.Health.Reason)
}

// state is the word a session is counted under.
func state(r store.Report) string {
	if r.Health.Status == execute.Healthy && !r.OK() {
		return "with damaged indexes"
	}
	return string(r.Health.Status)
}

// byState counts the sessions that are not healthy by state, in a fixed
// order: " (3 unreadable, 1 corrupt_tail)".
func byState(states map[string]int, healthy int) string {
	if healthy == sum(states) {
		return ""
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(states)) {
		if k != string(execute.Healthy) {
			parts = append(parts, fmt.Sprintf("%d %s", states[k], k))
		}
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// wasWere is one for n = 1, else many.
func wasWere(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// reach says what a damaged file's report cannot know, or "" when the
// sessions it found are all it held: found is the sessions found.
func reach(r store.Reach, found int) string {
	var parts []string
	switch r.Count {
	case store.CountCounter:
		parts = append(parts, fmt.Sprintf("the list of sessions is damaged: %d more of the %d session ids handed out were not found (retention may have deleted some of them)", r.Unreached, found+r.Unreached))
	case store.CountAtLeast:
		parts = append(parts, fmt.Sprintf("the file's root is damaged, so how many sessions it held is unknown: at least %d, of which %d were not found", found+r.Unreached, r.Unreached))
	case store.CountUnknown:
		parts = append(parts, "the file's root is damaged, so how many sessions it held is unknown")
	}
	if r.DamagedPages > 0 {
		parts = append(parts, fmt.Sprintf("%s %s found damaged", plural(r.DamagedPages, "page"), wasWere(r.DamagedPages, "was", "were")))
	}
	if r.MissingPages > 0 {
		parts = append(parts, fmt.Sprintf("%s in use %s missing past the end of the file (it was cut short)", plural(r.MissingPages, "page"), wasWere(r.MissingPages, "is", "are")))
	}
	if len(parts) == 0 {
		return ""
	}
	s := strings.Join(parts, "; ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

// doctorReport asks the daemon on the home's socket when one answers (it
// owns the file), else reads the file itself; whatever daemon.json says.
func doctorReport(h home.Dir) (store.FileReport, error) {
	reports, err := doctorViaDaemon(h)
	if err == nil {
		return store.FileReport{Structure: []string{}, Sessions: reports, Reach: store.Reach{Count: store.CountExact}}, nil
	}
	if _, err := os.Stat(h.DB()); errors.Is(err, os.ErrNotExist) {
		return store.FileReport{Structure: []string{}, Sessions: []store.Report{}, Reach: store.Reach{Count: store.CountExact}}, nil // nothing recorded yet
	}
	files, _ := diskWorkflows(h)
	rep, err := store.DoctorFile(h.DB(), time.Second, store.SalvageOptions{Workflows: files})
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

// salvageInto copies every intact session into a new database and,
// when the copy holds every session the file held (or acceptLoss gives
// up the others), says how to put it in place; otherwise it says what
// was left behind and what to do instead, and exits 1. With asJSON it
// prints the whole report.
func salvageInto(h home.Dir, out string, asJSON, acceptLoss bool, w io.Writer) (int, error) {
	if err := stopped(h); err != nil {
		return 1, err
	}
	if _, err := os.Stat(h.DB()); errors.Is(err, os.ErrNotExist) {
		return 1, engine.Errorf(engine.CodeInvalidInput,
			"there is no database at %s to salvage, so there is nothing to copy. Check WORKRAIL_HOME names the home you mean; a daemon creates the database on its first start", h.DB())
	}
	files, unread := diskWorkflows(h)
	rep, err := store.Salvage(h.DB(), out, store.SalvageOptions{Workflows: files})
	if err != nil {
		return 1, err
	}
	code := 0
	if !rep.Complete && !acceptLoss {
		code = 1
	}
	if asJSON {
		printJSON(w, rep)
		return code, nil
	}
	printSalvage(w, h, out, rep, unread)
	if code == 0 {
		fmt.Fprintf(w, "To use it, with the daemon stopped:\n  mv %s %s.damaged && mv %s %s\n", h.DB(), h.DB(), out, h.DB())
	} else {
		printInstead(w, h, out, rep)
	}
	return code, nil
}

// printSalvage says what a salvage copied, lost and could not reach, and
// where the pinned workflows the file lost were taken from.
func printSalvage(w io.Writer, h home.Dir, out string, rep store.SalvageReport, unread error) {
	printFirst(w, len(rep.Lost), "sessions lost", func(i int) string {
		return fmt.Sprintf("%-10s lost: %s", rep.Lost[i].Session, rep.Lost[i].Reason)
	})
	found := len(rep.Salvaged) + len(rep.Lost)
	switch rep.Count {
	case store.CountExact, store.CountCounter:
		fmt.Fprintf(w, "Salvaged %d of %d sessions into %s.\n", len(rep.Salvaged), rep.Held(), out)
	case store.CountAtLeast:
		fmt.Fprintf(w, "Salvaged %d of at least %d sessions into %s.\n", len(rep.Salvaged), rep.Held(), out)
	default: // nothing naming a session was found, so none was copied
		fmt.Fprintf(w, "Found %d intact sessions; %s holds none.\n", len(rep.Salvaged), out)
	}
	if r := reach(rep.Reach, found); r != "" {
		fmt.Fprintln(w, r)
	}
	for _, p := range rep.Restored {
		from := "an older copy in the file"
		if p.From == store.FromWorkflowFiles {
			from = "the workflow files on disk, compiled to the same hash"
		}
		fmt.Fprintf(w, "The file had lost the pinned workflow %s (%s); %s took it from %s.\n", p.WorkflowID, p.WorkflowHash, plural(p.Sessions, "session"), from)
	}
	if unread != nil {
		fmt.Fprintf(w, "Not every workflow folder was searched for pinned workflows: %v.\n", unread)
	}
}

// printInstead says why a salvage's copy is not offered to replace the
// database, and what to do instead.
func printInstead(w io.Writer, h home.Dir, out string, rep store.SalvageReport) {
	needs := map[store.Pin]int{}
	damaged := 0
	for _, l := range rep.Lost {
		for _, p := range l.Needs {
			needs[p]++
		}
		if len(l.Needs) == 0 {
			damaged++
		}
	}
	what := fmt.Sprintf("it holds %d of the %d sessions found", len(rep.Salvaged), len(rep.Salvaged)+len(rep.Lost))
	switch {
	case rep.Count == store.CountUnknown:
		what = "how many sessions the file held is unknown"
	case rep.Unreached > 0:
		what += fmt.Sprintf(", and %d more the file held were not found", rep.Unreached)
	}
	fmt.Fprintf(w, "%s is not offered to replace the database: %s. %s is unchanged.\n", out, what, h.DB())
	if len(needs) > 0 {
		fmt.Fprintln(w, "These pinned workflows are in neither the file nor the workflow files on disk:")
		pins := slices.SortedFunc(maps.Keys(needs), func(a, b store.Pin) int {
			return cmp.Or(cmp.Compare(a.WorkflowID, b.WorkflowID), cmp.Compare(a.WorkflowHash.String(), b.WorkflowHash.String()))
		})
		for _, p := range pins {
			fmt.Fprintf(w, "  %s %s (%s)\n", p.WorkflowID, p.WorkflowHash, plural(needs[p], "session"))
		}
		fmt.Fprintf(w, "Put back a file defining each, in the version that compiles to that hash (from version control, or a backup), in %s,\n"+
			"the project's .workrail/workflows or a folder config.json's workflowPaths names, then salvage again into a new file.\n",
			h.Path("workflows"))
	}
	if damaged > 0 || rep.Unreached > 0 || rep.Count == store.CountUnknown {
		fmt.Fprintf(w, "Sessions on damaged pages cannot be read from this file: if you have a backup copy of %s, put it back instead.\n", h.DB())
	}
	fmt.Fprintln(w, "To put this copy in place anyway, giving up the sessions it lacks, salvage again into a new file with --accept-loss.")
}

// diskWorkflows looks for a pinned workflow where the daemon reads
// workflow files (bundled, the user's folder, the session's project
// folder, config.json's workflowPaths, and the copies of its
// workflowRepos the cache holds), compiled as a start compiles
// them. When config.json cannot be read, its folders are left out and
// unread says why.
func diskWorkflows(h home.Dir) (find func(string, store.Pin) (compile.Compiled, bool), unread error) {
	cfg, err := config.Load(h.Path("config.json"))
	if err != nil {
		cfg, unread = config.Defaults(), fmt.Errorf("config.json could not be read (%v), so the folders its workflowPaths name were left out", err)
	}
	reg, err := daemon.NewRegistry(h, cfg, daemon.OpenRepos(h, cfg, nil))
	if err != nil {
		return nil, fmt.Errorf("the bundled workflows do not load: %v", err)
	}
	return func(workspace string, p store.Pin) (compile.Compiled, bool) {
		e, ok := reg.Catalog(workspace).Definition(p.WorkflowID, p.WorkflowHash)
		return e.Compiled, ok
	}, unread
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
