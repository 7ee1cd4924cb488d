// Package run owns execution state: the minimal node snapshot and the pure
// step selection (conditions, loops) that moves a run from one pending step
// to the next. Same inputs, same result: no clock, no randomness.
package run

import (
	"fmt"
	"slices"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/workflow"
)

// SnapshotVersion is the version of the snapshot layout written today.
const SnapshotVersion = 1

// PositionKind is the closed set of run positions.
type PositionKind string

// Position kinds.
const (
	Pending  PositionKind = "pending"
	Complete PositionKind = "complete"
)

// PositionKinds lists the position kinds in a fixed order.
func PositionKinds() []PositionKind { return []PositionKind{Pending, Complete} }

// Frame is one level of the cursor: the index in a step list and, below
// the top level, which iteration of the enclosing loop is running.
type Frame struct {
	Index     int  `json:"i"`
	Iteration int  `json:"n,omitzero"`
	Stop      bool `json:"stop,omitzero"` // the agent asked the loop to stop after this iteration
}

// Position says where a run stands: at a pending step (with the cursor
// that reaches it), or complete.
type Position struct {
	Kind PositionKind    `json:"kind"`
	Step workflow.StepID `json:"stepId,omitempty"`
	Path []Frame         `json:"path,omitempty"`
	// Under the workrail-ts dialect's rules, which reconsider a skipped
	// step after each advance: Open lists the top-level steps and loops
	// skipped by their runCondition and not run since, in order, and
	// Resume, while the pending node is one of them run late, is the
	// top-level index the walk goes on from once it is done (0 when the
	// pending node is on the walk forward).
	Open   []int `json:"open,omitempty"`
	Resume int   `json:"resume,omitempty"`
}

// Snapshot is the typed, versioned, minimal state of one node: enough to
// rehydrate the pending step and re-mint tokens, nothing more.
type Snapshot struct {
	V            int                 `json:"v"`
	WorkflowHash engine.WorkflowHash `json:"workflowHash"`
	Position     Position            `json:"position"`
	Context      map[string]any      `json:"context,omitempty"`
	// Preferences are the effective preferences at this node.
	Preferences workflow.Preferences `json:"preferences"`
	// Capabilities are the strongly observed capability states on this
	// branch (absent means unknown).
	Capabilities map[workflow.Capability]event.CapabilityStatus `json:"capabilities,omitempty"`
}

// Move is the result of starting or advancing: the new snapshot and what
// was passed over or ended on the way to it.
type Move struct {
	Snapshot  Snapshot
	Skipped   []event.Skip
	LoopExits []event.LoopExit
	// Gaps are the critical gaps the walk left: in full_auto_never_stop,
	// each loop skipped for want of the context input it runs on.
	Gaps []event.GapRecordedData
	// Late are the steps and loops skipped earlier that the move runs now,
	// out of order, because the context now satisfies their condition
	// (the workrail-ts dialect's rules).
	Late []Late
}

// Late is a top-level step or loop run after it was skipped.
type Late struct {
	StepID    workflow.StepID
	Title     string
	Condition string // its runCondition, as a skip shows it
}

// Start returns the first move of a new run under the given effective
// preferences. It fails (an INVALID_INPUT *engine.Error) when the run
// reaches a loop that cannot run on ctx (a forEach whose required array
// is missing, a for loop whose countVar holds no count) and the mode
// stops for it (full_auto_never_stop skips the loop with a critical gap),
// and (a PAYLOAD_TOO_LARGE one, CheckRender) when the step it reaches
// would render past the limit of a prompt.
func Start(c compile.Compiled, ctx map[string]any, prefs workflow.Preferences) (Move, error) {
	m := machine{c: c, ctx: ctx, prefs: prefs}
	return m.finish(m.resolve([]Frame{{}}))
}

// Advance moves past the pending step of s, with ctx merged over the
// snapshot's context. stop records the agent's request (a loop_control
// artifact) to end the innermost loop after this iteration. The mode is
// s's preferences (the attempt's, which the caller sets there). Like
// Start, it fails with an INVALID_INPUT *engine.Error at a loop that
// cannot run, and with a PAYLOAD_TOO_LARGE one at a step that would
// render past the limit of a prompt.
func Advance(c compile.Compiled, s Snapshot, ctx map[string]any, stop bool) (Move, error) {
	if err := Check(c, s); err != nil {
		return Move{}, err
	}
	if s.Position.Kind == Complete {
		return Move{}, fmt.Errorf("run: advance: the run is already complete")
	}
	m := machine{c: c, ctx: merge(s.Context, ctx), prefs: s.Preferences, caps: s.Capabilities,
		open: slices.Clone(s.Position.Open), resume: s.Position.Resume}
	path := slices.Clone(s.Position.Path)
	last := len(path) - 1
	if stop && last > 0 {
		path[last].Stop = true
	}
	m.pass(path)
	return m.finish(m.resolve(path))
}

// Check verifies that snapshot s belongs to compiled workflow c and that
// its cursor reaches the step it names.
func Check(c compile.Compiled, s Snapshot) error {
	if s.V != SnapshotVersion {
		return fmt.Errorf("run: snapshot version %d is not supported", s.V)
	}
	if s.WorkflowHash != c.Hash {
		return fmt.Errorf("run: snapshot is pinned to %s, not %s", s.WorkflowHash, c.Hash)
	}
	if s.Position.Kind != Pending {
		return nil
	}
	n, ok := nodeAt(c.Steps, s.Position.Path)
	if !ok || n.Step == nil || n.Step.ID != s.Position.Step {
		return fmt.Errorf("run: snapshot cursor does not reach step %q", s.Position.Step)
	}
	return nil
}

// nodeAt follows path through nested loop bodies.
func nodeAt(list []compile.Node, path []Frame) (compile.Node, bool) {
	for d, f := range path {
		if f.Index < 0 || f.Index >= len(list) {
			return compile.Node{}, false
		}
		n := list[f.Index]
		if d == len(path)-1 {
			return n, true
		}
		if n.Loop == nil {
			return compile.Node{}, false
		}
		list = n.Loop.Body
	}
	return compile.Node{}, false
}

func merge(base, over map[string]any) map[string]any {
	if len(over) == 0 {
		return base
	}
	out := make(map[string]any, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}
