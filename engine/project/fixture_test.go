package project_test

import (
	"encoding/json"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// session builds a session's event log by hand, the way the use cases
// append it, with the snapshots its nodes point at.
type session struct {
	tb    testing.TB
	evs   []event.Event
	snaps map[engine.SnapshotRef]run.Snapshot
	nodes engine.NodeID
	runs  engine.RunID
}

const sid engine.SessionID = 1

func newSession(tb testing.TB) *session {
	s := &session{tb: tb, snaps: map[engine.SnapshotRef]run.Snapshot{}}
	s.add(0, 0, &event.SessionCreatedData{CreatedAt: "2026-01-01T00:00:00Z", WorkspacePath: "/src/app"})
	return s
}

func (s *session) add(r engine.RunID, n engine.NodeID, p event.Payload) event.Event {
	i := engine.EventIndex(len(s.evs) + 1)
	e := event.Event{ID: engine.NewEventID(sid, i), Index: i, Session: sid, Kind: p.Kind(), Run: r, Node: n, Data: p}
	s.evs = append(s.evs, e)
	return e
}

// run starts a run whose root node waits at step first.
func (s *session) run(first workflow.StepID) (engine.RunID, engine.NodeID) {
	s.runs++
	s.add(s.runs, 0, &event.RunStartedData{WorkflowID: "wr.x"})
	return s.runs, s.node(s.runs, 0, "", first)
}

// node creates a node of run r waiting at step (complete when empty)
// under parent (none when 0) by an edge of the given kind.
func (s *session) node(r engine.RunID, parent engine.NodeID, kind event.EdgeKind, step workflow.StepID) engine.NodeID {
	s.nodes++
	ref := engine.SnapshotRef{byte(s.nodes), byte(s.nodes >> 8)}
	snap := run.Snapshot{V: 1, Position: run.Position{Kind: run.Complete}, Preferences: workflow.Preferences{Autonomy: workflow.Guided, RiskPolicy: workflow.Conservative}}
	if step != "" {
		snap.Position = run.Position{Kind: run.Pending, Step: step}
	}
	s.snaps[ref] = snap
	s.add(r, s.nodes, &event.NodeCreatedData{NodeKind: event.NodeStep, Snapshot: ref})
	if parent != 0 {
		s.add(r, s.nodes, &event.EdgeCreatedData{EdgeKind: kind, From: parent, To: s.nodes})
	}
	return s.nodes
}

// advance records attempt a at node from and creates the next node,
// waiting at step, with notes.
func (s *session) advance(r engine.RunID, from engine.NodeID, a engine.Attempt, step workflow.StepID, notes string) engine.NodeID {
	kind := event.EdgeAckedStep
	if g := s.graph(); len(mustNode(s.tb, g, from).Children) > 0 {
		kind = event.EdgeForkedFromNonTip
	}
	s.add(r, from, &event.AdvanceRecordedData{Attempt: a, KeyID: 1, Outcome: event.OutcomeAdvanced, ToNode: s.nodes + 1})
	n := s.node(r, from, kind, step)
	if notes != "" {
		s.add(r, n, &event.NodeOutputAppendedData{StepID: "did-" + step, NotesMarkdown: notes,
			Artifacts: []json.RawMessage{json.RawMessage(`{"kind":"k"}`), json.RawMessage(`[1]`)}})
	}
	return n
}

func (s *session) block(r engine.RunID, at engine.NodeID, a engine.Attempt) {
	s.add(r, at, &event.AdvanceRecordedData{Attempt: a, KeyID: 1, Outcome: event.OutcomeBlocked,
		Blockers: []event.Blocker{{Code: event.BlockUserOnlyDependency, Pointer: event.Pointer{Kind: event.PointWorkflowStep, StepID: "ask"}, Message: "ask the user"}}})
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

func mustNode(tb testing.TB, r project.Reader, id engine.NodeID) project.Node {
	tb.Helper()
	n, err := r.Node(id)
	if err != nil {
		tb.Fatal(err)
	}
	return n
}
