package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/store"
)

// sessionList is `workrail sessions --json` and the daemon's GET
// /api/sessions: every session, newest first (by id, never by clock).
type sessionList struct {
	Sessions []sessionEntry `json:"sessions"`
}

// sessionEntry is one session as its stored overview has it: enough to
// find the one to export without reading any log.
type sessionEntry struct {
	Session   engine.SessionID    `json:"sessionId"`
	Title     string              `json:"title,omitempty"`
	Workflows []engine.WorkflowID `json:"workflows"`
	Status    project.RunStatus   `json:"status,omitempty"`
	Runs      int                 `json:"runs"`
	// LastEvent and LastKind are the session's last activity: its log's
	// length and what the last event recorded; LastTime when it was
	// appended (absent where an earlier build recorded no time).
	LastEvent engine.EventIndex `json:"lastEvent"`
	LastKind  event.Kind        `json:"lastKind,omitempty"`
	LastTime  string            `json:"lastTime,omitempty"`
	CreatedAt string            `json:"createdAt,omitempty"`
	Workspace string            `json:"workspace,omitempty"`
	GitBranch string            `json:"gitBranch,omitempty"`
	// Problem says why the overview could not be read (`workrail doctor`
	// tells more); the other fields are then empty.
	Problem string `json:"problem,omitempty"`
}

// overviews is the store's walk of the sessions' overviews, the most
// recently written first.
type overviews interface {
	Recent(below execute.Write, fn func(engine.SessionID, execute.Write, project.Overview, error) bool) error
}

// listSessions reads every session's stored overview, the most recently
// written first (by the store's write sequence, never by clock).
func listSessions(st overviews) (sessionList, error) {
	l := sessionList{Sessions: []sessionEntry{}}
	err := st.Recent(0, func(id engine.SessionID, _ execute.Write, o project.Overview, err error) bool {
		l.Sessions = append(l.Sessions, entryOf(id, o, err))
		return true
	})
	return l, err
}

// entryOf is session id as its overview o has it (err: o could not be
// read).
func entryOf(id engine.SessionID, o project.Overview, err error) sessionEntry {
	e := sessionEntry{Session: id, Workflows: []engine.WorkflowID{}}
	if err != nil {
		e.Problem = err.Error()
		return e
	}
	e.Title, e.Status, e.Runs = o.Title, o.Status(), len(o.Runs)
	e.LastEvent, e.LastKind, e.CreatedAt, e.Workspace, e.GitBranch = o.Last, o.LastKind, o.CreatedAt, o.Workspace, o.GitBranch
	if t, ok := o.LastTime.Time(); ok {
		e.LastTime = t.Format("2006-01-02T15:04:05.000Z07:00")
	}
	if w := o.Workflows(); w != nil {
		e.Workflows = w
	}
	return e
}

func runSessions(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sessions", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the sessions as JSON (a failure as the error envelope)")
	pos, code, done := parseFlagsAnywhere(fs, args, stdout, stderr)
	if done {
		return code
	}
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "workrail sessions: unexpected argument %q\n\n", pos[0])
		commandUsage(fs, stderr)
		return 2
	}
	h, err := home.Resolve()
	if err != nil {
		return printFailure(*asJSON, "sessions", err, stdout, stderr)
	}
	var l sessionList
	err = askDaemon(h, "GET", "/api/sessions", &l)
	if errors.Is(err, errNotRunning) {
		l, err = sessionsOffline(h)
	}
	if err != nil {
		return printFailure(*asJSON, "sessions", err, stdout, stderr)
	}
	if *asJSON {
		printJSON(stdout, l)
	} else {
		printSessions(stdout, l)
	}
	return 0
}

// sessionsOffline reads the sessions from the file itself, read-only,
// while no daemon owns it.
func sessionsOffline(h home.Dir) (sessionList, error) {
	st, err := openReadOnly(h)
	if errors.Is(err, os.ErrNotExist) {
		return sessionList{Sessions: []sessionEntry{}}, nil // nothing recorded yet
	}
	if err != nil {
		return sessionList{}, err
	}
	defer st.Close()
	return listSessions(st)
}

// openReadOnly opens the home's database for reading while no daemon
// answers; a missing file is os.ErrNotExist.
func openReadOnly(h home.Dir) (*store.Store, error) {
	if _, err := os.Stat(h.DB()); err != nil {
		return nil, err
	}
	st, err := store.Open(h.DB(), store.Options{ReadOnly: true, Now: time.Now})
	if errors.Is(err, store.ErrLocked) {
		return nil, heldFile(h)
	}
	return st, err
}

// heldFile says that something holds the database although no daemon
// answers on the socket.
func heldFile(h home.Dir) error {
	return engine.Errorf(engine.CodeDaemonUnavailable, "another process holds %s but no daemon answers on %s; if a workrail daemon is stuck, stop it and try again", h.DB(), h.Socket()).
		With("path", h.DB())
}

// printSessions is the table people read: the most recently written
// first, one line each.
func printSessions(w io.Writer, l sessionList) {
	if len(l.Sessions) == 0 {
		fmt.Fprintln(w, "No sessions yet. Start one from your agent (for example: run wr.hello).")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tSTATUS\tWORKFLOW\tLAST ACTIVITY\tTITLE")
	for _, e := range l.Sessions {
		if e.Problem != "" {
			fmt.Fprintf(tw, "%s\tunreadable\t-\t-\t%s\n", e.Session, clip(e.Problem, 60))
			continue
		}
		wfs := make([]string, len(e.Workflows))
		for i, wf := range e.Workflows {
			wfs[i] = string(wf)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.Session, strings.ReplaceAll(string(e.Status), "_", " "),
			orDash(strings.Join(wfs, ", ")), activityText(e), orDash(clip(e.Title, 60)))
	}
	tw.Flush()
}

// activityText is a session's last activity in words: when, where
// recorded, and its last event.
func activityText(e sessionEntry) string {
	s := fmt.Sprintf("event %d, %s", e.LastEvent, strings.ReplaceAll(string(e.LastKind), "_", " "))
	if t, err := time.Parse(time.RFC3339, e.LastTime); err == nil {
		s = t.Format("2006-01-02 15:04 UTC") + ", " + s
	}
	return s
}

// clip shortens s to at most n runes on one line, marking the cut.
func clip(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
