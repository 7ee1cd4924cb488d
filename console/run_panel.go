package console

import (
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/workflow"
)

// rowPanel is the side panel of one row: the step pending at its node,
// every attempt made at it with what it recorded or why it was blocked,
// the checkpoints taken while it was pending, the context at the node
// and, on a branch's first row, what differs from the branch it left.
type rowPanel struct {
	Row   project.Row
	Title string
	// Step is the step as the pinned workflow has it (its prompt).
	Step   *compile.Step
	Letter string
	Branch *branchWords // on a branch's first row: how it came to be
	// Attempts are every attempt at the row, in log order.
	Attempts    []attemptView
	Checkpoints []checkpointView
	// Start is what the run's start recorded, on its first row.
	Start []gapView
	// Context is the context at the node, as JSON.
	Context string
	// Diff is, on a branch's first row, what differs between its context
	// and the context where the branch it left went on (DiffWith).
	Diff     []project.ContextChange
	DiffWith engine.NodeID
	Prefs    workflow.Preferences
	// Fork is the node a fork of this row's step makes again (where it
	// went through); 0 while it is pending.
	Fork engine.NodeID
	Now  time.Time
	// Complete says the run completed from this row.
	Complete bool
}

// attemptView is one attempt as the panel shows it.
type attemptView struct {
	project.RowAttempt
	Name     string
	Blockers []event.Blocker
	Outputs  []output
	Gaps     []gapView
	Diverged []event.DivergenceRecordedData
	// Led says, in a sentence, where an advance led: the next step, a
	// branch, or the run's completion.
	Led string
}

// output is one output recorded, its artifacts laid out, and those WorkRail
// refused marked with why.
type output struct {
	event.NodeOutputAppendedData
	Artifacts []artifact
	Refused   map[int]string // artifact index → why it was refused
	// What the output replaces and what replaces it.
	correction
}

// gapView is one gap with its words.
type gapView struct {
	project.GapRef
	Summary, HowToResolve string
	ResolvedBy            engine.EventIndex
}

// checkpointView is one checkpoint: its notes, and when.
type checkpointView struct {
	Node  engine.NodeID
	Notes string
	At    event.Millis
}

// rowPanel reads row's records: the words the projection names by event.
func (c *Console) rowPanel(sid engine.SessionID, p *project.Projection, pin pinned, row project.Row) (rowPanel, error) {
	v := rowPanel{Row: row, Title: stepTitle(pin.Compiled, row.Step), Now: c.now()}
	st, ok, err := pin.Compiled.DecodeStep(row.Step)
	if err != nil {
		return v, err
	}
	if ok {
		v.Step = st
	}
	if len(p.Branches) > 1 {
		v.Letter = p.Branches[row.Branch].Letter
	}
	if row.Starts {
		rv := runView{P: p, Pinned: pin}
		v.Branch = rv.branchWordsOf(row.Branch)
	}
	if next, ok := p.Part(row.Next); ok {
		v.Fork = row.Next
		v.Complete = next.Step == "" && !next.Checkpoint
	}
	fixes := correctionsOf(sid, []*project.Projection{p})
	err = c.store.View(sid, func(tx execute.ReadTx) error {
		for _, a := range row.Attempts {
			av, err := attemptOf(tx, p, pin, row, a, fixes)
			if err != nil {
				return err
			}
			v.Attempts = append(v.Attempts, av)
		}
		for _, id := range row.Checkpoints {
			cp, err := checkpointOf(tx, p, id)
			if err != nil {
				return err
			}
			v.Checkpoints = append(v.Checkpoints, cp)
		}
		for _, g := range p.StartAt(row.Node).Gaps {
			gv, err := gapOf(tx, g)
			if err != nil {
				return err
			}
			v.Start = append(v.Start, gv)
		}
		return c.contextOf(tx, sid, p, row, &v)
	})
	return v, err
}

// contextOf reads the context at the row's node and, on a branch's
// first row, what differs from where the branch it left went on.
func (c *Console) contextOf(tx execute.ReadTx, sid engine.SessionID, p *project.Projection, row project.Row, v *rowPanel) error {
	snaps := c.cachedSnapshots(sid)
	node, err := tx.Node(row.Node)
	if err != nil {
		return err
	}
	snap, err := snaps(node.Snapshot)
	if err != nil {
		return err
	}
	v.Context, v.Prefs = contextText(snap.Context), snap.Preferences
	if v.Branch == nil || row.Parent == 0 {
		return nil
	}
	left, ok := p.Row(row.Parent)
	if !ok || left.Next == 0 || left.Next == row.Node {
		return nil
	}
	other, err := tx.Node(left.Next)
	if err != nil {
		return err
	}
	was, err := snaps(other.Snapshot)
	if err != nil {
		return err
	}
	v.Diff, v.DiffWith = project.DiffContext(was.Context, snap.Context), left.Next
	return nil
}

func attemptOf(tx execute.ReadTx, p *project.Projection, pin pinned, row project.Row, a project.RowAttempt, fixes corrections) (attemptView, error) {
	av := attemptView{RowAttempt: a, Name: attemptName(a.Attempt.Attempt)}
	rec, err := tx.Event(a.At)
	if err != nil {
		return av, err
	}
	if d, ok := rec.Data.(*event.AdvanceRecordedData); ok {
		av.Blockers = d.Blockers
	}
	for _, o := range a.Recorded.Outputs {
		ev, err := tx.Event(o.At)
		if err != nil {
			return av, err
		}
		d, ok := ev.Data.(*event.NodeOutputAppendedData)
		if !ok {
			continue
		}
		contracts, err := pin.Compiled.DecodeContracts()
		if err != nil {
			return av, err
		}
		out := output{NodeOutputAppendedData: *d, Artifacts: artifactsOf(d.Artifacts, contracts), Refused: map[int]string{},
			correction: fixes.of(ev.ID, d.Supersedes)}
		for i, art := range out.Artifacts {
			for k, r := range av.Refused {
				if r.Code == event.NoticeArtifactInvalid && strings.Contains(r.Why, " "+art.Kind+" artifact") {
					out.Refused[i] = r.Why
					av.Refused = slices.Delete(slices.Clone(av.Refused), k, k+1) // said at the artifact
					break
				}
			}
		}
		av.Outputs = append(av.Outputs, out)
	}
	for _, g := range a.Recorded.Gaps {
		gv, err := gapOf(tx, g)
		if err != nil {
			return av, err
		}
		av.Gaps = append(av.Gaps, gv)
	}
	for _, at := range a.Recorded.Divergences {
		ev, err := tx.Event(at)
		if err != nil {
			return av, err
		}
		if d, ok := ev.Data.(*event.DivergenceRecordedData); ok {
			av.Diverged = append(av.Diverged, *d)
		}
	}
	if !a.Blocked {
		av.Led = ledTo(p, pin, row, a.To)
	}
	return av, nil
}

// ledTo says where an advance from row led.
func ledTo(p *project.Projection, pin pinned, row project.Row, to engine.NodeID) string {
	part, ok := p.Part(to)
	switch {
	case !ok:
		return ""
	case part.Step == "" && to == row.Next:
		return "The run completed."
	case part.Step == "":
		return "Went on to branch " + p.Branches[part.Branch].Letter + ", where the run completed."
	case to == row.Next:
		return "Went on to the next step, “" + stepTitle(pin.Compiled, part.Step) + "”."
	}
	return "Went on to branch " + p.Branches[part.Branch].Letter + " at “" + stepTitle(pin.Compiled, part.Step) + "”."
}

func gapOf(tx execute.ReadTx, g project.GapRef) (gapView, error) {
	gv := gapView{GapRef: g}
	ev, err := tx.Event(g.At)
	if err != nil {
		return gv, err
	}
	if d, ok := ev.Data.(*event.GapRecordedData); ok {
		gv.Summary, gv.HowToResolve = clip(d.Summary, maxShownSummary), clip(d.HowToResolve, maxShownSummary)
	}
	return gv, nil
}

func checkpointOf(tx execute.ReadTx, p *project.Projection, id engine.NodeID) (checkpointView, error) {
	cp := checkpointView{Node: id}
	part, ok := p.Part(id)
	if !ok {
		return cp, engine.ErrNotFound
	}
	cp.At = part.CreatedTime
	for _, o := range part.Arrival.Outputs {
		ev, err := tx.Event(o.At)
		if err != nil {
			return cp, err
		}
		if d, ok := ev.Data.(*event.NodeOutputAppendedData); ok {
			cp.Notes = d.NotesMarkdown
		}
	}
	return cp, nil
}

// panelLists pages the open row's attempts (?attempts=).
func (c *Console) panelLists(v *runView, q runRequest, size int) error {
	kept := url.Values{}
	for k, val := range map[string]string{"filter": string(v.Filter), "expand": v.Expand, "node": v.Panel.Row.Node.String()} {
		if val != "" && !(k == "filter" && val == string(filterAll)) {
			kept.Set(k, val)
		}
	}
	if v.RowsAt.First > 0 {
		kept.Set("rows", strconv.Itoa(v.RowsAt.First))
	}
	l := &v.PanelLists
	l.query = url.Values{}
	if q.panel.Has("attempts") {
		l.query.Set("attempts", q.panel.Get("attempts"))
		kept.Set("attempts", q.panel.Get("attempts"))
	}
	l.Attempts, l.AttemptsAt = pageOf(v.Panel.Attempts, runURL(v.Session, v.P.Run), kept, "attempts", "attempt", "attempts", size)
	return nil
}

// diffValue is a context value as the panel shows it.
func diffValue(v any, absent bool) string {
	if absent {
		return "(not set)"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "?"
	}
	return clip(string(b), maxShownSummary)
}

// notRecordedText says a gap a refused output carried: sent, tracked
// nowhere.
func notRecordedText(g project.CarriedGap) string {
	s := "The agent reported a gap"
	if g.Severity != "" {
		s += " (sent as " + g.Severity + ")"
	}
	return s + ": “" + g.Summary + "” Its output was refused, so WorkRail tracks it nowhere."
}

func firstLed(n rowPanel) string {
	for _, a := range n.Attempts {
		if !a.Blocked && a.To == n.Row.Next {
			return a.Led
		}
	}
	return ""
}

func attemptOutcome(a attemptView) string {
	if a.Blocked {
		return "blocked"
	}
	return "advanced"
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
