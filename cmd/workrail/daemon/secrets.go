package daemon

import (
	"context"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/bundle"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/store"
)

// Sessions recorded before secrets were redacted on the way in (or
// holding something a rule added since matches) are found by `workrail
// doctor --secrets` and replaced by a redacted copy by `workrail scrub`.

// SecretList is what `doctor --secrets` reports: each session holding
// something the scanner matches, where (event, JSON pointer) and which
// rules, never the secret; and the sessions that could not be read.
type SecretList struct {
	Sessions []SessionSecrets `json:"sessions"`
	Scanned  int              `json:"scanned"`
	Skipped  []SkippedSession `json:"skipped"`
}

type SessionSecrets struct {
	Session  engine.SessionID       `json:"sessionId"`
	Findings []bundle.SecretFinding `json:"findings"`
}

type SkippedSession struct {
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

// Find is the SecretList.
func (a secretsAPI) Find() (jsontext.Value, *protocol.ErrorResult) {
	l, err := FindSecrets(a.uc, a.st)
	if err != nil {
		return nil, shareAPI{logf: a.logf}.refusal("find secrets", err)
	}
	return answerOf(l), nil
}

// Scrub is what ScrubSession did.
func (a secretsAPI) Scrub(session string) (jsontext.Value, *protocol.ErrorResult) {
	var id engine.SessionID
	if err := id.UnmarshalText([]byte(session)); err != nil {
		return nil, shareAPI{logf: a.logf}.refusal("scrub", engine.Errorf(engine.CodeInvalidInput, "%q is not a session id (ses_N)", session).With("sessionId", session))
	}
	s, err := ScrubSession(a.uc, a.st, id)
	if err != nil {
		return nil, shareAPI{logf: a.logf}.refusal("scrub", err)
	}
	return answerOf(s), nil
}

// FindSecrets scans every session st holds, oldest first.
func FindSecrets(uc *execute.Service, st *store.Store) (SecretList, error) {
	var ids []engine.SessionID
	err := st.Overviews(0, func(id engine.SessionID, _ project.Overview, _ error) bool {
		ids = append(ids, id)
		return true
	})
	if err != nil {
		return SecretList{}, err
	}
	l := SecretList{Sessions: []SessionSecrets{}, Skipped: []SkippedSession{}}
	for i := len(ids) - 1; i >= 0; i-- {
		fs, err := uc.FindSecrets(ids[i])
		if err != nil {
			l.Skipped = append(l.Skipped, SkippedSession{Session: ids[i], Reason: err.Error()})
			continue
		}
		l.Scanned++
		if len(fs) > 0 {
			l.Sessions = append(l.Sessions, SessionSecrets{Session: ids[i], Findings: fs})
		}
	}
	return l, nil
}

// Scrubbed is what `workrail scrub` did: the replacement, and the
// overwriting of the pages the original's records were in.
type Scrubbed struct {
	execute.Scrubbed
	Wiped *store.Wiped `json:"wiped,omitempty"`
}

// wipeWait bounds how long a scrub waits for the daemon's readers to let
// it overwrite the freed pages.
const wipeWait = 5 * time.Second

// ScrubSession replaces session id by a redacted copy (in one write) and
// then overwrites the file's free pages, where the original's records
// and every older copy of the pages it shared with others are.
func ScrubSession(uc *execute.Service, st *store.Store, id engine.SessionID) (Scrubbed, error) {
	s, err := uc.ScrubSecrets(id)
	out := Scrubbed{Scrubbed: s}
	if err != nil || s.Copy == 0 {
		return out, err
	}
	w, err := st.Wipe(context.Background(), wipeWait)
	out.Wiped = &w
	return out, err
}
