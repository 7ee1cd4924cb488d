package lanes_test

import (
	"slices"
	"strconv"
	"testing"

	"github.com/workrail/workrail/engine"
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

// frame is one level of a cursor: index i of its step list, in iteration
// n (from 0) of the loop around that list.
func frame(i, n int) run.Frame { return run.Frame{Index: i, Iteration: n} }

// inside is step pending at the cursor path.
func inside(step workflow.StepID, path ...run.Frame) run.Position {
	return run.Position{Kind: run.Pending, Step: step, Path: path}
}

// iterate runs iterations first..end-1 of a loop whose body is steps,
// from node from: outer is the cursor down to the loop ({Index: 1} for
// the second top-level step). It returns the last node and each
// iteration's first.
func (s *session) iterate(r engine.RunID, from engine.NodeID, outer []run.Frame, steps []workflow.StepID, first, end int) (engine.NodeID, []engine.NodeID) {
	var starts []engine.NodeID
	for n := first; n < end; n++ {
		for j, step := range steps {
			from = s.advance(r, from, inside(step, append(slices.Clone(outer), frame(j, n))...))
			if j == 0 {
				starts = append(starts, from)
			}
		}
	}
	return from, starts
}

var (
	topLoop = []run.Frame{{Index: 1}}
	pet     = []workflow.StepID{"plan", "edit", "test"}
)
