package lanes_test

import (
	"strconv"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/project/projecttest"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// session builds a run by positions: where each node stands, so loops
// show in the snapshots the layout reads.
type session struct{ *projecttest.Log }

func newSession(tb testing.TB) *session { return &session{projecttest.New(tb)} }

var (
	at        = projecttest.At
	iteration = projecttest.Iteration
	done      = projecttest.Done
)

// start starts a run whose root node stands at pos.
func (s *session) start(pos run.Position) (engine.RunID, engine.NodeID) { return s.Start(pos) }

// advance acks the step at from and creates the next node at pos: a
// fork when from already has a child.
func (s *session) advance(r engine.RunID, from engine.NodeID, pos run.Position) engine.NodeID {
	return s.Advance(r, from, engine.Attempt(s.Children(from)), pos)
}

// chain advances n times from from through steps named prefix1, prefix2…
func (s *session) chain(r engine.RunID, from engine.NodeID, n int, prefix string) engine.NodeID {
	for i := 1; i <= n; i++ {
		from = s.advance(r, from, at(i, workflow.StepID(prefix+strconv.Itoa(i))))
	}
	return from
}

func (s *session) graph() *project.Graph { return s.Graph() }
