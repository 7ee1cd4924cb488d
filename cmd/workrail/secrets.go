package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/workrail/workrail/cmd/workrail/daemon"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/server/secrets"
	"github.com/workrail/workrail/store"
)

// secretsDoctor is `workrail doctor --secrets`: through the running daemon,
// or reading the file itself while none runs.
func secretsDoctor(h home.Dir, asJSON bool, stdout, stderr io.Writer) int {
	var l daemon.SecretList
	err := askDaemon(h, "GET", "/api/secrets", &l)
	if errors.Is(err, errNotRunning) {
		l, err = secretsOffline(h, stderr)
	}
	if err != nil {
		return printFailure(asJSON, "doctor", err, stdout, stderr)
	}
	if asJSON {
		printJSON(stdout, l)
	} else {
		printSecrets(stdout, l)
	}
	if len(l.Sessions) > 0 {
		return 1
	}
	return 0
}

func secretsOffline(h home.Dir, stderr io.Writer) (daemon.SecretList, error) {
	st, err := openReadOnly(h)
	if errors.Is(err, os.ErrNotExist) {
		return daemon.SecretList{Sessions: []daemon.SessionSecrets{}, Skipped: []daemon.SkippedSession{}}, nil
	}
	if err != nil {
		return daemon.SecretList{}, err
	}
	defer st.Close()
	uc, err := scanningService(h, st, stderr)
	if err != nil {
		return daemon.SecretList{}, err
	}
	return daemon.FindSecrets(uc, st)
}

// scanningService is the offline use cases with the daemon's scanner.
func scanningService(h home.Dir, st *store.Store, stderr io.Writer) (*execute.Service, error) {
	sc, err := secrets.New()
	if err != nil {
		return nil, err
	}
	return daemon.Service(h, st, stderr, execute.WithSecrets(sc))
}

func printSecrets(w io.Writer, l daemon.SecretList) {
	for _, s := range l.Sessions {
		fmt.Fprintf(w, "%s holds %d secret(s):\n", s.Session, len(s.Findings))
		for _, f := range s.Findings {
			fmt.Fprintf(w, "  event %d %s: %s\n", f.Index, f.Pointer, strings.Join(f.Rules, ", "))
		}
	}
	for _, s := range l.Skipped {
		fmt.Fprintf(w, "%s not scanned: %s\n", s.Session, s.Reason)
	}
	if len(l.Sessions) == 0 {
		fmt.Fprintf(w, "No secrets found in %d session(s).\n", l.Scanned)
		return
	}
	fmt.Fprintf(w, "%d of %d session(s) hold secrets. `workrail scrub SESSION` replaces one with a redacted copy.\n", len(l.Sessions), l.Scanned)
}

func runScrub(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("scrub", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print what was done as JSON (a refusal as the error envelope)")
	pos, code, done := parseFlagsAnywhere(fs, args, stdout, stderr)
	if done {
		return code
	}
	var id engine.SessionID
	if len(pos) != 1 || id.UnmarshalText([]byte(pos[0])) != nil {
		fmt.Fprint(stderr, "workrail scrub: name one session, as `workrail doctor --secrets` lists it (ses_N)\n\n")
		commandUsage(fs, stderr)
		return 2
	}
	s, err := scrub(id, stderr)
	if err != nil {
		return printFailure(*asJSON, "scrub", err, stdout, stderr)
	}
	if *asJSON {
		printJSON(stdout, s)
		return 0
	}
	if s.Copy == 0 {
		fmt.Fprintf(stdout, "Session %s holds no secrets; nothing was changed.\n", id)
		return 0
	}
	fmt.Fprintf(stdout, "Replaced %d secret field(s) of %s by markers: the redacted copy is %s, and %s was deleted.\n",
		len(s.Findings), id, s.Copy, id)
	fmt.Fprintln(stdout, wipedText(s.Wiped))
	return 0
}

// wipedText says what became of the pages the deleted session was in.
func wipedText(w *store.Wiped) string {
	switch {
	case w == nil:
		return ""
	case w.Deferred != "":
		return "Snapshots it named are still in the file, in use, because " + w.Deferred + ": run `workrail doctor`."
	case w.Held:
		return "Its old pages are still in the file: readers kept it busy. Run `workrail stop`, then `workrail compact`, to leave them behind."
	}
	return fmt.Sprintf("Overwrote the file's free pages, where its records were (%d pages, %d bytes): the file holds no copy of them.", w.Pages, w.Bytes)
}

// scrub asks the running daemon, or works on the file itself (holding
// its lock) while none runs.
func scrub(id engine.SessionID, stderr io.Writer) (daemon.Scrubbed, error) {
	var s daemon.Scrubbed
	h, err := home.Resolve()
	if err != nil {
		return s, err
	}
	err = askDaemon(h, "POST", "/api/sessions/"+url.PathEscape(id.String())+"/scrub", &s)
	if !errors.Is(err, errNotRunning) {
		return s, err
	}
	if err := h.CheckPrivate(); err != nil {
		return s, err
	}
	st, err := store.Open(h.DB(), store.Options{Now: time.Now})
	if errors.Is(err, store.ErrLocked) {
		return s, heldFile(h)
	}
	if err != nil {
		return s, err
	}
	defer st.Close()
	uc, err := scanningService(h, st, stderr)
	if err != nil {
		return s, err
	}
	return daemon.ScrubSession(uc, st, id)
}
