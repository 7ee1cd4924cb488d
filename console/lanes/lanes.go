// Package lanes lays out one run's projection for the Console's run
// page, the way `git log --graph --topo-order` does: one row per row of
// the projection (a step pending at a node, with the checkpoints taken
// while it was), ordered by the log, never a clock; lane 0 for the path
// from the run's first row to the row of its preferred tip; every other
// line, a branch's rows past where it left, folded to a stub row under
// the row it left unless expanded; repeated iterations of a loop folded
// to one "×N iterations" row. The page shows the rows as an ordinary HTML
// list and draws Layout.SVG beside it, decorative only.
//
// Rows follow the path to the tip, and right below a row come the rows
// of the lines that leave it, each in the order of its own branch, so a
// branch is drawn beside the row it left however much later it was made.
// Each branch has the letter the projection gave it for good, and the
// drawing gives its edges their own colour and dash pattern, so lanes
// differ by more than colour.
//
// It is pure: it reads a project.Projection and returns values. It must
// not import the Console, templ, chi, net/http or the store.
package lanes

import (
	"strconv"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// Kind is the closed set of row kinds.
type Kind string

// Row kinds.
const (
	// NodeRow is one row of the projection.
	NodeRow Kind = "node"
	// StubRow stands for a folded line: a branch's rows from where it
	// left (and the lines off them).
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
	// Branches are every branch of the run, folded or not, by the index
	// the projection gave it: A first.
	Branches []Branch
}

// Row is one line of the run page's list.
type Row struct {
	Kind Kind
	Lane int
	// Node is the node of the projection's row this row shows: for a
	// stub, its line's first row; for a loop fold, its first iteration's
	// first row. Putting Node in the expand set lays out a folded row in
	// full.
	Node engine.NodeID
	// Last is the node of the last projection row the row stands for:
	// the end of a stub's line, the last row of a loop fold's last
	// iteration, Node otherwise.
	Last engine.NodeID
	// Parent is the node of the row Node's row was made from (0 for the
	// run's first row): for a stub, the row it sits under.
	Parent engine.NodeID
	// Step is the step pending at Last; At the cursor reaching Node's.
	Step workflow.StepID
	At   []run.Frame
	// Folded counts the projection rows a stub or loop row stands for (0
	// for a node row).
	Folded int
	// Checkpoints counts the checkpoints on the row, or on the rows it
	// stands for.
	Checkpoints int
	// Iterations counts the loop iterations a loop fold stands for (0
	// for other rows); each holds Folded/Iterations rows.
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
	// Tip says the run's preferred tip is on the row: its node, one of
	// its checkpoints (TipCheckpoint), or where the run completed from
	// it. Complete says the run completed from the row on its branch: its
	// step was the last.
	Tip, TipCheckpoint, Complete bool
	// Forks counts the branches made from the row.
	Forks int
	// Branch is the index in Layout.Branches of the branch Node is on:
	// for a stub, of the line it folds.
	Branch int
	// Starts says Node is the first row of its branch (not A's).
	Starts bool
	// Ends says Last ends its line: a stub, or the last row of a line.
	Ends bool
	// Through lists, in ascending order, the lanes whose lines pass by
	// this row without a row on it.
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

// Checkpoint says the row is one projection row with checkpoints taken
// on it.
func (r Row) Checkpoint() bool { return r.Kind == NodeRow && r.Checkpoints > 0 }

// Summary is the text a folded row shows: "N steps" for a stub ("N
// steps and M checkpoints" when it holds checkpoints), "×N iterations of
// plan → edit → test (M steps)" for a loop fold (at most four steps
// named; the count of steps when an iteration has more than one), "" for
// a row.
func (r Row) Summary() string {
	switch r.Kind {
	case StubRow:
		s := count(r.Folded, "step", "steps")
		if r.Checkpoints > 0 {
			s += " and " + count(r.Checkpoints, "checkpoint", "checkpoints")
		}
		return s
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
