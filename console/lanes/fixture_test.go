package lanes_test

import (
	"strconv"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// session builds a session's event log by hand, the way the use cases
// append it, with the snapshots its nodes point at (after
// engine/project's fixture_test.go; it counts children itself instead of
// refolding the log on every advance, so a 1,000-node run builds fast).
type session struct {
	tb       testing.TB
	evs      []event.Event
	snaps    map[engine.SnapshotRef]run.Snapshot
	children map[engine.NodeID]int
	nodes    engine.NodeID
	runs     engine.RunID
}

const sid engine.SessionID = 1

func newSession(tb testing.TB) *session {
	s := &session{tb: tb, snaps: map[engine.SnapshotRef]run.Snapshot{}, children: map[engine.NodeID]int{}}
	s.add(0, 0, &event.SessionCreatedData{CreatedAt: "2026-01-01T00:00:00Z", WorkspacePath: "/src/app"})
	return s
}

func (s *session) add(r engine.RunID, n engine.NodeID, p event.Payload) {
	i := engine.EventIndex(len(s.evs) + 1)
	s.evs = append(s.evs, event.Event{ID: engine.NewEventID(sid, i), Index: i, Session: sid, Kind: p.Kind(), Run: r, Node: n, Data: p})
}

// at is a top-level position: step pending at index i of the step list.
func at(i int, step workflow.StepID) run.Position {
	return run.Position{Kind: run.Pending, Step: step, Path: []run.Frame{{Index: i}}}
}

// iteration is step, the first of loop i's body, in iteration n (from 0).
func iteration(i int, step workflow.StepID, n int) run.Position {
	return run.Position{Kind: run.Pending, Step: step, Path: []run.Frame{{Index: i}, {Index: 0, Iteration: n}}}
}

var done = run.Position{Kind: run.Complete}

// start starts a run whose root node stands at pos.
func (s *session) start(pos run.Position) (engine.RunID, engine.NodeID) {
	s.runs++
	s.add(s.runs, 0, &event.RunStartedData{WorkflowID: "wr.x"})
	return s.runs, s.node(s.runs, 0, "", pos)
}

// node creates a node of run r at pos under parent (none when 0).
func (s *session) node(r engine.RunID, parent engine.NodeID, kind event.EdgeKind, pos run.Position) engine.NodeID {
	s.nodes++
	ref := engine.SnapshotRef{byte(s.nodes), byte(s.nodes >> 8)}
	s.snaps[ref] = run.Snapshot{V: 1, Position: pos, Preferences: workflow.Preferences{Autonomy: workflow.Guided, RiskPolicy: workflow.Conservative}}
	s.add(r, s.nodes, &event.NodeCreatedData{NodeKind: event.NodeStep, Snapshot: ref})
	if parent != 0 {
		s.add(r, s.nodes, &event.EdgeCreatedData{EdgeKind: kind, From: parent, To: s.nodes})
	}
	return s.nodes
}

// advance acks the step at from and creates the next node at pos: a
// fork when from already has a child.
func (s *session) advance(r engine.RunID, from engine.NodeID, pos run.Position) engine.NodeID {
	kind := event.EdgeAckedStep
	if s.children[from] > 0 {
		kind = event.EdgeForkedFromNonTip
	}
	s.add(r, from, &event.AdvanceRecordedData{Attempt: engine.Attempt(s.children[from]), KeyID: 1,
		Outcome: event.OutcomeAdvanced, ToNode: s.nodes + 1})
	s.children[from]++
	return s.node(r, from, kind, pos)
}

// chain advances n times from from through steps named prefix1, prefix2…
func (s *session) chain(r engine.RunID, from engine.NodeID, n int, prefix string) engine.NodeID {
	for i := 1; i <= n; i++ {
		from = s.advance(r, from, at(i, workflow.StepID(prefix+strconv.Itoa(i))))
	}
	return from
}

func (s *session) snapshot(ref engine.SnapshotRef) (run.Snapshot, error) {
	snap, ok := s.snaps[ref]
	if !ok {
		return snap, engine.ErrNotFound
	}
	return snap, nil
}

func (s *session) graph() *project.Graph {
	s.tb.Helper()
	g, err := project.Fold(sid, s.evs, s.snapshot)
	if err != nil {
		s.tb.Fatal(err)
	}
	return g
}
