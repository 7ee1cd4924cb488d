package console

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/workrail/workrail/console/lanes"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// rowView is one row of the run page as a reader sees it: the step that
// was done there (for a node) and what came of it (summed over what a
// folded row holds).
type rowView struct {
	lanes.Row
	Done    doneStep
	Outcome project.Outcome
	// Complete says the run is complete at the row's node: its last step
	// was done there.
	Complete bool
}

// doneStep is the step whose acknowledgement created a node: the step
// pending at its parent. A node's notes, outputs and gaps are that
// step's. The run's first node has none: the run started there.
type doneStep struct {
	ID    workflow.StepID
	Title string
	Start bool
	// During says the node is a checkpoint: notes recorded during the
	// step, which was not done yet.
	During bool
}

// Name is the step as a reader names it: its title, else its id.
func (d doneStep) Name() string {
	switch {
	case d.Start:
		return "run started"
	case d.During:
		return "during " + cmp.Or(d.Title, string(d.ID))
	}
	return cmp.Or(d.Title, string(d.ID))
}

// stepTitle is step id's title in c, else its id.
func stepTitle(c *compile.Compiled, id workflow.StepID) string {
	if c != nil {
		if st, ok := c.Step(id); ok && st.Title != "" {
			return st.Title
		}
	}
	return string(id)
}

// doneAt is the step done into node n: the step pending at its parent
// (at a checkpoint, the step it was taken during, which its parent
// waits at too).
func doneAt(g *project.Graph, c *compile.Compiled, n project.Node) (doneStep, error) {
	if n.Parent == 0 {
		return doneStep{Start: true}, nil
	}
	p, err := g.Node(n.Parent)
	if err != nil {
		return doneStep{}, err
	}
	snap, err := g.Snapshot(p.Snapshot)
	if err != nil {
		return doneStep{}, err
	}
	return doneStep{ID: snap.Position.Step, Title: stepTitle(c, snap.Position.Step), During: n.Kind == event.NodeCheckpoint}, nil
}

// rowOutcome is what a reader reviews on node n's row: the facts its
// step disclosed, and the blocked attempts at that step, which were
// recorded on the parent before the step went through. Attempts blocked
// at a node with no child yet belong to the step still ahead, shown on
// the "next" line at the tip and on the node's own row elsewhere.
func rowOutcome(g *project.Graph, all map[engine.NodeID]project.Outcome, n project.Node, tip engine.NodeID) project.Outcome {
	o := all[n.ID]
	if len(n.Children) > 0 || n.ID == tip {
		o.Blocked = 0
	}
	if n.Parent != 0 {
		if p, err := g.Node(n.Parent); err == nil && len(p.Children) > 0 && p.Children[0] == n.ID {
			o.Blocked += all[p.ID].Blocked
		}
	}
	return o
}

// blockedRow is the node whose row shows the attempts blocked at node
// id (see rowOutcome).
func blockedRow(g *project.Graph, id engine.NodeID) engine.NodeID {
	if n, err := g.Node(id); err == nil && len(n.Children) > 0 {
		return n.Children[0]
	}
	return id
}

// foldNodes are the nodes a folded row stands for: a branch's whole
// subtree for a stub, the path from Last back to Node for a loop fold.
func foldNodes(g *project.Graph, row lanes.Row) []project.Node {
	var out []project.Node
	switch row.Kind {
	case lanes.StubRow:
		stack := []engine.NodeID{row.Node}
		for len(stack) > 0 {
			n, err := g.Node(stack[len(stack)-1])
			stack = stack[:len(stack)-1]
			if err != nil {
				continue
			}
			out = append(out, n)
			stack = append(stack, n.Children...)
		}
	case lanes.LoopRow:
		for id := row.Last; id != 0; {
			n, err := g.Node(id)
			if err != nil {
				break
			}
			out = append(out, n)
			if id == row.Node {
				break
			}
			id = n.Parent
		}
	}
	return out
}

// rowViews gives the rows a page lists their step and outcome.
func rowViews(g *project.Graph, c *compile.Compiled, all map[engine.NodeID]project.Outcome, tip engine.NodeID, rows []lanes.Row) ([]rowView, error) {
	out := make([]rowView, 0, len(rows))
	for _, row := range rows {
		rv := rowView{Row: row}
		if row.Kind != lanes.NodeRow {
			for _, n := range foldNodes(g, row) {
				rv.Outcome = rv.Outcome.Add(rowOutcome(g, all, n, tip))
			}
			out = append(out, rv)
			continue
		}
		n, err := g.Node(row.Node)
		if err != nil {
			return nil, err
		}
		if rv.Done, err = doneAt(g, c, n); err != nil {
			return nil, err
		}
		rv.Outcome = rowOutcome(g, all, n, tip)
		snap, err := g.Snapshot(n.Snapshot)
		if err != nil {
			return nil, err
		}
		rv.Complete = snap.Position.Kind == run.Complete
		out = append(out, rv)
	}
	return out, nil
}

// runOutcome sums the outcome of every node of run id.
func runOutcome(g *project.Graph, all map[engine.NodeID]project.Outcome, id engine.RunID) project.Outcome {
	var o project.Outcome
	for _, n := range g.Nodes(id) {
		o = o.Add(all[n.ID])
	}
	return o
}

// verdict is the run's status with what needs review in it: "✓
// complete · 9 open gaps (8 critical)".
func verdict(s project.RunStatus, o project.Outcome) string {
	if w := outcomeWords(o); w != "" {
		return statusText(s) + " · " + w
	}
	return statusText(s)
}

// outcomeWords is an outcome as the header states it: "9 open gaps (8
// critical)", "2 blocked attempts"; "" when nothing needs review.
func outcomeWords(o project.Outcome) string {
	var parts []string
	if o.OpenGaps > 0 {
		s := count(o.OpenGaps, "open gap", "open gaps")
		if o.Critical > 0 {
			s += " (" + strconv.Itoa(o.Critical) + " critical)"
		}
		parts = append(parts, s)
	}
	if o.Blocked > 0 {
		parts = append(parts, count(o.Blocked, "blocked attempt", "blocked attempts"))
	}
	if o.Divergences > 0 {
		parts = append(parts, count(o.Divergences, "divergence", "divergences"))
	}
	if o.Missing > 0 {
		parts = append(parts, count(o.Missing, "capability missing", "capabilities missing"))
	}
	return strings.Join(parts, ", ")
}

// badge is one outcome on a row: a glyph and words, and the class its
// colour comes from (the words carry the meaning; the colour repeats it).
type badge struct {
	Glyph, Text, Class, Title string
}

// badgesOf are a row's outcomes, worst first.
func badgesOf(o project.Outcome) []badge {
	var bs []badge
	if o.OpenGaps > 0 {
		sev, class := "warning", "out-warning"
		if o.Critical > 0 {
			sev, class = "critical", "out-critical"
		}
		bs = append(bs, badge{"⚠", count(o.OpenGaps, "gap", "gaps") + " · " + sev, class,
			count(o.OpenGaps, "open gap", "open gaps") + ", worst " + sev})
	}
	if o.Blocked > 0 {
		bs = append(bs, badge{"■", "blocked ×" + strconv.Itoa(o.Blocked), "out-blocked", count(o.Blocked, "blocked attempt", "blocked attempts")})
	}
	if o.UserDependencies > 0 {
		bs = append(bs, badge{"☎", "needs the user", "out-warning", count(o.UserDependencies, "open gap waits", "open gaps wait") + " on the user"})
	}
	if o.Divergences > 0 {
		bs = append(bs, badge{"↯", count(o.Divergences, "divergence", "divergences"), "out-warning", "the agent departed from the workflow"})
	}
	if o.Missing > 0 {
		bs = append(bs, badge{"✗", count(o.Missing, "capability missing", "capabilities missing"), "out-warning", "a capability was observed unavailable"})
	}
	if o.Observed > 0 {
		bs = append(bs, badge{"◎", count(o.Observed, "capability observed", "capabilities observed"), "out-info", "capability observations recorded"})
	}
	if o.ResolvedGaps > 0 {
		bs = append(bs, badge{"✓", count(o.ResolvedGaps, "gap resolved", "gaps resolved"), "out-info", ""})
	}
	return bs
}

// progress is where a run stands in its pinned workflow: "step k of N"
// over the top-level steps, and the iteration of each loop it is in.
type progress struct {
	Step, Steps int
	Loops       []run.LoopPlace
	// Ahead are the titles of the steps still to do after the pending
	// one: the rest of the innermost loop's body first, then outwards.
	Ahead []string
}

// progressAt reads a run's progress from the snapshot at its tip.
func progressAt(c *compile.Compiled, snap run.Snapshot) progress {
	if c == nil {
		return progress{}
	}
	p := progress{Steps: len(c.Steps), Step: len(c.Steps)}
	if snap.Position.Kind != run.Pending || len(snap.Position.Path) == 0 {
		return p
	}
	p.Step = snap.Position.Path[0].Index + 1
	if place, ok := run.PendingStep(*c, snap); ok {
		p.Loops = place.Loops
	}
	p.Ahead = ahead(c, snap.Position.Path)
	return p
}

// ahead are the titles of the steps after the one path reaches: the rest
// of the innermost loop's body first, then outwards.
func ahead(c *compile.Compiled, path []run.Frame) []string {
	var out []string
	var levels [][]compile.Node
	list := c.Steps
	for _, f := range path {
		if f.Index >= len(list) {
			break
		}
		levels = append(levels, list[f.Index+1:])
		if list[f.Index].Loop == nil {
			break
		}
		list = list[f.Index].Loop.Body
	}
	for i := len(levels) - 1; i >= 0; i-- {
		for _, n := range levels[i] {
			out = append(out, nodeTitle(n))
		}
	}
	return out
}

// overviewProgress is where a run of a session's overview stands, read
// from its tip's cursor: "step k of N", the iteration of each loop it is
// in ("" for a complete run).
func overviewProgress(c *compile.Compiled, r project.RunOverview) string {
	if c == nil || r.Status == project.Complete || len(r.At) == 0 {
		return ""
	}
	p := progress{Steps: len(c.Steps), Step: r.At[0].Index + 1}
	list := c.Steps
	for d, f := range r.At {
		if f.Index >= len(list) || list[f.Index].Loop == nil || d+1 >= len(r.At) {
			break
		}
		lp := list[f.Index].Loop
		p.Loops = append(p.Loops, run.LoopPlace{LoopID: lp.ID, Title: lp.Title, Iteration: r.At[d+1].Iteration + 1, MaxIterations: lp.Spec.MaxIterations})
		list = lp.Body
	}
	return p.Text()
}

func nodeTitle(n compile.Node) string {
	if n.Loop != nil {
		return cmp.Or(n.Loop.Title, string(n.Loop.ID))
	}
	return cmp.Or(n.Step.Title, string(n.Step.ID))
}

// Text is the progress in words: "step 3 of 7 · iteration 2 of 5".
func (p progress) Text() string {
	if p.Steps == 0 {
		return ""
	}
	s := "step " + strconv.Itoa(p.Step) + " of " + strconv.Itoa(p.Steps)
	for _, l := range p.Loops {
		s += " · " + cmp.Or(l.Title, string(l.LoopID)) + " iteration " + strconv.Itoa(l.Iteration)
		if l.MaxIterations > 0 {
			s += " of " + strconv.Itoa(l.MaxIterations)
		}
	}
	return s
}
