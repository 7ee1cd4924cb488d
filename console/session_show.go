package console

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workrail/workrail/console/markdown"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/run"
)

// sessionView is what the session page shows: every run with its status
// at the preferred tip in a sidebar, the one active run, the notes in log
// order, the timeline with a lane per run, and the gaps.
type sessionView struct {
	ID      engine.SessionID
	Health  execute.Health
	Created event.SessionCreatedData
	// Title is the session's title as plain words, or "" when nothing
	// named it.
	Title  string
	Runs   []sessionRun
	Active *sessionRun // nil when no run could be read
	Chosen bool        // the reader picked Active (?run=); else it follows the latest activity
	Notes  []note
	Gaps   []project.GapState
	// GapTimes is when each gap was recorded, by its event index (absent
	// where the log recorded no time).
	GapTimes map[engine.EventIndex]event.Millis
	Timeline []stretch
	// Each list is shown a page at a time: the stretch the URL asks for
	// (?runs=, ?timeline=, ?notes=, ?gaps=: the first shown).
	Shown shownLists
	// LastTime is when its latest event that recorded a time was
	// appended; Now is what the page's times are relative to.
	LastTime event.Millis
	Now      time.Time
}

// shownLists are the pages of a session's lists the page shows.
type shownLists struct {
	Runs                                []sessionRun
	Timeline                            []stretch
	Notes                               []note
	Gaps                                []project.GapState
	RunsAt, TimelineAt, NotesAt, GapsAt pager
	query                               url.Values // the paging keys of the page's URL
}

// pageLists picks the page of each list that q asks for.
func (v *sessionView) pageLists(q url.Values, size int) {
	path := "/sessions/" + v.ID.String()
	kept := url.Values{}
	for _, k := range []string{"run", "runs", "timeline", "notes", "gaps"} {
		if q.Has(k) {
			kept.Set(k, q.Get(k))
		}
	}
	s := &v.Shown
	s.query = kept
	s.Runs, s.RunsAt = pageOf(v.Runs, path, kept, "runs", "run", "runs", size)
	s.Timeline, s.TimelineAt = pageOf(v.Timeline, path, kept, "timeline", "stretch", "stretches", size)
	s.Notes, s.NotesAt = pageOf(v.Notes, path, kept, "notes", "note", "notes", size)
	s.Gaps, s.GapsAt = pageOf(v.Gaps, path, kept, "gaps", "gap", "gaps", size)
}

// sessionRun is one run as the session page shows it.
type sessionRun struct {
	project.RunSummary
	Pinned pinned
	Lane   int
	// Activity is the run's latest event: the active run by default is
	// the one the agent touched last.
	Activity engine.EventIndex
	Drift    *catalog.Drift
}

// note is one output an agent recorded, where it was recorded.
type note struct {
	Run   engine.RunID
	Node  engine.NodeID
	Event engine.EventIndex
	event.NodeOutputAppendedData
	Checkpoint bool // recorded by a checkpoint, between steps
	// Branch is the first node of the branch the note is on; ForkedAt
	// the node that branch left (0 on the run's main line).
	Branch, ForkedAt engine.NodeID
	// StepTitle is the title of the step the notes are of, in the run's
	// pinned workflow (its id when it has none).
	StepTitle string
	// At is when the notes were recorded (zero when not recorded).
	At event.Millis
	// What the output replaces and what replaces it.
	correction
}

// sessionShow renders one session; ?run= picks the active run.
func (c *Console) sessionShow(w http.ResponseWriter, r *http.Request) {
	var id engine.SessionID
	if id.UnmarshalText([]byte(chi.URLParam(r, "session"))) != nil {
		c.notFound(w, r)
		return
	}
	var active engine.RunID
	if a := r.URL.Query().Get("run"); a != "" && active.UnmarshalText([]byte(a)) != nil {
		c.notFound(w, r)
		return
	}
	v, err := c.session(id, active)
	if errors.Is(err, engine.ErrNotFound) {
		c.notFound(w, r)
		return
	}
	if err != nil {
		c.fail(w, r, "session "+id.String(), err)
		return
	}
	v.pageLists(r.URL.Query(), c.settings().PageSize)
	c.render(w, r, http.StatusOK, sessionPage(c.chrome(v.Heading()), v))
}

// session folds a session's log into what its page shows. A damaged
// session shows what could be read up to its last good event. A run named
// by active that the session does not have is not found.
func (c *Console) session(id engine.SessionID, active engine.RunID) (sessionView, error) {
	g, h, err := c.fold(id)
	if err != nil {
		return sessionView{}, err
	}
	evs := g.Events()
	v := sessionView{ID: id, Health: h, Created: g.Created(), Gaps: project.Gaps(evs), LastTime: lastTime(evs), Now: c.now()}
	// A session without an overview (its log did not verify at an
	// upgrade) is shown by its id.
	if o, err := c.store.Overview(id); err == nil {
		v.Title = markdown.Plain(o.Title)
	}
	for i, r := range g.Runs() {
		if r.Root == 0 {
			continue
		}
		sum, err := project.Summarize(g, r)
		if err != nil {
			return v, err
		}
		p, err := c.pinned(id, r.WorkflowHash)
		if err != nil {
			return v, err
		}
		sr := sessionRun{RunSummary: sum, Pinned: p, Lane: min(i+1, maxLanes), Drift: c.drift(v.Created.WorkspacePath, r.WorkflowID, r.WorkflowHash)}
		for _, n := range g.Nodes(r.ID) {
			sr.Activity = max(sr.Activity, n.LastActivity)
		}
		v.Runs = append(v.Runs, sr)
	}
	v.Chosen = active != 0
	if v.Active, err = pickRun(v.Runs, active); err != nil {
		return v, err
	}
	pins := map[engine.RunID]*compile.Compiled{}
	for _, r := range v.Runs {
		pins[r.ID] = r.Pinned.Compiled
	}
	v.GapTimes = map[engine.EventIndex]event.Millis{}
	for _, gap := range v.Gaps {
		if e, err := g.Event(gap.CreatedAt); err == nil && e.AppendedAt != 0 {
			v.GapTimes[gap.CreatedAt] = e.AppendedAt
		}
	}
	on := branches{g: g, start: map[engine.NodeID]engine.NodeID{}}
	fixes := correctionsOf(evs)
	for _, e := range evs {
		if d, ok := e.Data.(*event.NodeOutputAppendedData); ok && d.NotesMarkdown != "" {
			n, err := g.Node(e.Node)
			if err != nil {
				return v, err
			}
			start, forkedAt, err := on.of(n)
			if err != nil {
				return v, err
			}
			v.Notes = append(v.Notes, note{Run: e.Run, Node: e.Node, Event: e.Index, NodeOutputAppendedData: *d,
				Checkpoint: n.Kind == event.NodeCheckpoint, Branch: start, ForkedAt: forkedAt, StepTitle: stepTitle(pins[e.Run], d.StepID), At: e.AppendedAt,
				correction: fixes.of(e.ID, d)})
		}
	}
	v.Timeline, err = c.timelineOf(id, g)
	return v, err
}

// Heading is what the session page is titled: the session's title, else
// its id.
func (v sessionView) Heading() string {
	if v.Title != "" {
		return v.Title
	}
	return "Session " + v.ID.String()
}

// pickRun is the run named, or by default the one with the latest
// activity (ties: the later run).
func pickRun(runs []sessionRun, id engine.RunID) (*sessionRun, error) {
	var pick *sessionRun
	for i := range runs {
		r := &runs[i]
		if id != 0 && r.ID == id {
			return r, nil
		}
		if pick == nil || r.Activity >= pick.Activity {
			pick = r
		}
	}
	if id != 0 {
		return nil, fmt.Errorf("console: run %s: %w", id, engine.ErrNotFound)
	}
	return pick, nil
}

// runNotes are the notes recorded in run id.
func (v sessionView) runNotes(id engine.RunID) []note {
	var out []note
	for _, n := range v.Notes {
		if n.Run == id {
			out = append(out, n)
		}
	}
	return out
}

// snapshots reads node snapshots of session id, each in its own read:
// they are content-addressed and never change.
func (c *Console) snapshots(id engine.SessionID) project.SnapshotFunc {
	return func(ref engine.SnapshotRef) (run.Snapshot, error) {
		var s run.Snapshot
		err := c.store.View(id, func(tx execute.ReadTx) error {
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
	return runURL(s, r) + "?node=" + n.String()
}

// runURL is run r's page.
func runURL(s engine.SessionID, r engine.RunID) string {
	return "/sessions/" + s.String() + "/runs/" + r.String()
}

// runSelectURL is the session page with run r active.
func runSelectURL(s engine.SessionID, r engine.RunID) string {
	return "/sessions/" + s.String() + "?run=" + r.String()
}

// sessionURL is where the session page's live panel fetches itself: the
// run the reader chose and the page of each list it shows.
func sessionURL(v sessionView) string {
	q := url.Values{}
	for k, val := range v.Shown.query {
		q[k] = val
	}
	q.Del("run")
	if v.Chosen {
		q.Set("run", v.Active.ID.String())
	}
	if len(q) == 0 {
		return "/sessions/" + v.ID.String()
	}
	return "/sessions/" + v.ID.String() + "?" + q.Encode()
}

// sessionAnnounce sums the session up for the live region.
func sessionAnnounce(v sessionView) string {
	if v.Active == nil {
		return ""
	}
	s := v.Active.ID.String() + " " + statusText(v.Active.Status)
	if v.Active.Pending != "" {
		s += " at " + string(v.Active.Pending)
	}
	return s
}

// lastTime is when the latest of evs that recorded a time was appended.
func lastTime(evs []event.Event) event.Millis {
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].AppendedAt != 0 {
			return evs[i].AppendedAt
		}
	}
	return 0
}

// gapStep is the title of the step gap g was recorded at, in its run's
// pinned workflow; "" when the gap names no step.
func (v sessionView) gapStep(g project.GapState) string {
	if g.Gap.RelatedStepID == "" {
		return ""
	}
	for _, r := range v.Runs {
		if r.ID == g.Run {
			return stepTitle(r.Pinned.Compiled, g.Gap.RelatedStepID)
		}
	}
	return string(g.Gap.RelatedStepID)
}
