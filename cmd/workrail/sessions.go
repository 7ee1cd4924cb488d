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

	"github.com/workrail/workrail/cmd/workrail/daemon"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/store"
)

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
	var l daemon.SessionList
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
func sessionsOffline(h home.Dir) (daemon.SessionList, error) {
	st, err := openReadOnly(h)
	if errors.Is(err, os.ErrNotExist) {
		return daemon.SessionList{Sessions: []daemon.SessionEntry{}}, nil // nothing recorded yet
	}
	if err != nil {
		return daemon.SessionList{}, err
	}
	defer st.Close()
	return daemon.ListSessions(st)
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
func printSessions(w io.Writer, l daemon.SessionList) {
	if len(l.Sessions) == 0 {
		fmt.Fprintln(w, "No sessions yet. Start one from your agent (for example: run wr.hello).")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tSTATUS\tWORKFLOW\tLAST ACTIVITY\tTITLE")
	for _, e := range l.Sessions {
		if e.Problem != "" {
			fmt.Fprintf(tw, "%s\tunreadable\t-\t-\t%s\n", e.Session, daemon.Clip(e.Problem, 60))
			continue
		}
		wfs := make([]string, len(e.Workflows))
		for i, wf := range e.Workflows {
			wfs[i] = string(wf)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.Session, strings.ReplaceAll(string(e.Status), "_", " "),
			daemon.OrDash(strings.Join(wfs, ", ")), e.Activity(), daemon.OrDash(daemon.Clip(e.Title, 60)))
	}
	tw.Flush()
}
