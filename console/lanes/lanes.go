// Package lanes lays out one run's branch DAG for the Console's run page,
// the way `git log --graph` does: one row per node in node_created order
// (never a clock), lane 0 for the path from the root to the preferred tip,
// every other branch folded to a stub row under its fork parent unless
// expanded, loop iterations folded to "×N". The page shows the rows as an
// ordinary HTML list and draws Layout.SVG beside it, decorative only.
//
// It is pure: it reads a project.Graph and returns values. It must not
// import the Console, templ, chi, net/http or the store.
package lanes

import (
	"strconv"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/workflow"
)

// Kind is the closed set of row kinds.
type Kind string

// Row kinds.
const (
	// NodeRow is one node.
	NodeRow Kind = "node"
	// StubRow stands for a folded branch: every node below one child of
	// a fork parent.
	StubRow Kind = "stub"
	// LoopRow stands for consecutive iterations of one loop step.
	LoopRow Kind = "loop-fold"
)

// Layout is a run's rows, top to bottom, with their lanes and the
// connections to draw between them.
type Layout struct {
	Run engine.RunID
	// Tip is the run's preferred tip (project.PreferredTip); its row is
	// on lane 0.
	Tip engine.NodeID
	// Lanes is how many lanes the rows use (the drawing's width).
	Lanes int
	Rows  []Row
}

// Row is one line of the run page's list.
type Row struct {
	Kind Kind
	Lane int
	// Node is the row's node: for a stub the branch's first node, for a
	// loop fold its first iteration. Putting Node in the expand set lays
	// out a folded row in full.
	Node engine.NodeID
	// Last is the last node the row stands for: the branch's preferred
	// leaf for a stub, the last iteration for a loop fold, Node otherwise.
	Last engine.NodeID
	// Parent is Node's parent (0 for the run's root): for a stub, the
	// fork parent whose row the stub sits under.
	Parent engine.NodeID
	// Step is the step pending at Last ("" when Last is complete).
	Step workflow.StepID
	// Folded counts the nodes folded into a stub or loop row (0 for a
	// node row).
	Folded int
	// Tip says the row is the run's preferred tip.
	Tip bool
	// ForkedFrom is the node Node was forked from (Graph.ForkedFrom):
	// its parent when the edge into it is a fork, else 0.
	ForkedFrom engine.NodeID
	// ForksOf counts the branches forked off Node (Graph.ForksOf).
	ForksOf int
	// Through lists, in ascending order, the lanes whose lines pass by
	// this row without a node on it.
	Through []int
	// Out lists the connections from this row to the rows of its
	// children, in row order.
	Out []Link
}

// Link is one parent→child connection, drawn from its row down to the
// child's row and lane; a change of lane bends right below the parent.
type Link struct {
	Row  int
	Lane int
}

// Summary is the text a folded row shows: "N more steps on a branch
// forked here" for a stub, "×N" for a loop fold, "" for a node.
func (r Row) Summary() string {
	switch r.Kind {
	case StubRow:
		steps := " more steps"
		if r.Folded == 1 {
			steps = " more step"
		}
		return strconv.Itoa(r.Folded) + steps + " on a branch forked here"
	case LoopRow:
		return "×" + strconv.Itoa(r.Folded)
	}
	return ""
}
