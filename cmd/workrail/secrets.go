package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/bundle"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/server/secrets"
	"github.com/workrail/workrail/store"
)

// Sessions recorded before secrets were redacted on the way in (or
// holding something a rule added since matches) are found by `workrail
// doctor --secrets` and replaced by a redacted copy by `workrail scrub`.

// secretList is what `doctor --secrets` reports: each session holding
// something the scanner matches, where (event, JSON pointer) and which
// rules, never the secret; and the sessions that could not be read.
type secretList struct {
	Sessions []sessionSecrets `json:"sessions"`
	Scanned  int              `json:"scanned"`
	Skipped  []skippedSession `json:"skipped"`
}

type sessionSecrets struct {
	Session  engine.SessionID       `json:"sessionId"`
	Findings []bundle.SecretFinding `json:"findings"`
}

type skippedSession struct {
	Session engine.SessionID `json:"sessionId"`
	Reason  string           `json:"reason"`
}

// secretsAPI answers the daemon's /api/secrets and
// /api/sessions/{session}/scrub, over the daemon's own use cases and store.
type secretsAPI struct {
	uc   *execute.Service
	st   *store.Store
	logf func(string, ...any)
}

// Find is the secretList.
func (a secretsAPI) Find() (jsontext.Value, *protocol.ErrorResult) {
	l, err := findSecrets(a.uc, a.st)
	if err != nil {
		return nil, shareAPI{logf: a.logf}.refusal("find secrets", err)
	}
	return answerOf(l), nil
}

// Scrub is what scrubSession did.
func (a secretsAPI) Scrub(session string) (jsontext.Value, *protocol.ErrorResult) {
	var id engine.SessionID
	if err := id.UnmarshalText([]byte(session)); err != nil {
		return nil, shareAPI{logf: a.logf}.refusal("scrub", engine.Errorf(engine.CodeInvalidInput, "%q is not a session id (ses_N)", session).With("sessionId", session))
	}
	s, err := scrubSession(a.uc, a.st, id)
	if err != nil {
		return nil, shareAPI{logf: a.logf}.refusal("scrub", err)
	}
	return answerOf(s), nil
}

// findSecrets scans every session st holds, oldest first.
func findSecrets(uc *execute.Service, st *store.Store) (secretList, error) {
	var ids []engine.SessionID
	err := st.Overviews(0, func(id engine.SessionID, _ project.Overview, _ error) bool {
		ids = append(ids, id)
		return true
	})
	if err != nil {
		return secretList{}, err
	}
	l := secretList{Sessions: []sessionSecrets{}, Skipped: []skippedSession{}}
	for i := len(ids) - 1; i >= 0; i-- {
		fs, err := uc.FindSecrets(ids[i])
		if err != nil {
			l.Skipped = append(l.Skipped, skippedSession{Session: ids[i], Reason: err.Error()})
			continue
		}
		l.Scanned++
		if len(fs) > 0 {
			l.Sessions = append(l.Sessions, sessionSecrets{Session: ids[i], Findings: fs})
		}
	}
	return l, nil
}

// scrubbed is what `workrail scrub` did: the replacement, and the
// overwriting of the pages the original's records were in.
type scrubbed struct {
	execute.Scrubbed
	Wiped *store.Wiped `json:"wiped,omitempty"`
}

// wipeWait bounds how long a scrub waits for the daemon's readers to let
// it overwrite the freed pages.
const wipeWait = 5 * time.Second

// scrubSession replaces session id by a redacted copy (in one write) and
// then overwrites the file's free pages, where the original's records
// and every older copy of the pages it shared with others are.
func scrubSession(uc *execute.Service, st *store.Store, id engine.SessionID) (scrubbed, error) {
	s, err := uc.ScrubSecrets(id)
	out := scrubbed{Scrubbed: s}
	if err != nil || s.Copy == 0 {
		return out, err
	}
	w, err := st.Wipe(context.Background(), wipeWait)
	out.Wiped = &w
	return out, err
}

// secretsDoctor is `workrail doctor --secrets`: through the running daemon,
// or reading the file itself while none runs.
func secretsDoctor(h home.Dir, asJSON bool, stdout, stderr io.Writer) int {
	var l secretList
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

func secretsOffline(h home.Dir, stderr io.Writer) (secretList, error) {
	st, err := openReadOnly(h)
	if errors.Is(err, os.ErrNotExist) {
		return secretList{Sessions: []sessionSecrets{}, Skipped: []skippedSession{}}, nil
	}
	if err != nil {
		return secretList{}, err
	}
	defer st.Close()
	uc, err := scanningService(h, st, stderr)
	if err != nil {
		return secretList{}, err
	}
	return findSecrets(uc, st)
}

// scanningService is the offline use cases with the daemon's scanner.
func scanningService(h home.Dir, st *store.Store, stderr io.Writer) (*execute.Service, error) {
	sc, err := secrets.New()
	if err != nil {
		return nil, err
	}
	return offlineService(h, st, stderr, execute.WithSecrets(sc))
}

func printSecrets(w io.Writer, l secretList) {
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
func scrub(id engine.SessionID, stderr io.Writer) (scrubbed, error) {
	var s scrubbed
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
	return scrubSession(uc, st, id)
}
