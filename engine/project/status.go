package project

import (
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// RunStatus is the closed set of states a run is in, read at its
// preferred tip.
type RunStatus string

// Run states.
const (
	InProgress RunStatus = "in_progress"
	// Blocked: the last attempt at the tip was blocked by the mode matrix.
	Blocked  RunStatus = "blocked"
	Complete RunStatus = "complete"
)

// RunStatuses lists every run status.
func RunStatuses() []RunStatus { return []RunStatus{InProgress, Blocked, Complete} }

// RunSummary is what every surface shows of one run.
type RunSummary struct {
	Run
	Tip    Node
	Status RunStatus
	// Pending is the step waiting at the tip; empty when complete.
	Pending workflow.StepID
	// Preferences are the effective preferences at the tip.
	Preferences workflow.Preferences
	Nodes       int
	Branches    int // leaves of the run's DAG
	Forks       int // edges made by advancing a node that had children
}

// Summarize projects run r: its preferred tip, status and shape.
func Summarize(g *Graph, r Run) (RunSummary, error) {
	s := RunSummary{Run: r}
	root, err := g.Node(r.Root)
	if err != nil {
		return s, err
	}
	if s.Tip, err = PreferredTip(g, root); err != nil {
		return s, err
	}
	snap, status, pending, err := atTip(g, s.Tip)
	if err != nil {
		return s, err
	}
	s.Preferences, s.Status, s.Pending = snap.Preferences, status, pending
	for _, n := range g.Nodes(r.ID) {
		s.Nodes++
		if len(n.Children) == 0 {
			s.Branches++
		}
		if k, _ := g.Edge(n.ID); k == event.EdgeForkedFromNonTip {
			s.Forks++
		}
	}
	return s, nil
}

// atTip reads a run whose preferred tip is n: complete when n's snapshot
// is, else blocked when the last attempt made at n was, else in progress;
// and the step pending at n (none when complete).
func atTip(r OverviewReader, n Node) (run.Snapshot, RunStatus, workflow.StepID, error) {
	snap, err := r.Snapshot(n.Snapshot)
	switch {
	case err != nil:
		return snap, "", "", err
	case snap.Position.Kind == run.Complete:
		return snap, Complete, "", nil
	case lastAttemptBlocked(r, n):
		return snap, Blocked, snap.Position.Step, nil
	}
	return snap, InProgress, snap.Position.Step, nil
}

func lastAttemptBlocked(r OverviewReader, n Node) bool {
	if n.Attempts == 0 {
		return false
	}
	ev, err := r.RecordedAttempt(n.ID, n.Attempts-1)
	if err != nil {
		return false
	}
	d, ok := ev.Data.(*event.AdvanceRecordedData)
	return ok && d.Outcome == event.OutcomeBlocked
}

// ForkedFrom is the node a fork branched off from: n's parent when the
// edge into n is a fork, else 0.
func (g *Graph) ForkedFrom(n Node) engine.NodeID {
	if k, _ := g.Edge(n.ID); k == event.EdgeForkedFromNonTip {
		return n.Parent
	}
	return 0
}

// ForksOf counts the branches forked off n.
func (g *Graph) ForksOf(n Node) int {
	count := 0
	for _, c := range n.Children {
		if k, _ := g.Edge(c); k == event.EdgeForkedFromNonTip {
			count++
		}
	}
	return count
}

// BlockedAttempt is one ack attempt the mode matrix blocked.
type BlockedAttempt struct {
	Run      engine.RunID
	Node     engine.NodeID
	Attempt  engine.Attempt
	At       engine.EventIndex
	Blockers []event.Blocker
}

// BlockedAttempts lists every blocked attempt of the session, in log order.
func (g *Graph) BlockedAttempts() []BlockedAttempt {
	var out []BlockedAttempt
	for _, e := range g.events {
		if d, ok := e.Data.(*event.AdvanceRecordedData); ok && d.Outcome == event.OutcomeBlocked {
			out = append(out, BlockedAttempt{Run: e.Run, Node: e.Node, Attempt: d.Attempt, At: e.Index, Blockers: d.Blockers})
		}
	}
	return out
}

// Observation is one capability observation and the node it was made at.
type Observation struct {
	Node engine.NodeID
	At   engine.EventIndex
	event.CapabilityObservedData
}

// Observations lists the capability observations recorded on node id
// (0: every node), in log order.
func (g *Graph) Observations(id engine.NodeID) []Observation {
	var out []Observation
	for _, e := range g.events {
		if d, ok := e.Data.(*event.CapabilityObservedData); ok && (id == 0 || e.Node == id) {
			out = append(out, Observation{Node: e.Node, At: e.Index, CapabilityObservedData: *d})
		}
	}
	return out
}

// Created is the session's opening record (zero when the log is empty).
func (g *Graph) Created() event.SessionCreatedData {
	if len(g.events) > 0 {
		if d, ok := g.events[0].Data.(*event.SessionCreatedData); ok {
			return *d
		}
	}
	return event.SessionCreatedData{}
}
