package lanes

import (
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/workflow"
)

// Branch is one branch of the run as the page names it.
type Branch struct {
	// Label is the branch's letter: A for the first path, then B, C… in
	// the order the branches were made (Z, AA, …), for good.
	Label string
	// Top is the node of the branch's first row; From the node of the row
	// it left (0 for A), and After the step pending there, the one done
	// again to make it.
	Top   engine.NodeID
	From  engine.NodeID
	After workflow.StepID
	// First is the step pending at Top.
	First  workflow.StepID
	Origin project.Origin
	// Changed are, for a Console fork, the context keys it changed.
	Changed []string
	// Rows counts the rows from Top down the branch to its end.
	Rows int
	// End is the branch's last node on its line, Pending the step pending
	// there ("" where the run completed), and Status its state.
	End     engine.NodeID
	Pending workflow.StepID
	Status  project.BranchStatus
}

// describe reads every branch of p, by index.
func describe(p *project.Projection, t *tree) []Branch {
	out := make([]Branch, len(p.Branches))
	for i, b := range p.Branches {
		br := Branch{Label: b.Letter, Top: p.RowOf(b.First), Origin: b.Origin, Changed: b.Changed, End: b.End, Status: b.Status}
		if v := t.byID(br.Top); v != nil {
			br.First, br.Rows = v.Step, len(t.line(v))
		}
		if b.From != 0 {
			br.From = p.RowOf(b.From)
			if v := t.byID(br.From); v != nil {
				br.After = v.Step
			}
		}
		if end, ok := p.Part(b.End); ok {
			br.Pending = end.Step
		}
		out[i] = br
	}
	return out
}

// Letter is the label of branch i (project.Letter).
func Letter(i int) string { return project.Letter(i) }
