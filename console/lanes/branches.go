package lanes

import (
	"fmt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/workflow"
)

// Branch is one branch of the run: the nodes from its first down to one
// leaf, the path a lane shows when the branch is expanded. The branch of
// the run's root ends at the preferred tip; every other starts at a child
// whose preferred leaf is not its parent's (see tree.branches).
type Branch struct {
	// Label names the branch on the page: "A" for the root's, then "B",
	// "C"… in the order their first nodes were created ("Z", "AA", …).
	Label string
	Top   engine.NodeID
	Leaf  engine.NodeID
	// From is the node the branch leaves (Top's parent; 0 for the root's
	// branch), and After the step pending there: the step whose
	// acknowledgement made Top, the one the branch forked after.
	From  engine.NodeID
	After workflow.StepID
	// First is the step pending at Top ("" when Top is complete).
	First workflow.StepID
	// Edge is the kind of the edge into Top ("" for the root's branch): a
	// fork, the step the branch took first before another branch forked
	// beside it, or a checkpoint left behind.
	Edge event.EdgeKind
	// Nodes counts the nodes from Top to Leaf, both included.
	Nodes int
	// State is the branch read at its leaf.
	State project.BranchState
}

// describe reads every branch of the tree, by index.
func (b *builder) describe() error {
	b.branches = make([]Branch, len(b.t.tops))
	for i, top := range b.t.tops {
		br := Branch{Label: Letter(i), Top: top.ID, Leaf: top.best.ID}
		for v := top.best; v != top; v = v.parent {
			br.Nodes++
		}
		br.Nodes++
		var err error
		if br.First, _, err = b.t.pending(top); err != nil {
			return err
		}
		if top.parent != nil {
			br.From = top.parent.ID
			br.Edge, _ = b.t.g.Edge(top.ID)
			if br.After, _, err = b.t.pending(top.parent); err != nil {
				return err
			}
		}
		if br.State, err = project.StateAt(b.t.g, top.best.Node); err != nil {
			return fmt.Errorf("lanes: state of %s: %w", top.best.ID, err)
		}
		b.branches[i] = br
	}
	return nil
}

// Letter is the label of branch i: A…Z, then AA, AB…, as spreadsheet
// columns count.
func Letter(i int) string {
	var out []byte
	for i++; i > 0; i = (i - 1) / 26 {
		out = append([]byte{byte('A' + (i-1)%26)}, out...)
	}
	return string(out)
}
