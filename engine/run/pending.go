package run

import (
	"cmp"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/workflow"
)

// LoopPlace says which iteration of an enclosing loop a pending step is in.
type LoopPlace struct {
	LoopID        workflow.StepID `json:"loopId"`
	Title         string          `json:"title"`
	Iteration     int             `json:"iteration"` // 1-based
	MaxIterations int             `json:"maxIterations"`
	ItemName      string          `json:"itemName,omitempty"`
	Item          any             `json:"item,omitempty"`
}

// Place is the step a snapshot waits on, with its place in loops.
type Place struct {
	Step  *compile.Step
	Loops []LoopPlace
}

// PendingStep returns the pending step of s; ok is false when the run is
// complete. s must have passed Check.
func PendingStep(c compile.Compiled, s Snapshot) (Place, bool) {
	if s.Position.Kind != Pending {
		return Place{}, false
	}
	p := Place{}
	list := c.Steps
	for d, f := range s.Position.Path {
		n := list[f.Index]
		if n.Loop == nil {
			p.Step = n.Step
			break
		}
		it := s.Position.Path[d+1].Iteration
		place := LoopPlace{LoopID: n.Loop.ID, Title: n.Loop.Title, Iteration: it + 1, MaxIterations: n.Loop.Spec.MaxIterations}
		if n.Loop.Spec.Kind == workflow.ForEach {
			place.ItemName = cmp.Or(n.Loop.Spec.As, DefaultItemVar)
			if items, _ := s.Context[n.Loop.Spec.Over].([]any); it < len(items) {
				place.Item = items[it]
			}
		}
		p.Loops = append(p.Loops, place)
		list = n.Loop.Body
	}
	return p, true
}
