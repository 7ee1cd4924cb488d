package project_test

import (
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/project/projecttest"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// session names the log-building steps these tests take by step id.
type session struct{ *projecttest.Log }

const sid = projecttest.Session

func newSession(tb testing.TB) *session { return &session{projecttest.New(tb)} }

func (s *session) add(r engine.RunID, n engine.NodeID, p event.Payload) event.Event {
	return s.Add(r, n, p)
}

// pending is the position of a node waiting at step; complete when empty.
func pending(step workflow.StepID) run.Position {
	if step == "" {
		return projecttest.Done
	}
	return projecttest.At(0, step)
}

// run starts a run whose root node waits at step first.
func (s *session) run(first workflow.StepID) (engine.RunID, engine.NodeID) {
	return s.Start(pending(first))
}

// advance records attempt a at node from and creates the next node,
// waiting at step, with notes for step "did-<step>".
func (s *session) advance(r engine.RunID, from engine.NodeID, a engine.Attempt, step workflow.StepID, notes string) engine.NodeID {
	n := s.Advance(r, from, a, pending(step))
	if notes != "" {
		s.Output(r, n, "did-"+step, notes)
	}
	return n
}

func (s *session) block(r engine.RunID, at engine.NodeID, a engine.Attempt) { s.Block(r, at, a) }

func (s *session) graph() *project.Graph { return s.Graph() }

func mustNode(tb testing.TB, r project.Reader, id engine.NodeID) project.Node {
	tb.Helper()
	n, err := r.Node(id)
	if err != nil {
		tb.Fatal(err)
	}
	return n
}
