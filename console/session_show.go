package console

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/run"
)

// sessionView is what the session page shows: every run with its status
// at the preferred tip, the notes in log order, and the gaps.
type sessionView struct {
	ID      engine.SessionID
	Health  execute.Health
	Created event.SessionCreatedData
	Runs    []project.RunSummary
	Notes   []note
	Gaps    []project.GapState
}

// note is one output an agent recorded, where it was recorded.
type note struct {
	Run   engine.RunID
	Node  engine.NodeID
	Event engine.EventIndex
	event.NodeOutputAppendedData
}

// sessionShow renders one session.
func (c *Console) sessionShow(w http.ResponseWriter, r *http.Request) {
	var id engine.SessionID
	if id.UnmarshalText([]byte(chi.URLParam(r, "session"))) != nil {
		c.notFound(w, r)
		return
	}
	v, err := c.session(id)
	if errors.Is(err, engine.ErrNotFound) {
		c.notFound(w, r)
		return
	}
	if err != nil {
		c.fail(w, r, "session "+id.String(), err)
		return
	}
	c.render(w, r, http.StatusOK, sessionPage(c.version, v))
}

// session folds a session's log into what its page shows. A damaged
// session shows what could be read up to its last good event.
func (c *Console) session(id engine.SessionID) (sessionView, error) {
	g, h, err := c.fold(id)
	if err != nil {
		return sessionView{}, err
	}
	evs := g.Events()
	v := sessionView{ID: id, Health: h, Created: g.Created(), Gaps: project.Gaps(evs)}
	for _, r := range g.Runs() {
		if r.Root == 0 {
			continue
		}
		sum, err := project.Summarize(g, r)
		if err != nil {
			return v, err
		}
		v.Runs = append(v.Runs, sum)
	}
	for _, e := range evs {
		if d, ok := e.Data.(*event.NodeOutputAppendedData); ok && d.NotesMarkdown != "" {
			v.Notes = append(v.Notes, note{Run: e.Run, Node: e.Node, Event: e.Index, NodeOutputAppendedData: *d})
		}
	}
	return v, nil
}

// snapshots reads node snapshots of session id, each in its own read:
// they are content-addressed and never change.
func (c *Console) snapshots(id engine.SessionID) project.SnapshotFunc {
	return func(ref engine.SnapshotRef) (run.Snapshot, error) {
		var s run.Snapshot
		err := c.store.View(id, func(tx execute.Tx) error {
			var err error
			s, err = tx.Snapshot(ref)
			return err
		})
		return s, err
	}
}

// statusText says a run's status in words; the page pairs it with a
// shape, never colour alone.
func statusText(s project.RunStatus) string {
	switch s {
	case project.Blocked:
		return "■ blocked"
	case project.Complete:
		return "✓ complete"
	}
	return "▶ in progress"
}

func branchText(r project.RunSummary) string {
	if r.Branches <= 1 {
		return "1 branch"
	}
	return strconv.Itoa(r.Branches) + " branches, " + forkCount(r.Forks)
}

// nodeURL opens node n of run r in its run page's side panel.
func nodeURL(s engine.SessionID, r engine.RunID, n engine.NodeID) string {
	return "/sessions/" + s.String() + "/runs/" + r.String() + "?node=" + n.String()
}
