package project

import (
	"github.com/workrail/workrail/engine/workflow"
)

// BranchState is one branch of a run, the path from its root down to one
// leaf of its DAG, read at that leaf as a run is read at its preferred
// tip: complete, blocked or in progress, and the step pending there.
type BranchState struct {
	Leaf    Node
	Status  RunStatus
	Pending workflow.StepID // empty when complete
}

// StateAt reads the branch that ends at leaf.
func StateAt(r OverviewReader, leaf Node) (BranchState, error) {
	_, status, pending, err := atTip(r, leaf)
	return BranchState{Leaf: leaf, Status: status, Pending: pending}, err
}

// BranchStates reads every branch of run r at its leaf, in the order the
// leaves were created: as many as RunSummary.Branches counts.
func BranchStates(g *Graph, r Run) ([]BranchState, error) {
	var out []BranchState
	for _, n := range g.Nodes(r.ID) {
		if len(n.Children) > 0 {
			continue
		}
		s, err := StateAt(g, n)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}
