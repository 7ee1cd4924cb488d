package console

import (
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// nodeView is the node detail panel: what waits at the node and
// everything recorded on it.
type nodeView struct {
	Session engine.SessionID
	Node    project.Node
	Pending *compile.Step // nil when the run is complete here
	// Done is the step done into the node: its notes, outputs and gaps
	// are that step's.
	Done       doneStep
	Prefs      workflow.Preferences
	ForkedFrom engine.NodeID
	Forks      int
	Outputs    []output
	Gaps       []project.GapState
	Blocked    []project.BlockedAttempt
	Diverged   []event.DivergenceRecordedData
	Observed   []project.Observation
	Traces     []event.DecisionTraceAppendedData
	// StepNode is, for a checkpoint, the nearest node above it that is a
	// step: where it stands too, and where a fork of its step starts.
	StepNode engine.NodeID
	// Made is who made the node, when, and what a Console fork changed.
	Made provenance
}

// Checkpoint says the node is a checkpoint: notes recorded at its
// parent's step, which the run still waits at.
func (n nodeView) Checkpoint() bool { return n.Node.Kind == event.NodeCheckpoint }

// output is one output recorded on the node, its artifacts laid out,
// with what it replaces and what replaces it.
type output struct {
	event.NodeOutputAppendedData
	Artifacts []artifact
	correction
}

// nodeDetail gathers node id of a folded session; the pinned workflow
// names the step waiting there.
func (c *Console) nodeDetail(g *project.Graph, id engine.NodeID) (nodeView, error) {
	n, err := g.Node(id)
	if err != nil {
		return nodeView{}, err
	}
	snap, err := g.Snapshot(n.Snapshot)
	if err != nil {
		return nodeView{}, err
	}
	v := nodeView{Session: g.Session, Node: n, Prefs: snap.Preferences, ForkedFrom: g.ForkedFrom(n), Forks: g.ForksOf(n), Observed: g.Observations(id)}
	if v.Made, err = provenanceOf(g, n, c.now()); err != nil {
		return v, err
	}
	if v.Checkpoint() {
		if v.StepNode, err = stepNode(g, n); err != nil {
			return v, err
		}
	}
	pin, err := c.pinned(g.Session, snap.WorkflowHash)
	if err != nil {
		return v, err
	}
	if v.Done, err = doneAt(g, pin.Compiled, n); err != nil {
		return v, err
	}
	if snap.Position.Kind == run.Pending {
		v.Pending, _ = pin.Compiled.Step(snap.Position.Step)
	}
	for _, gap := range project.Gaps(g.Events()) {
		if gap.Node == id {
			v.Gaps = append(v.Gaps, gap)
		}
	}
	for _, b := range g.BlockedAttempts() {
		if b.Node == id {
			v.Blocked = append(v.Blocked, b)
		}
	}
	fixes := correctionsOf(g.Events())
	for _, e := range g.Events() {
		if e.Node != id {
			continue
		}
		switch d := e.Data.(type) {
		case *event.NodeOutputAppendedData:
			v.Outputs = append(v.Outputs, output{NodeOutputAppendedData: *d, Artifacts: artifactsOf(d.Artifacts, pin.Compiled.Contracts),
				correction: fixes.of(e.ID, d)})
		case *event.DivergenceRecordedData:
			v.Diverged = append(v.Diverged, *d)
		case *event.DecisionTraceAppendedData:
			v.Traces = append(v.Traces, *d)
		}
	}
	return v, nil
}

// stepNode is the nearest node above checkpoint n that is a step: a
// checkpoint may be taken of another.
func stepNode(g *project.Graph, n project.Node) (engine.NodeID, error) {
	for n.Kind == event.NodeCheckpoint && n.Parent != 0 {
		var err error
		if n, err = g.Node(n.Parent); err != nil {
			return 0, err
		}
	}
	return n.ID, nil
}
