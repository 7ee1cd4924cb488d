package console

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workrail/workrail/console/markdown"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// sessionView is what the session page shows, read from its runs'
// projections: every run with its verdict at the preferred tip in a
// sidebar, the one active run, the notes by run and branch, the timeline
// with a lane per run, and the gaps.
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
	Gaps   []sessionGap
	// Timeline is the session's stretches of one run each, in log order.
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
	Gaps                                []sessionGap
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

// sessionRun is one run as the session page shows it: its projection.
type sessionRun struct {
	P      *project.Projection
	ID     engine.RunID
	Pinned pinned
	Lane   int
	Drift  *catalog.Drift
	// Prefs are the preferences at the run's tip.
	Prefs workflow.Preferences
	// Repo is the repository and commit the run's version was read from
	// (zero when no repository defined it).
	Repo event.RepoPin
}

// Next is the title of the step pending at the run's tip ("" when
// complete).
func (r sessionRun) Next() string {
	tip, _ := r.P.Part(r.P.Tip)
	if tip.Step == "" {
		return ""
	}
	return stepTitle(r.Pinned.Compiled, tip.Step)
}

// Summary says a run in words: its steps done, its branches.
func (r sessionRun) Summary() string {
	s := r.ID.String() + " · " + stepsDoneText(r.P.StepsDone())
	if n := len(r.P.Branches); n > 1 {
		s += " · " + branchCount(n)
	}
	return s
}

// note is one output an agent recorded with notes, where it was
// recorded.
type note struct {
	Run   engine.RunID
	Node  engine.NodeID
	Row   engine.NodeID // the row whose step it is of
	Event engine.EventIndex
	event.NodeOutputAppendedData
	Checkpoint bool // recorded by a checkpoint, while the step was pending
	// Branch is the index of the branch its node is on, Letter its
	// letter when the run has several.
	Branch int
	Letter string
	// StepTitle is the title of the step the notes are of, in the run's
	// pinned workflow (its id when it has none).
	StepTitle string
	// At is when the notes were recorded (zero when not recorded).
	At event.Millis
	// What the output replaces and what replaces it.
	correction
}

// sessionGap is one gap of the session with its words.
type sessionGap struct {
	Run engine.RunID
	project.GapAt
	Summary, HowToResolve string
	StepTitle             string
	At                    event.Millis
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
	if err == nil {
		v.pageLists(r.URL.Query(), c.settings().PageSize)
		err = c.readShown(&v)
	}
	if errors.Is(err, engine.ErrNotFound) {
		c.notFound(w, r)
		return
	}
	if err != nil {
		c.fail(w, r, "session "+id.String(), err)
		return
	}
	c.render(w, r, http.StatusOK, sessionPage(c.chrome(v.Heading()), v))
}

// session reads what the session page shows from the session's
// projections. A damaged session shows what could be read up to its
// last good event. A run named by active that the session does not have
// is not found.
func (c *Console) session(id engine.SessionID, active engine.RunID) (sessionView, error) {
	h, err := c.store.Health(id) // the session page says whether the log verifies
	if err != nil {
		return sessionView{}, err
	}
	runs, _, _, err := c.projections(id, 0)
	if err != nil {
		return sessionView{}, err
	}
	v := sessionView{ID: id, Health: h, Now: c.now()}
	// A session without an overview (its log did not verify at an
	// upgrade) is shown by its id.
	if o, err := c.store.Overview(id); err == nil {
		v.Title, v.LastTime = markdown.Plain(o.Title), o.LastTime
		v.Created = event.SessionCreatedData{CreatedAt: o.CreatedAt, WorkspacePath: o.Workspace}
	}
	for i, p := range runs {
		if p.Root == 0 {
			continue
		}
		pin, err := c.pinned(id, p.WorkflowHash)
		if err != nil {
			return v, err
		}
		prefs, err := c.prefsAt(id, p.Tip)
		if err != nil {
			return v, err
		}
		repo, err := c.repoOf(id, p)
		if err != nil {
			return v, err
		}
		v.Runs = append(v.Runs, sessionRun{P: p, ID: p.Run, Pinned: pin, Lane: min(i+1, maxLanes), Prefs: prefs, Repo: repo,
			Drift: c.drift(v.Created.WorkspacePath, p.WorkflowID, p.WorkflowHash)})
	}
	v.Chosen = active != 0
	if v.Active, err = pickRun(v.Runs, active); err != nil {
		return v, err
	}
	v.Notes, v.Gaps = notesOf(id, v.Runs), gapsOf(v.Runs)
	v.Timeline = timeline(v.Runs)
	return v, nil
}

// notesOf lists the notes of every run, in log order: what its rows'
// attempts recorded, and its checkpoints', each with what it replaces
// and what replaced it.
func notesOf(sid engine.SessionID, runs []sessionRun) []note {
	ps := make([]*project.Projection, len(runs))
	for i, r := range runs {
		ps[i] = r.P
	}
	fixes := correctionsOf(sid, ps)
	var out []note
	for _, r := range runs {
		add := func(row project.Row, node engine.NodeID, f project.Facts, at event.Millis, checkpoint bool) {
			for _, o := range f.Outputs {
				if o.Notes {
					b := r.P.BranchOf(node)
					out = append(out, note{Run: r.ID, Node: node, Row: row.Node, Event: o.At, Checkpoint: checkpoint, Branch: b,
						Letter: (runView{P: r.P}).letter(b), StepTitle: stepTitle(r.Pinned.Compiled, o.Step), At: at,
						correction: fixes.of(engine.NewEventID(sid, o.At), o.Supersedes)})
				}
			}
		}
		for _, row := range r.P.Rows {
			for _, a := range row.Attempts {
				node := a.To
				if a.Blocked {
					node = a.Node
				}
				add(row, node, *a.Recorded, a.Time, false)
			}
			for _, cp := range row.Checkpoints {
				part, _ := r.P.Part(cp)
				add(row, cp, part.Arrival, part.CreatedTime, true)
			}
		}
	}
	slices.SortFunc(out, func(a, b note) int { return cmp.Compare(a.Event, b.Event) })
	return out
}

// gapsOf lists the gaps of every run, in log order.
func gapsOf(runs []sessionRun) []sessionGap {
	var out []sessionGap
	for _, r := range runs {
		for _, g := range r.P.Gaps() {
			out = append(out, sessionGap{Run: r.ID, GapAt: g, StepTitle: stepTitle(r.Pinned.Compiled, g.Step)})
		}
	}
	slices.SortFunc(out, func(a, b sessionGap) int { return cmp.Compare(a.At, b.At) })
	return out
}

// readShown reads the words of the notes and gaps the page shows.
func (c *Console) readShown(v *sessionView) error {
	if v.Active != nil {
		for i := range v.Notes {
			if v.Notes[i].Run == v.Active.ID {
				if err := c.readNote(v.ID, &v.Notes[i]); err != nil {
					return err
				}
			}
		}
	}
	for i := range v.Shown.Notes {
		if err := c.readNote(v.ID, &v.Shown.Notes[i]); err != nil {
			return err
		}
	}
	return c.store.View(v.ID, func(tx execute.ReadTx) error {
		for i := range v.Shown.Gaps {
			g := &v.Shown.Gaps[i]
			ev, err := tx.Event(g.GapAt.At)
			if err != nil {
				return err
			}
			if d, ok := ev.Data.(*event.GapRecordedData); ok {
				g.Summary, g.HowToResolve, g.At = d.Summary, d.HowToResolve, ev.AppendedAt
			}
		}
		return nil
	})
}

func (c *Console) readNote(sid engine.SessionID, n *note) error {
	if n.NotesMarkdown != "" {
		return nil
	}
	return c.store.View(sid, func(tx execute.ReadTx) error {
		ev, err := tx.Event(n.Event)
		if err != nil {
			return err
		}
		if d, ok := ev.Data.(*event.NodeOutputAppendedData); ok {
			n.NodeOutputAppendedData = *d
			n.At = cmp.Or(ev.AppendedAt, n.At)
		}
		return nil
	})
}

// Heading is what the session page is titled: the session's title, else
// its id.
func (v sessionView) Heading() string {
	if v.Title != "" {
		return v.Title
	}
	return "Session " + v.ID.String()
}

// pickRun is the run named, or by default the one touched last (ties:
// the later run).
func pickRun(runs []sessionRun, id engine.RunID) (*sessionRun, error) {
	var pick *sessionRun
	for i := range runs {
		r := &runs[i]
		if id != 0 && r.ID == id {
			return r, nil
		}
		if pick == nil || lastActivity(r.P) >= lastActivity(pick.P) {
			pick = r
		}
	}
	if id != 0 {
		return nil, fmt.Errorf("console: run %s: %w", id, engine.ErrNotFound)
	}
	return pick, nil
}

// lastActivity is the index of the latest record of a run the
// projection holds.
func lastActivity(p *project.Projection) engine.EventIndex {
	var last engine.EventIndex
	for _, r := range p.Rows {
		last = max(last, r.Created)
		for _, a := range r.Attempts {
			last = max(last, a.At)
		}
	}
	if pt, ok := p.Part(p.Tip); ok {
		last = max(last, pt.Created)
	}
	return last
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

// nodeURL opens node n's row of run r in its run page's side panel.
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
	s := v.Active.ID.String() + " " + verdictText(v.Active.P.Verdict())
	if t := v.Active.Next(); t != "" {
		s += " at " + t
	}
	return s
}

// supersededBy is the latest run of the session that starts run over
// ("Restart on the current version"), 0 when none does.
func (v sessionView) supersededBy(run engine.RunID) engine.RunID {
	var by engine.RunID
	for _, r := range v.Runs {
		if r.P.RestartOf == run {
			by = max(by, r.ID)
		}
	}
	return by
}

// repoOf is the repository and commit run p's version was read from, as
// its run_started recorded (zero when no repository defined it).
func (c *Console) repoOf(sid engine.SessionID, p *project.Projection) (event.RepoPin, error) {
	var repo event.RepoPin
	err := c.store.View(sid, func(tx execute.ReadTx) error {
		e, err := tx.Event(p.StartedAt)
		if err != nil {
			return err
		}
		if d, ok := e.Data.(*event.RunStartedData); ok {
			repo = d.Repo
		}
		return nil
	})
	return repo, err
}
