// Package projecttest builds session logs by hand, the way the use cases
// append them, with the snapshots their nodes point at: the fixtures of
// tests of projections and of what draws them.
package projecttest

import (
	"encoding/json"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// Session is the id of every log built here.
const Session engine.SessionID = 1

// Log is one session's log under construction.
type Log struct {
	tb       testing.TB
	Events   []event.Event
	snaps    map[engine.SnapshotRef]run.Snapshot
	children map[engine.NodeID]int
	nodes    engine.NodeID
	runs     engine.RunID
}

// New starts a log with its session_created event.
func New(tb testing.TB) *Log {
	l := &Log{tb: tb, snaps: map[engine.SnapshotRef]run.Snapshot{}, children: map[engine.NodeID]int{}}
	l.Add(0, 0, &event.SessionCreatedData{CreatedAt: "2026-01-01T00:00:00Z", WorkspacePath: "/src/app"})
	return l
}

// TB is the test the log is built for.
func (l *Log) TB() testing.TB { return l.tb }

// Add appends one event scoped to run r and node n.
func (l *Log) Add(r engine.RunID, n engine.NodeID, p event.Payload) event.Event {
	i := engine.EventIndex(len(l.Events) + 1)
	e := event.Event{ID: engine.NewEventID(Session, i), Index: i, Session: Session, Kind: p.Kind(), Run: r, Node: n, Data: p}
	l.Events = append(l.Events, e)
	return e
}

// At is a top-level position: step pending at index i of the step list.
func At(i int, step workflow.StepID) run.Position {
	return run.Position{Kind: run.Pending, Step: step, Path: []run.Frame{{Index: i}}}
}

// Iteration is step, the first of loop i's body, in iteration n (from 0).
func Iteration(i int, step workflow.StepID, n int) run.Position {
	return run.Position{Kind: run.Pending, Step: step, Path: []run.Frame{{Index: i}, {Index: 0, Iteration: n}}}
}

// Done is the position of a complete run.
var Done = run.Position{Kind: run.Complete}

// Start starts a run of wr.x whose root node stands at pos.
func (l *Log) Start(pos run.Position) (engine.RunID, engine.NodeID) {
	return l.StartWorkflow("wr.x", pos)
}

// StartWorkflow starts a run of workflow id whose root node stands at pos.
func (l *Log) StartWorkflow(id engine.WorkflowID, pos run.Position) (engine.RunID, engine.NodeID) {
	l.runs++
	l.Add(l.runs, 0, &event.RunStartedData{WorkflowID: id})
	return l.runs, l.Node(l.runs, 0, "", pos)
}

// Node creates a node of run r at pos under parent (none when 0) by an
// edge of the given kind.
func (l *Log) Node(r engine.RunID, parent engine.NodeID, kind event.EdgeKind, pos run.Position) engine.NodeID {
	l.nodes++
	ref := engine.SnapshotRef{byte(l.nodes), byte(l.nodes >> 8)}
	l.snaps[ref] = run.Snapshot{V: 1, Position: pos, Preferences: workflow.Preferences{Autonomy: workflow.Guided, RiskPolicy: workflow.Conservative}}
	l.Add(r, l.nodes, &event.NodeCreatedData{NodeKind: event.NodeStep, Snapshot: ref})
	if parent != 0 {
		l.Add(r, l.nodes, &event.EdgeCreatedData{EdgeKind: kind, From: parent, To: l.nodes})
	}
	return l.nodes
}

// Advance records attempt a at node from and creates the next node at
// pos: a fork when from already has a child.
func (l *Log) Advance(r engine.RunID, from engine.NodeID, a engine.Attempt, pos run.Position) engine.NodeID {
	kind := event.EdgeAckedStep
	if l.children[from] > 0 {
		kind = event.EdgeForkedFromNonTip
	}
	l.Add(r, from, &event.AdvanceRecordedData{Attempt: a, KeyID: 1, Outcome: event.OutcomeAdvanced, ToNode: l.nodes + 1})
	l.children[from]++
	return l.Node(r, from, kind, pos)
}

// Link puts node to, created without a parent, under node from: a fork
// when from already has a child.
func (l *Log) Link(r engine.RunID, from, to engine.NodeID) {
	kind := event.EdgeAckedStep
	if l.children[from] > 0 {
		kind = event.EdgeForkedFromNonTip
	}
	l.children[from]++
	l.Add(r, to, &event.EdgeCreatedData{EdgeKind: kind, From: from, To: to})
}

// Children is how many children node id has.
func (l *Log) Children(id engine.NodeID) int { return l.children[id] }

// Output records notes (and two artifacts) on node n for step.
func (l *Log) Output(r engine.RunID, n engine.NodeID, step workflow.StepID, notes string) {
	l.Add(r, n, &event.NodeOutputAppendedData{StepID: step, NotesMarkdown: notes,
		Artifacts: []json.RawMessage{json.RawMessage(`{"kind":"k"}`), json.RawMessage(`[1]`)}})
}

// Block records attempt a at node at as blocked on a user-only dependency.
func (l *Log) Block(r engine.RunID, at engine.NodeID, a engine.Attempt) {
	l.Add(r, at, &event.AdvanceRecordedData{Attempt: a, KeyID: 1, Outcome: event.OutcomeBlocked,
		Blockers: []event.Blocker{{Code: event.BlockUserOnlyDependency, Pointer: event.Pointer{Kind: event.PointWorkflowStep, StepID: "ask"}, Message: "ask the user"}}})
}

// Snapshot reads a node snapshot of the log.
func (l *Log) Snapshot(ref engine.SnapshotRef) (run.Snapshot, error) {
	snap, ok := l.snaps[ref]
	if !ok {
		return snap, engine.ErrNotFound
	}
	return snap, nil
}

// Forget drops a snapshot, as a damaged store would have lost it.
func (l *Log) Forget(ref engine.SnapshotRef) { delete(l.snaps, ref) }

// Graph folds the log.
func (l *Log) Graph() *project.Graph {
	l.tb.Helper()
	g, err := project.Fold(Session, l.Events, l.Snapshot)
	if err != nil {
		l.tb.Fatal(err)
	}
	return g
}
