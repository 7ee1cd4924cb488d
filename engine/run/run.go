// Package run owns execution state: the minimal node snapshot and the pure
// step selection that moves a run from one pending step to the next.
package run

import (
	"fmt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
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

// Position says where a run stands: at a pending step, or complete.
type Position struct {
	Kind PositionKind    `json:"kind"`
	Step workflow.StepID `json:"stepId,omitempty"`
}

// Snapshot is the typed, versioned, minimal state of one node: enough to
// rehydrate the pending step and re-mint tokens, nothing more.
type Snapshot struct {
	V            int                 `json:"v"`
	WorkflowHash engine.WorkflowHash `json:"workflowHash"`
	Position     Position            `json:"position"`
	Context      map[string]any      `json:"context,omitempty"`
}

// Start returns the snapshot of a new run's first node.
func Start(c compile.Compiled, ctx map[string]any) Snapshot {
	return Snapshot{V: SnapshotVersion, WorkflowHash: c.Hash, Position: first(c), Context: ctx}
}

// Advance returns the snapshot that follows s once its pending step is
// acknowledged, with ctx merged over the snapshot's context.
func Advance(c compile.Compiled, s Snapshot, ctx map[string]any) (Snapshot, error) {
	if err := Check(c, s); err != nil {
		return Snapshot{}, err
	}
	next := Snapshot{V: SnapshotVersion, WorkflowHash: s.WorkflowHash, Context: merge(s.Context, ctx)}
	if s.Position.Kind == Complete {
		return Snapshot{}, fmt.Errorf("run: advance: the run is already complete")
	}
	i := c.StepIndex(s.Position.Step)
	if i+1 < len(c.Steps) {
		next.Position = Position{Kind: Pending, Step: c.Steps[i+1].ID}
	} else {
		next.Position = Position{Kind: Complete}
	}
	return next, nil
}

// Check verifies that snapshot s belongs to compiled workflow c and points
// at a step that exists in it.
func Check(c compile.Compiled, s Snapshot) error {
	if s.V != SnapshotVersion {
		return fmt.Errorf("run: snapshot version %d is not supported", s.V)
	}
	if s.WorkflowHash != c.Hash {
		return fmt.Errorf("run: snapshot is pinned to %s, not %s", s.WorkflowHash, c.Hash)
	}
	if s.Position.Kind == Pending && c.StepIndex(s.Position.Step) < 0 {
		return fmt.Errorf("run: snapshot points at unknown step %q", s.Position.Step)
	}
	return nil
}

// PendingStep returns the pending step of s; ok is false when the run is
// complete.
func PendingStep(c compile.Compiled, s Snapshot) (step compile.Step, index int, ok bool) {
	if s.Position.Kind != Pending {
		return compile.Step{}, 0, false
	}
	i := c.StepIndex(s.Position.Step)
	return c.Steps[i], i, true
}

func first(c compile.Compiled) Position {
	return Position{Kind: Pending, Step: c.Steps[0].ID}
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
