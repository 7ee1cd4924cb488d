package daemon

import (
	"fmt"
	"strings"
	"time"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/project"
)

// SessionList is `workrail sessions --json` and the daemon's GET
// /api/sessions: every session, newest first (by id, never by clock).
type SessionList struct {
	Sessions []SessionEntry `json:"sessions"`
}

// SessionEntry is one session as its stored overview has it: enough to
// find the one to export without reading any log.
type SessionEntry struct {
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

// ListSessions reads every session's stored overview, the most recently
// written first (by the store's write sequence, never by clock).
func ListSessions(st overviews) (SessionList, error) {
	l := SessionList{Sessions: []SessionEntry{}}
	err := st.Recent(0, func(id engine.SessionID, _ execute.Write, o project.Overview, err error) bool {
		l.Sessions = append(l.Sessions, entryOf(id, o, err))
		return true
	})
	return l, err
}

// entryOf is session id as its overview o has it (err: o could not be
// read).
func entryOf(id engine.SessionID, o project.Overview, err error) SessionEntry {
	e := SessionEntry{Session: id, Workflows: []engine.WorkflowID{}}
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

// Activity is the session's last activity in words: when, where
// recorded, and its last event.
func (e SessionEntry) Activity() string {
	s := fmt.Sprintf("event %d, %s", e.LastEvent, strings.ReplaceAll(string(e.LastKind), "_", " "))
	if t, err := time.Parse(time.RFC3339, e.LastTime); err == nil {
		s = t.Format("2006-01-02 15:04 UTC") + ", " + s
	}
	return s
}

// Clip shortens s to at most n runes on one line, marking the cut.
func Clip(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// OrDash is s, or "-" when it is empty.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Plural is n what, in the plural unless n is 1.
func Plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
