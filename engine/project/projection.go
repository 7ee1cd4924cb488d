package project

import (
	"cmp"
	"slices"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// Projection is one run as every surface shows it, assembled from its
// records (Assemble): its rows, branches and head. Its queries (Verdict,
// OpenGaps, StepsDone, OpenOnPath…) are the only place a count a page,
// an export or an answer shows is made.
type Projection struct {
	RunHead
	// Tip is the run's preferred tip, Status the run's status read there
	// and LastTime when an event of the run was last appended: the
	// overview's.
	Tip      engine.NodeID
	Status   RunStatus
	LastTime event.Millis
	// Rows are the steps pending at the run's nodes, in the order those
	// nodes were created (the root's first).
	Rows []Row
	// Branches are the run's branches by index: A first.
	Branches []Branch
	nodes    nodeIndex // its parts, and the rows they head
}

// Row is one step pending at a node: the step, where it was pending, the
// attempts made at it (at the node and at the checkpoints taken there),
// what they recorded, and where the row goes on.
type Row struct {
	// Node is the node the step was pending at: a step node or the root.
	Node engine.NodeID
	Step workflow.StepID
	// At is the cursor reaching the step: its loops and iterations.
	At []run.Frame
	// Branch is the index of the row's branch.
	Branch int
	// Parent is the node of the row this one was made from; 0 for the
	// root's row.
	Parent engine.NodeID
	// Next is the node continuing the row on its branch: the next row's,
	// or the node where the run completed; 0 while its step is pending.
	Next engine.NodeID
	// Forks are the first nodes of the branches made from this row, in
	// the order they were made.
	Forks []engine.NodeID
	// Starts says a branch other than A starts at this row: its first
	// node is the row's, or a checkpoint taken on it.
	Starts bool
	// Checkpoints are the checkpoints taken while the step was pending
	// here, in the order they were taken.
	Checkpoints []engine.NodeID
	// Attempts are every attempt made at the row's nodes, in log order.
	Attempts []RowAttempt
	// Continued says the row's node continues its branch although the log
	// linked it as a fork (see Part.Continued).
	Continued bool
	// Console says the Console made the row's node.
	Console     bool
	Created     engine.EventIndex
	CreatedTime event.Millis
	// Outcome sums what the row's attempts recorded and met.
	Outcome Outcome
}

// RowAttempt is an attempt as its row shows it: where it was made, and
// what it recorded (an advance's on the node it made, a blocked
// attempt's observations on its own).
//
// Attempt and Recorded point into the run's parts (an attempt and what
// it recorded are read, never changed, through a row); neither is ever
// nil. A long run's page assembles thousands of these, so they are not
// copies.
type RowAttempt struct {
	Node engine.NodeID
	*Attempt
	Recorded *Facts
	// NotRecorded are the gaps its refused gaps artifacts carried: sent,
	// and tracked nowhere.
	NotRecorded []CarriedGap
}

// Done says the row's step went through on its branch.
func (r Row) Done() bool { return r.Next != 0 }

// Blocked counts the row's blocked attempts.
func (r Row) Blocked() int { return r.Outcome.Blocked }

// Branch is one branch of a run: how it came to be, the nodes it holds
// past the node it left, where it ends and in what state.
type Branch struct {
	BranchHead
	Letter string
	// Nodes are the nodes on the branch, in creation order: the first
	// branch holds the root.
	Nodes []engine.NodeID
	// End is its last node on its line: the node of its last row, or
	// where the run completed on it.
	End    engine.NodeID
	Status BranchStatus
}

// BranchStatus is the closed set of states a branch is in.
type BranchStatus string

// Branch states.
const (
	// BranchComplete: the run completed on the branch.
	BranchComplete BranchStatus = "complete"
	// BranchCurrent: the branch holds the run's preferred tip.
	BranchCurrent BranchStatus = "current"
	// BranchBlocked: left with its last attempt blocked.
	BranchBlocked BranchStatus = "blocked"
	// BranchLeftBehind: left while its step was pending.
	BranchLeftBehind BranchStatus = "left_behind"
)

// Verdict is the closed set of what a run's state is, read at its
// preferred tip.
type Verdict string

// Verdicts.
const (
	VerdictComplete   Verdict = "complete"
	VerdictInProgress Verdict = "in_progress"
	// VerdictBlocked: the last attempt at the tip was blocked, for a
	// reason the agent can act on.
	VerdictBlocked Verdict = "blocked"
	// VerdictNeedsUser: the last attempt at the tip was blocked on what
	// only the user can give.
	VerdictNeedsUser Verdict = "needs_user"
)

// Letter is the letter of branch i: A…Z, then AA, AB…, as spreadsheet
// columns count.
func Letter(i int) string {
	var out []byte
	for i++; i > 0; i = (i - 1) / 26 {
		out = append([]byte{byte('A' + (i-1)%26)}, out...)
	}
	return string(out)
}

// Assemble builds a run's projection from its records: its head, the
// run's overview (its preferred tip) and the parts of its nodes (in any
// order).
func Assemble(h RunHead, ro RunOverview, parts []Part) *Projection {
	p := &Projection{RunHead: h, Tip: ro.Tip, Status: ro.Status, LastTime: ro.LastTime, Rows: make([]Row, 0, len(parts))}
	sorted := make([]*Part, len(parts))
	attempts := 0
	for i := range parts {
		sorted[i] = &parts[i]
		attempts += len(parts[i].Attempts)
	}
	// Every row's attempts are slices of one array: a row's attempts are
	// appended together below, so each row's slice is capped where it ends.
	all := make([]RowAttempt, 0, attempts)
	slices.SortFunc(sorted, func(a, b *Part) int { return cmp.Compare(a.Node, b.Node) })
	p.nodes = newNodeIndex(sorted)
	for _, pt := range sorted {
		if !pt.Checkpoint && pt.Step != "" {
			p.nodes.setRow(pt.Node, len(p.Rows))
			row := Row{Node: pt.Node, Step: pt.Step, At: pt.At, Branch: pt.Branch, Next: pt.Next,
				Continued: pt.Continued, Console: pt.Console, Created: pt.Created, CreatedTime: pt.CreatedTime}
			p.Rows = append(p.Rows, row)
		}
	}
	for _, pt := range sorted {
		head := pt.Node
		if pt.Checkpoint {
			head = pt.Head
		}
		if i, ok := p.nodes.row(head); ok {
			row := &p.Rows[i]
			if pt.Checkpoint {
				row.Checkpoints = append(row.Checkpoints, pt.Node)
			}
			if row.Attempts == nil && len(pt.Attempts) > 0 {
				start := len(all)
				for k := range pt.Attempts {
					all = append(all, p.rowAttempt(pt.Node, &pt.Attempts[k]))
				}
				row.Attempts = all[start:len(all):len(all)]
			} else {
				for k := range pt.Attempts {
					row.Attempts = append(row.Attempts, p.rowAttempt(pt.Node, &pt.Attempts[k]))
				}
			}
		}
		if !pt.Checkpoint && pt.From != 0 {
			from := p.RowOf(pt.From)
			if i, ok := p.nodes.row(pt.Node); ok {
				p.Rows[i].Parent = from
			}
			if p.startsBranch(pt.Node) {
				if i, ok := p.nodes.row(from); ok {
					p.Rows[i].Forks = append(p.Rows[i].Forks, pt.Node)
				}
			}
		}
	}
	for i := range p.Rows {
		row := &p.Rows[i]
		slices.SortStableFunc(row.Attempts, func(a, b RowAttempt) int { return cmp.Compare(a.At, b.At) })
		row.Outcome = p.rowOutcome(*row)
	}
	for _, b := range p.RunHead.Branches[min(1, len(p.RunHead.Branches)):] {
		if i, ok := p.nodes.row(p.RowOf(b.First)); ok {
			p.Rows[i].Starts = true
		}
	}
	p.branches()
	return p
}

// StartAt is what the run's start recorded at node n: the root's arrival
// (the notes and gaps given with the start), and nothing at any other
// node. The root's row shows and counts it beside its attempts'.
func (p *Projection) StartAt(n engine.NodeID) Facts {
	if n != p.Root {
		return Facts{}
	}
	if pt, ok := p.nodes.part(n); ok {
		return pt.Arrival
	}
	return Facts{}
}

func (p *Projection) rowAttempt(node engine.NodeID, a *Attempt) RowAttempt {
	ra := RowAttempt{Node: node, Attempt: a, Recorded: &a.Facts}
	if to, ok := p.nodes.part(a.To); ok && !a.Blocked {
		ra.Recorded = &to.Arrival
	}
	ra.NotRecorded = notRecorded(*ra.Recorded)
	return ra
}

// notRecorded are the gaps f's outputs carried that no gap record of f
// took: a gap is taken as the record of one carried with its summary.
func notRecorded(f Facts) []CarriedGap {
	taken := map[string]int{}
	for _, g := range f.Gaps {
		taken[g.Summary]++
	}
	var out []CarriedGap
	for _, o := range f.Outputs {
		for _, c := range o.Carried {
			if taken[c.Summary] > 0 {
				taken[c.Summary]--
				continue
			}
			out = append(out, c)
		}
	}
	return out
}

// startsBranch says node n is the first node of a branch other than A.
func (p *Projection) startsBranch(n engine.NodeID) bool {
	for _, b := range p.RunHead.Branches[min(1, len(p.RunHead.Branches)):] {
		if b.First == n {
			return true
		}
	}
	return false
}

// branches reads every branch: its nodes, its end and its state.
func (p *Projection) branches() {
	p.Branches = make([]Branch, len(p.RunHead.Branches))
	for i, bh := range p.RunHead.Branches {
		p.Branches[i] = Branch{BranchHead: bh, Letter: Letter(i)}
	}
	for _, pt := range p.nodes.parts { // by node id: each branch's Nodes in order
		if b := pt.Branch; b < len(p.Branches) {
			p.Branches[b].Nodes = append(p.Branches[b].Nodes, pt.Node)
		}
	}
	tip := p.BranchOf(p.Tip)
	for i := range p.Branches {
		b := &p.Branches[i]
		b.End = b.First
		for {
			pt, ok := p.nodes.part(b.End)
			if !ok || pt.Next == 0 {
				break
			}
			b.End = pt.Next
		}
		end, _ := p.nodes.part(b.End)
		switch {
		case end != nil && end.Step == "":
			b.Status = BranchComplete
		case i == tip:
			b.Status = BranchCurrent
		case p.lastBlocked(b.End):
			b.Status = BranchBlocked
		default:
			b.Status = BranchLeftBehind
		}
	}
}

// lastBlocked says the last attempt made on the row of node n was
// blocked.
func (p *Projection) lastBlocked(n engine.NodeID) bool {
	row, ok := p.Row(n)
	return ok && len(row.Attempts) > 0 && row.Attempts[len(row.Attempts)-1].Blocked
}

// RowIndex is the index in Rows of the row node n heads (a step node
// or the root, not a checkpoint).
func (p *Projection) RowIndex(n engine.NodeID) (int, bool) { return p.nodes.row(n) }

// Part is the record of node n of the run.
func (p *Projection) Part(n engine.NodeID) (Part, bool) {
	pt, ok := p.nodes.part(n)
	if !ok {
		return Part{}, false
	}
	return *pt, true
}

// RowOf is the node of the row that shows node n: n itself for a step
// node, the row's node for a checkpoint, the row the run completed from
// for a node where it completed; 0 for a node the run does not hold.
func (p *Projection) RowOf(n engine.NodeID) engine.NodeID {
	pt, ok := p.nodes.part(n)
	switch {
	case !ok:
		return 0
	case pt.Checkpoint:
		return pt.Head
	case pt.Step == "" && pt.From != 0:
		return p.RowOf(pt.From)
	}
	return n
}

// Row is the row of node n (a checkpoint's is its row's).
func (p *Projection) Row(n engine.NodeID) (Row, bool) {
	i, ok := p.nodes.row(p.RowOf(n))
	if !ok {
		return Row{}, false
	}
	return p.Rows[i], true
}

// BranchOf is the index of the branch node n is on (-1 for none).
func (p *Projection) BranchOf(n engine.NodeID) int {
	if pt, ok := p.nodes.part(n); ok {
		return pt.Branch
	}
	return -1
}

// Complete says the run is complete at its preferred tip.
func (p *Projection) Complete() bool { return p.Status == Complete }

// Verdict is the run's state at its preferred tip: complete, in progress,
// or blocked, and blocked on the user when every blocker of the last
// attempt there waits on what only the user can give.
func (p *Projection) Verdict() Verdict {
	tip, _ := p.Part(p.Tip)
	return verdictAt(p.Status, tip)
}

// TipBlocked is the last attempt made at the preferred tip, when it was
// blocked: what stands in the run's way now.
func (p *Projection) TipBlocked() (RowAttempt, bool) {
	pt, ok := p.nodes.part(p.Tip)
	if !ok || len(pt.Attempts) == 0 {
		return RowAttempt{}, false
	}
	a := &pt.Attempts[len(pt.Attempts)-1]
	if !a.Blocked {
		return RowAttempt{}, false
	}
	return p.rowAttempt(p.Tip, a), true
}

// Path is the rows from the root's down to the row of node n (a node
// where the run completed has none: the path ends at the row it was
// made from), following the nodes each was made from.
func (p *Projection) Path(n engine.NodeID) []Row {
	var out []Row
	p.walkPath(n, func(row Row) bool { out = append(out, row); return true })
	slices.Reverse(out)
	return out
}

// PathEnd is the node of the last row of Path(n), 0 when the path has no
// rows: the row a layout marks as the tip's, found without copying the
// path.
func (p *Projection) PathEnd(n engine.NodeID) engine.NodeID {
	var end engine.NodeID
	p.walkPath(n, func(row Row) bool { end = row.Node; return false })
	return end
}

// walkPath calls f with the rows of Path(n), last first, while f says
// to go on.
func (p *Projection) walkPath(n engine.NodeID, f func(Row) bool) {
	if pt, ok := p.nodes.part(n); ok && pt.Step == "" && !pt.Checkpoint && pt.From != 0 {
		n = pt.From
	}
	for at := p.RowOf(n); at != 0; {
		pt, ok := p.nodes.part(at)
		if !ok {
			return
		}
		if row, ok := p.Row(at); ok && !f(row) {
			return
		}
		at = p.RowOf(pt.From)
	}
}

// StepsDone counts the steps done on the way to the preferred tip: every
// row of its path but the one still pending there.
func (p *Projection) StepsDone() int {
	tip, _ := p.Part(p.Tip)
	return tip.Depth
}

// GapAt is a gap with where it was recorded: the row whose attempt
// recorded it, the node it is on, and the branch.
type GapAt struct {
	GapRef
	Row    engine.NodeID
	Node   engine.NodeID
	Branch int
}

// Gaps lists every gap recorded in the run, in log order.
func (p *Projection) Gaps() []GapAt {
	var out []GapAt
	for _, row := range p.Rows {
		for _, a := range row.Attempts {
			node := a.Node
			if !a.Blocked {
				node = a.To
			}
			for _, g := range a.Recorded.Gaps {
				out = append(out, GapAt{GapRef: g, Row: row.Node, Node: node, Branch: p.BranchOf(node)})
			}
		}
	}
	if root, ok := p.nodes.part(p.Root); ok { // recorded by the start
		for _, g := range root.Arrival.Gaps {
			out = append(out, GapAt{GapRef: g, Row: root.Node, Node: root.Node, Branch: root.Branch})
		}
	}
	slices.SortFunc(out, func(a, b GapAt) int { return cmp.Compare(a.At, b.At) })
	return out
}

// OpenGaps lists the run's gaps no record resolved, worst first
// (critical before warning, then in log order).
func (p *Projection) OpenGaps() []GapAt {
	var out []GapAt
	for _, g := range p.Gaps() {
		if g.Open() {
			out = append(out, g)
		}
	}
	slices.SortStableFunc(out, WorstGapFirst)
	return out
}

// WorstGapFirst orders gaps critical first, then in log order.
func WorstGapFirst(a, b GapAt) int {
	if ca, cb := a.Severity == event.SeverityCritical, b.Severity == event.SeverityCritical; ca != cb {
		if ca {
			return -1
		}
		return 1
	}
	return cmp.Compare(a.At, b.At)
}

// OpenOnPath lists the gaps recorded on the nodes from the run's root
// down to node n that were open as of event upTo, worst first: what a
// run that ended at n leaves open. Bounded by upTo, the answer is the
// same whenever it is read.
func (p *Projection) OpenOnPath(n engine.NodeID, upTo engine.EventIndex) []GapAt {
	var out []GapAt
	for at := n; at != 0; {
		pt, ok := p.nodes.part(at)
		if !ok {
			break
		}
		for _, g := range pt.gapsOn() {
			if g.OpenAt(upTo) {
				out = append(out, GapAt{GapRef: g, Row: p.RowOf(pt.From), Node: pt.Node, Branch: pt.Branch})
			}
		}
		at = pt.From
	}
	slices.SortStableFunc(out, WorstGapFirst)
	return out
}

// gapsOn are the gaps recorded on the part's node: by the act that made
// it and by the attempts made at it.
func (pt *Part) gapsOn() []GapRef {
	out := pt.Arrival.Gaps
	for _, a := range pt.Attempts {
		out = append(slices.Clip(out), a.Facts.Gaps...)
	}
	return out
}

// PartReader reads the projection's record of one node of a run: the
// store's transaction, or memory.
type PartReader interface {
	Part(engine.RunID, engine.NodeID) (Part, error)
}

// OpenOnPathOf is what OpenOnPath answers for node n of run id, read from
// the projection's records along the path alone, with each gap's record
// read from r: the gaps a complete answer names.
func OpenOnPathOf(ps PartReader, r Reader, id engine.RunID, n engine.NodeID, upTo engine.EventIndex) ([]GapState, error) {
	var out []GapState
	for at := n; at != 0; {
		pt, err := ps.Part(id, at)
		if err != nil {
			return nil, err
		}
		for _, g := range pt.gapsOn() {
			if !g.OpenAt(upTo) {
				continue
			}
			ev, err := r.Event(g.At)
			if err != nil {
				return nil, err
			}
			d, ok := ev.Data.(*event.GapRecordedData)
			if !ok {
				return nil, notFound("gap event", g.At)
			}
			out = append(out, GapState{ID: ev.ID, CreatedAt: ev.Index, Run: ev.Run, Node: ev.Node, Gap: *d})
		}
		at = pt.From
	}
	slices.SortFunc(out, WorstFirst)
	return out, nil
}

// rowOutcome sums what the row's attempts recorded and met.
func (p *Projection) rowOutcome(row Row) Outcome {
	o := Outcome{Checkpoints: len(row.Checkpoints)}
	o.addFacts(p.StartAt(row.Node))
	for _, a := range row.Attempts {
		if a.Blocked {
			o.Blocked++
		}
		o.Refused += len(a.Refused)
		o.NotRecorded += len(a.NotRecorded)
		o.addFacts(*a.Recorded)
	}
	return o
}

// addFacts counts what one act recorded.
func (o *Outcome) addFacts(f Facts) {
	for _, g := range f.Gaps {
		switch {
		case !g.Open():
			o.ResolvedGaps++
			continue
		case g.Severity == event.SeverityCritical:
			o.Critical++
		}
		o.OpenGaps++
		if g.Reason == event.GapUserOnlyDependency {
			o.UserDependencies++
		}
	}
	o.Divergences += len(f.Divergences)
	for _, c := range f.Capabilities {
		if c.Missing {
			o.Missing++
		} else {
			o.Observed++
		}
	}
}

// Outcome sums the outcomes of every row of the run.
func (p *Projection) Outcome() Outcome {
	var o Outcome
	for _, r := range p.Rows {
		o = o.Add(r.Outcome)
	}
	return o
}
