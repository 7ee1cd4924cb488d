package run

import (
	"slices"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/workflow"
)

// machine walks the compiled step tree from a cursor to the next runnable
// step, recording what it skips and which loops end.
type machine struct {
	c     compile.Compiled
	ctx   map[string]any
	prefs workflow.Preferences
	caps  map[workflow.Capability]event.CapabilityStatus
	skips []event.Skip
	exits []event.LoopExit
}

func (m *machine) finish(p Position) Move {
	return Move{Snapshot: Snapshot{V: SnapshotVersion, WorkflowHash: m.c.Hash, Position: p, Context: m.ctx,
		Preferences: m.prefs, Capabilities: m.caps}, Skipped: m.skips, LoopExits: m.exits}
}

// resolve returns the first runnable step at or after path. It always
// ends: each loop runs at most maxIterations times and lists are finite.
func (m *machine) resolve(path []Frame) Position {
	for {
		d := len(path) - 1
		list := m.list(path[:d])
		f := path[d]
		if f.Index >= len(list) {
			if d == 0 {
				return Position{Kind: Complete}
			}
			path = m.endIteration(path)
			continue
		}
		n := list[f.Index]
		switch {
		case n.Step != nil && m.runs(n.Step):
			return Position{Kind: Pending, Step: n.Step.ID, Path: slices.Clone(path)}
		case n.Step != nil:
			path[d].Index++
		case m.enters(n.Loop):
			path = append(path, Frame{})
		default:
			m.skips = append(m.skips, event.Skip{StepID: n.Loop.ID, Reason: event.LoopNotEntered})
			path[d].Index++
		}
	}
}

// list returns the step list the cursor prefix points into.
func (m *machine) list(prefix []Frame) []compile.Node {
	list := m.c.Steps
	for _, f := range prefix {
		list = list[f.Index].Loop.Body
	}
	return list
}

func (m *machine) runs(s *compile.Step) bool {
	if s.RunCondition == nil || s.RunCondition.Eval(m.ctx) {
		return true
	}
	m.skips = append(m.skips, event.Skip{StepID: s.ID, Reason: event.ConditionFalse, Condition: s.RunCondition.String(), Unset: m.unset(s.RunCondition.Vars())})
	return false
}

func (m *machine) unset(vars []string) []string {
	var out []string
	for _, v := range vars {
		if x, ok := m.ctx[v]; !ok || x == nil {
			out = append(out, v)
		}
	}
	return out
}

// endIteration is reached at the end of a loop body: it starts the next
// iteration or leaves the loop.
func (m *machine) endIteration(path []Frame) []Frame {
	d := len(path) - 1
	loopPath := slices.Clone(path[:d])
	loop := m.list(loopPath[:d-1])[loopPath[d-1].Index].Loop
	done := path[d].Iteration + 1
	reason, again := m.again(loop, done, path[d].Stop)
	if again {
		return append(loopPath, Frame{Iteration: done})
	}
	m.exits = append(m.exits, event.LoopExit{LoopID: loop.ID, Reason: reason, Iterations: done})
	loopPath[d-1].Index++
	return loopPath
}

// enters decides whether a loop runs its first iteration.
func (m *machine) enters(l *compile.Loop) bool {
	s := l.Spec
	switch s.Kind {
	case "while":
		return s.Condition.Eval(m.ctx)
	case "for":
		return s.Count > 0
	case "forEach":
		return len(m.items(l)) > 0
	}
	return true // until: the body runs at least once
}

// again decides, after `done` iterations, whether the loop runs once more.
func (m *machine) again(l *compile.Loop, done int, stop bool) (event.ExitReason, bool) {
	s := l.Spec
	if stop {
		return event.StopRequested, false
	}
	var more bool
	var reason event.ExitReason
	switch s.Kind {
	case "while":
		more, reason = s.Condition.Eval(m.ctx), event.ConditionMet
	case "until":
		more, reason = !s.Condition.Eval(m.ctx), event.ConditionMet
	case "for":
		more, reason = done < s.Count, event.CountDone
	case "forEach":
		more, reason = done < len(m.items(l)), event.ItemsDone
	}
	if !more {
		return reason, false
	}
	if done >= s.MaxIterations {
		return event.MaxIterations, false
	}
	return "", true
}

func (m *machine) items(l *compile.Loop) []any {
	items, _ := m.ctx[l.Spec.Over].([]any)
	return items
}
