package run

import (
	"cmp"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/workflow"
)

// The names a loop shows its variables under when it does not name them:
// every loop its 1-based iteration, a forEach loop also its item and the
// item's 0-based index.
const (
	DefaultItemVar      = "currentItem"
	DefaultIndexVar     = "currentIndex"
	DefaultIterationVar = "currentIteration"
)

// Scope is what conditions and {{var}} references read at s's pending
// step: the context with the variables of every enclosing loop over it
// (an inner loop's over an outer one's). A complete run reads the context.
func Scope(c compile.Compiled, s Snapshot) map[string]any {
	if s.Position.Kind != Pending {
		return s.Context
	}
	return scopeAt(c.Steps, s.Context, s.Position.Path)
}

// scopeAt returns ctx with the variables of the loops path passes through
// before its last frame; ctx itself when there are none, so a step outside
// loops costs no copy.
func scopeAt(list []compile.Node, ctx map[string]any, path []Frame) map[string]any {
	if len(path) < 2 {
		return ctx
	}
	out := make(map[string]any, len(ctx)+3)
	for k, v := range ctx {
		out[k] = v
	}
	for d := 0; d < len(path)-1; d++ {
		l := list[path[d].Index].Loop
		setLoopVars(out, l, path[d+1].Iteration, ctx)
		list = l.Body
	}
	return out
}

// setLoopVars sets loop l's variables for its 0-based iteration it.
func setLoopVars(scope map[string]any, l *compile.Loop, it int, ctx map[string]any) {
	s := l.Spec
	scope[cmp.Or(s.IterationVar, DefaultIterationVar)] = it + 1
	if s.Kind != workflow.ForEach {
		return
	}
	scope[cmp.Or(s.IndexVar, DefaultIndexVar)] = it
	if items, _ := ctx[s.Over].([]any); it < len(items) {
		scope[cmp.Or(s.As, DefaultItemVar)] = items[it]
	}
}
