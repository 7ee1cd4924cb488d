package run

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/workrail/workrail/engine"
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
	gaps  []event.GapRecordedData
	late  []Late
	// open and resume are Position's: the top-level nodes skipped by their
	// condition and not run since, and where the walk forward goes on
	// after the one run late (workrail-ts rules only). reconsidered says
	// whether open was looked at since the walk last came to the top level.
	open         []int
	resume       int
	reconsidered bool
	// err is set when the walk reached a loop it cannot run (a forEach
	// whose required array is missing, a for loop whose countVar holds no
	// count) and the mode stops for it; nothing of the move is recorded.
	err *engine.Error
}

func (m *machine) finish(p Position) (Move, error) {
	if m.err != nil {
		return Move{}, m.err
	}
	if p.Kind == Pending {
		p.Open, p.Resume = m.open, m.resume
	}
	move := Move{Snapshot: Snapshot{V: SnapshotVersion, WorkflowHash: m.c.Hash, Position: p, Context: m.ctx,
		Preferences: m.prefs, Capabilities: m.caps}, Skipped: m.skips, LoopExits: m.exits, Gaps: m.gaps, Late: m.late}
	if err := CheckRender(m.c, move.Snapshot); err != nil { // the step moved to could not be shown
		return Move{}, err
	}
	return move, nil
}

// resolve returns the first runnable step at or after path. It always
// ends: each loop runs at most maxIterations times and lists are finite.
// It stops early, with m.err set, at a loop that cannot run.
func (m *machine) resolve(path []Frame) Position {
	for m.err == nil {
		d := len(path) - 1
		if d == 0 && !m.reconsidered {
			m.reconsidered = true
			m.reconsider(path)
		}
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
		case n.Step != nil && m.runs(n.Step, path):
			return Position{Kind: Pending, Step: n.Step.ID, Path: slices.Clone(path)}
		case n.Step != nil:
			m.skipped(d, f.Index, n.Step.RunCondition)
			m.pass(path)
		case m.enters(n.Loop, path):
			path = append(path, Frame{})
		default:
			m.skipped(d, f.Index, n.Loop.RunCondition)
			m.pass(path)
		}
	}
	return Position{}
}

// runCondition is a top-level node's runCondition and title.
func runCondition(n compile.Node) (*workflow.Condition, string) {
	if n.Step != nil {
		return n.Step.RunCondition, n.Step.Title
	}
	return n.Loop.RunCondition, n.Loop.Title
}

// pass moves path past the node it points at. At the top level, past a
// node run late, the walk goes on where it was (resume), and the skipped
// nodes are reconsidered again before it does.
func (m *machine) pass(path []Frame) {
	last := len(path) - 1
	path[last].Index++
	if last == 0 && m.resume > 0 {
		path[0].Index, m.resume, m.reconsidered = m.resume, 0, false
	}
}

// skipped keeps a top-level node skipped by its runCondition (its index
// i, at depth d) open, to be reconsidered after each advance, under the
// workrail-ts dialect's rules. A loop its own condition, count or items
// do not enter is done, as there.
func (m *machine) skipped(d, i int, cond *workflow.Condition) {
	if d > 0 || !m.c.TSRules() || cond == nil || cond.Eval(m.ctx) || slices.Contains(m.open, i) {
		return
	}
	m.open = append(m.open, i)
}

// reconsider points path, at the top level, at the first node of open
// whose runCondition now holds, as the TypeScript WorkRail picks the
// first eligible top-level step in the file's order on every advance;
// the walk forward resumes where path pointed once it is done. It is
// recorded as run late. Nodes still skipped stay open.
func (m *machine) reconsider(path []Frame) {
	for k, i := range m.open {
		n := m.c.Steps[i]
		cond, title := runCondition(n)
		if !cond.Eval(m.ctx) {
			continue
		}
		m.open = slices.Delete(slices.Clone(m.open), k, k+1)
		if m.resume == 0 {
			m.resume = path[0].Index
		}
		path[0] = Frame{Index: i}
		m.late = append(m.late, Late{StepID: n.ID(), Title: title, Condition: cond.String()})
		return
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

// runs decides whether the step path points at runs; a step that does not
// is recorded as skipped.
func (m *machine) runs(s *compile.Step, path []Frame) bool {
	if s.RunCondition == nil {
		return true
	}
	scope := scopeAt(m.c.Steps, m.ctx, path)
	if s.RunCondition.Eval(scope) {
		return true
	}
	m.skips = append(m.skips, event.Skip{StepID: s.ID, Reason: event.ConditionFalse, Condition: s.RunCondition.String(), Unset: unset(scope, s.RunCondition.Vars())})
	return false
}

func unset(scope map[string]any, vars []string) []string {
	var out []string
	for _, v := range vars {
		if x, ok := scope[v]; !ok || x == nil {
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
	reason, again := m.again(loop, done, path[d].Stop, loopPath)
	if again {
		return append(loopPath, Frame{Iteration: done})
	}
	m.exits = append(m.exits, event.LoopExit{LoopID: loop.ID, Reason: reason, Iterations: done})
	m.pass(loopPath)
	return loopPath
}

// enters decides whether the loop path points at runs its first
// iteration; a loop that does not is recorded as skipped. Its conditions
// read the variables of the loops around it.
func (m *machine) enters(l *compile.Loop, path []Frame) bool {
	scope := m.ctx
	if l.RunCondition != nil || l.Spec.Condition != nil {
		scope = scopeAt(m.c.Steps, m.ctx, path)
	}
	if l.RunCondition != nil && !l.RunCondition.Eval(scope) {
		m.skips = append(m.skips, event.Skip{StepID: l.ID, Reason: event.LoopNotEntered, Condition: l.RunCondition.String(),
			Unset: unset(scope, l.RunCondition.Vars())})
		return false
	}
	s := l.Spec
	var enters bool
	switch s.Kind {
	case workflow.While:
		// Without a condition the loop is driven by its loop_control step.
		enters = s.Condition == nil || s.Condition.Eval(scope)
	case workflow.For:
		n, ok := m.count(l, false)
		if !ok {
			return false
		}
		enters = n > 0
	case workflow.ForEach:
		items, ok := m.ctx[s.Over].([]any)
		if !ok && s.ItemsRequired {
			m.unrunnable(l, s.Over, fmt.Sprintf("runs once per item of context.%s, which is %s", s.Over, describe(m.ctx, s.Over, "an array")),
				"send it as a JSON array", false)
			return false
		}
		enters = len(items) > 0
	default:
		enters = true // until: the body runs at least once
	}
	if !enters {
		m.skips = append(m.skips, event.Skip{StepID: l.ID, Reason: event.LoopNotEntered})
	}
	return enters
}

// count is how many times for loop l runs: its count, or the whole number
// of 0 or more its countVar holds now (when it is reached, and again at
// the end of each iteration). Any other value makes the loop unrunnable
// (ok false); entered says whether it has run already.
func (m *machine) count(l *compile.Loop, entered bool) (n int, ok bool) {
	s := l.Spec
	if n, ok := countOf(s, m.ctx); ok {
		return n, true
	}
	m.unrunnable(l, s.CountVar, fmt.Sprintf("runs as many times as context.%s says, which is %s", s.CountVar, describe(m.ctx, s.CountVar, "a whole number of 0 or more")),
		"send it as a whole number of 0 or more", entered)
	return 0, false
}

// countOf is how many times a for loop of spec s runs on ctx: its count,
// or what its countVar holds when that is a whole number of 0 or more.
func countOf(s workflow.LoopSpec, ctx map[string]any) (int, bool) {
	if s.CountVar == "" {
		return s.Count, true
	}
	return wholeNumber(ctx[s.CountVar])
}

// wholeNumber reads a count: a JSON number with no fractional part, 0 or
// more (anything above a loop's bound counts as the bound).
func wholeNumber(v any) (int, bool) {
	var f float64
	switch x := v.(type) {
	case json.Number:
		var err error
		if f, err = x.Float64(); err != nil {
			return 0, false
		}
	case float64:
		f = x
	case int:
		f = float64(x)
	default:
		return 0, false
	}
	if f < 0 || f != math.Trunc(f) {
		return 0, false
	}
	return int(min(f, workflow.MaxLoopIterations+1)), true
}

// unrunnable is reaching loop l (entered: again, at the end of an
// iteration) while the context input it needs (name) holds nothing it
// can run on: what says why. The mode decides, as for a step's unmet
// requirement: in guided and full_auto_stop_on_user_deps it is an
// INVALID_INPUT error naming the input, and nothing of the move is
// recorded (the same call with the input goes on); in
// full_auto_never_stop the loop is skipped (or left) and a critical gap
// says so.
func (m *machine) unrunnable(l *compile.Loop, name, what, fix string, entered bool) {
	if m.prefs.Autonomy != workflow.FullAutoNeverStop {
		m.err = engine.Errorf(engine.CodeInvalidInput, "loop %s (%s) %s: %s in \"context\" with this call",
			l.ID, l.Title, what, fix).With("pointer", "/context/"+name)
		return
	}
	done := "left"
	if !entered {
		done = "skipped"
		m.skips = append(m.skips, event.Skip{StepID: l.ID, Reason: event.LoopNotEntered, Unset: []string{name}})
	}
	m.gaps = append(m.gaps, event.GapRecordedData{Reason: event.GapAssumptionMade, Severity: event.SeverityCritical, RelatedStepID: l.ID,
		Summary:      fmt.Sprintf("loop %s (%s) was %s: it %s, and the run went on without it", l.ID, l.Title, done, what),
		HowToResolve: fmt.Sprintf("Find what context.%s should hold (%s) and do the loop's work, in a new run or by hand", name, fix)})
}

// describe says what a context value that should be want is instead.
func describe(ctx map[string]any, name, want string) string {
	v, ok := ctx[name]
	if !ok || v == nil {
		return "not set"
	}
	b, _ := json.Marshal(v)
	return "not " + want + " but " + clip(string(b), 40)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// again decides, after `done` iterations, whether the loop runs once more.
// loopPath points at the loop.
func (m *machine) again(l *compile.Loop, done int, stop bool, loopPath []Frame) (event.ExitReason, bool) {
	s := l.Spec
	if stop {
		return event.StopRequested, false
	}
	scope := m.ctx
	if s.Condition != nil {
		scope = scopeAt(m.c.Steps, m.ctx, loopPath)
	}
	var more bool
	var reason event.ExitReason
	switch s.Kind {
	case workflow.While:
		more, reason = s.Condition == nil || s.Condition.Eval(scope), event.ConditionMet
	case workflow.Until:
		more, reason = s.Condition == nil || !s.Condition.Eval(scope), event.ConditionMet
	case workflow.For:
		n, ok := m.count(l, true)
		if !ok {
			return event.CountDone, false
		}
		more, reason = done < n, event.CountDone
	case workflow.ForEach:
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
