// Package lanes lays out one run's branch DAG for the Console's run page,
// the way `git log --graph --topo-order` does: one row per node (ordered
// by the log, never a clock), lane 0 for the path from the root to the
// preferred tip, every other branch folded to a stub row under its fork
// parent unless expanded, repeated iterations of a loop folded to one
// "×N iterations" row. The page shows the rows as an ordinary HTML list and draws
// Layout.SVG beside it, decorative only.
//
// Rows follow the path to the tip, and right below a node come the rows
// of the branches that leave it, each in the order of its own path, so a
// branch is drawn beside its fork point however much later it was made.
// Each branch has a letter, and the drawing gives its edges their own
// colour and dash pattern, so lanes differ by more than colour.
//
// It is pure: it reads a project.Graph and returns values. It must not
// import the Console, templ, chi, net/http or the store.
package lanes

import (
	"strconv"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
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
	// LoopRow stands for consecutive whole iterations of one loop that
	// repeat the same steps, however many steps its body has.
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
	// Branches are every branch of the run, folded or not, by index:
	// Branches[0] ends at the tip.
	Branches []Branch
}

// Row is one line of the run page's list.
type Row struct {
	Kind Kind
	Lane int
	// Node is the row's node: for a stub the branch's first node, for a
	// loop fold the first node of its first iteration. Putting Node in
	// the expand set lays out a folded row in full.
	Node engine.NodeID
	// Last is the last node the row stands for: the branch's preferred
	// leaf for a stub, the last node of the last iteration for a loop
	// fold, Node otherwise.
	Last engine.NodeID
	// Parent is Node's parent (0 for the run's root): for a stub, the
	// fork parent whose row the stub sits under.
	Parent engine.NodeID
	// Step is the step pending at Last ("" when Last is complete).
	Step workflow.StepID
	// Folded counts the nodes folded into a stub or loop row (0 for a
	// node row).
	Folded int
	// Checkpoints counts the checkpoint nodes among a stub's Folded (a
	// loop fold never takes one).
	Checkpoints int
	// Iterations counts the loop iterations a loop fold stands for (0
	// for other rows); each holds Folded/Iterations nodes.
	Iterations int
	// FirstIteration is the first of them, counted from 1 as
	// run.LoopPlace.Iteration counts.
	FirstIteration int
	// Body is the steps of one of a loop fold's iterations, in the order
	// they first ran, each once (an inner loop's steps repeat inside an
	// iteration).
	Body []workflow.StepID
	// LoopDepth is how deep a loop fold's loop is nested: 0 for a loop
	// among the workflow's top-level steps. It is the loop's index in
	// run.PendingStep(workflow, snapshot of Node).Loops, which holds its
	// id and title.
	LoopDepth int
	// Tip says the row is the run's preferred tip.
	Tip bool
	// NodeKind is Node's kind: a checkpoint is notes recorded at its
	// parent's step, which it stands at too (nothing advanced).
	NodeKind event.NodeKind
	// Edge is the kind of the edge into Node from Parent ("" for the
	// run's root).
	Edge event.EdgeKind
	// ForkedFrom is the node Node was forked from (Graph.ForkedFrom):
	// its parent when the edge into it is a fork, else 0.
	ForkedFrom engine.NodeID
	// ForksOf counts the branches forked off Node (Graph.ForksOf).
	ForksOf int
	// Branch is the index in Layout.Branches of the branch Node is on:
	// for a stub, the branch it folds.
	Branch int
	// Ends says Last is its branch's leaf: a stub, or the last node of a
	// branch.
	Ends bool
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

// Checkpoint says the row is one checkpoint node.
func (r Row) Checkpoint() bool { return r.Kind == NodeRow && r.NodeKind == event.NodeCheckpoint }

// Summary is the text a folded row shows: "N steps" for a stub, counting
// the branches off it too ("N steps and M checkpoints" when it holds
// checkpoints, "1 checkpoint" for a checkpoint left behind), "×N
// iterations of plan → edit → test (M steps)" for a loop fold (at most
// four steps named; the count of steps when an iteration has more than
// one), "" for a node.
func (r Row) Summary() string {
	switch r.Kind {
	case StubRow:
		var parts []string
		if n := r.Folded - r.Checkpoints; n > 0 {
			parts = append(parts, count(n, "step", "steps"))
		}
		if r.Checkpoints > 0 {
			parts = append(parts, count(r.Checkpoints, "checkpoint", "checkpoints"))
		}
		return strings.Join(parts, " and ")
	case LoopRow:
		body := r.Body
		if len(body) > maxBody {
			body = body[:maxBody-1]
		}
		var b strings.Builder
		b.WriteString("×" + strconv.Itoa(r.Iterations) + " iterations of ")
		for i, s := range body {
			if i > 0 {
				b.WriteString(" → ")
			}
			b.WriteString(string(s))
		}
		if len(body) < len(r.Body) {
			b.WriteString(" → …")
		}
		if r.Folded > r.Iterations {
			b.WriteString(" (" + strconv.Itoa(r.Folded) + " steps)")
		}
		return b.String()
	}
	return ""
}

// maxBody is how many steps of a loop's body a summary names.
const maxBody = 4

func count(n int, one, other string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + other
}
