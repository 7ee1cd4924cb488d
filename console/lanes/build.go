package lanes

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// Build lays out run id of g. Lane 0 is the path from the run's root to
// its preferred tip; every other branch folds to one stub row right after
// its fork parent's row, and two or more consecutive whole iterations of
// a loop that repeat the same steps fold to one row (the outermost loop
// that repeats; inside an iteration that does not, its inner loops fold
// the same way), unless expand holds the folded row's Node (a branch's
// first node, a loop fold's first node), which then shows every node it
// stood for, right below the node it forks from. An id in expand that
// names no folded row on show (unknown, or inside a branch still folded)
// is ignored. A fold never takes a fork parent, the tip or a branch's
// first or last node: they keep their own rows, and a loop fold splits
// around the iteration that holds them. A missing run or root is an error
// wrapping engine.ErrNotFound.
func Build(g *project.Graph, id engine.RunID, expand map[engine.NodeID]bool) (Layout, error) {
	l, _, err := Reveal(g, id, expand, 0)
	return l, err
}

// Reveal lays out run id as Build does, with whatever hides node unfolded
// too: every folded branch above it and the loop fold holding it, so the
// node has a row of its own. It returns the layout and the ids it added to
// expand, in ascending order (none when node is shown already, is 0, or
// is not a node of the run).
func Reveal(g *project.Graph, id engine.RunID, expand map[engine.NodeID]bool, node engine.NodeID) (Layout, []engine.NodeID, error) {
	r, err := g.Run(id)
	if err != nil {
		return Layout{}, nil, fmt.Errorf("lanes: %w", err)
	}
	if r.Root == 0 {
		return Layout{}, nil, fmt.Errorf("lanes: %s has no root node: %w", id, engine.ErrNotFound)
	}
	root, err := g.Node(r.Root)
	if err != nil {
		return Layout{}, nil, fmt.Errorf("lanes: root of %s: %w", id, err)
	}
	t, err := load(g, root)
	if err != nil {
		return Layout{}, nil, err
	}
	tip, err := project.PreferredTip(g, root)
	if err != nil {
		return Layout{}, nil, fmt.Errorf("lanes: tip of %s: %w", id, err)
	}
	v := t.byID[node]
	var added []engine.NodeID
	open := func(id engine.NodeID) {
		if !expand[id] {
			if len(added) == 0 {
				expand = maps.Clone(expand)
				if expand == nil {
					expand = map[engine.NodeID]bool{}
				}
			}
			expand[id] = true
			added = append(added, id)
		}
	}
	for u := v; u != nil && u.parent != nil; u = u.parent {
		if u.best != u.parent.best {
			open(u.ID)
		}
	}
	b, err := t.build(id, expand, t.byID[tip.ID])
	if err != nil {
		return Layout{}, nil, err
	}
	if v != nil && v.item == nil { // still inside a loop fold: open it
		for _, it := range b.items {
			if it.kind == LoopRow && holds(it, v) {
				open(it.first.ID)
			}
		}
		if b, err = t.build(id, expand, t.byID[tip.ID]); err != nil {
			return Layout{}, nil, err
		}
	}
	slices.Sort(added)
	return b.layout(), added, nil
}

// holds says loop fold it stands for v: v is on its line between its
// first and last node.
func holds(it *item, v *vertex) bool {
	for u := it.last; u != nil; u = u.parent {
		if u == v {
			return true
		}
		if u == it.first {
			return false
		}
	}
	return false
}

// build lays the tree out under expand.
func (t *tree) build(id engine.RunID, expand map[engine.NodeID]bool, tip *vertex) (*builder, error) {
	for _, v := range t.order {
		v.item = nil
	}
	b := &builder{t: t, run: id, expand: expand, tip: tip}
	if err := b.lay(t.order[0]); err != nil {
		return nil, err
	}
	b.emit(b.lines[0])
	for i, it := range b.items {
		it.row = i
	}
	return b, nil
}

// layout is the laid-out tree as rows, with its branches.
func (b *builder) layout() Layout {
	l := Layout{Run: b.run, Tip: b.tip.ID, Lanes: b.assignLanes()}
	l.Rows = b.rows()
	l.Branches = b.branches
	return l
}

// item is one row before the rows are ordered.
type item struct {
	kind        Kind
	first, last *vertex
	step        workflow.StepID
	folded      int
	checkpoints int // of folded, in a stub
	// a loop fold's iterations, the first of them (from 1), the steps of
	// one and its loop's depth
	iterations, iteration int
	body                  []workflow.StepID
	depth                 int
	line                  *line
	row                   int
}

// line is the nodes one lane shows: lane 0's path to the tip, an expanded
// branch's path to its preferred leaf, or a stub.
type line struct {
	top, leaf *vertex
	fork      *vertex // the fork parent; nil for lane 0
	items     []*item
	// lane is busy from row start to row end, inclusive: a branch's lane
	// from right below its fork parent, where its connector bends in.
	lane, start, end int
}

type builder struct {
	t        *tree
	run      engine.RunID
	expand   map[engine.NodeID]bool
	tip      *vertex
	lines    []*line
	items    []*item
	branches []Branch
	forks    map[*vertex][]*line // the lines laid out off each node, by branch
}

// lay turns lane 0 and every branch it reaches into items, breadth first.
func (b *builder) lay(root *vertex) error {
	b.lines = []*line{{top: root, leaf: b.tip}}
	b.forks = map[*vertex][]*line{}
	if err := b.describe(); err != nil {
		return err
	}
	for i := 0; i < len(b.lines); i++ {
		ln := b.lines[i]
		var err error
		if ln.fork != nil && !b.expand[ln.top.ID] {
			err = b.stub(ln)
		} else {
			err = b.path(ln)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (b *builder) stub(ln *line) error {
	step, _, err := b.t.pending(ln.leaf)
	if err != nil {
		return err
	}
	b.add(ln, &item{kind: StubRow, first: ln.top, last: ln.leaf, step: step, folded: ln.top.size, checkpoints: ln.top.checkpoints})
	return nil
}

// path lays out the nodes from ln.top to ln.leaf, queues the branches off
// them, and folds their loop iterations.
func (b *builder) path(ln *line) error {
	nodes := spine(ln.top, ln.leaf)
	f := &folder{b: b, ln: ln, nodes: nodes, steps: make([]workflow.StepID, len(nodes)), cursors: make([][]run.Frame, len(nodes))}
	for i, v := range nodes {
		var err error
		if f.steps[i], f.cursors[i], err = b.t.pending(v); err != nil {
			return err
		}
		for _, c := range v.forks {
			ln := &line{top: c, leaf: c.best, fork: v}
			b.lines = append(b.lines, ln)
			b.forks[v] = append(b.forks[v], ln)
		}
	}
	f.region(0, len(nodes), 0)
	return nil
}

// folder folds the loop iterations of one line's nodes. Which loop a node
// runs in, and which iteration, is its snapshot's cursor: frame d points
// at the loop of depth d (0 for a loop among the workflow's top-level
// steps) and frame d+1 counts its iterations, so nodes in one iteration
// share their cursor down to frame d+1's iteration. Step names are never
// compared to find a loop, only to tell whether iterations repeat.
type folder struct {
	b       *builder
	ln      *line
	nodes   []*vertex
	steps   []workflow.StepID
	cursors [][]run.Frame
}

// region lays out nodes lo..hi-1, which share their cursor above frame d:
// the whole line (d 0) or one iteration of a loop of depth d-1. Each run
// of nodes inside one loop of depth d is laid out by loop.
func (f *folder) region(lo, hi, d int) {
	for i := lo; i < hi; {
		if !f.inLoop(i, d) {
			f.node(i)
			i++
			continue
		}
		j := i + 1
		for j < hi && f.inLoop(j, d) && f.cursors[j][d].Index == f.cursors[i][d].Index {
			j++
		}
		f.loop(i, j, d)
		i = j
	}
}

// loop lays out nodes lo..hi-1, one run of the loop of depth d, by whole
// iterations: two or more consecutive iterations that repeat (the same
// steps in the same order) and hold only foldable nodes fold to one row,
// or show every node when that row is expanded; any other iteration is
// laid out alone, its inner loops folded the same way. An iteration with
// a fork, the line's first or last node, or fewer or other steps (a loop
// left early, a step skipped) therefore splits the fold around it.
func (f *folder) loop(lo, hi, d int) {
	for s := lo; s < hi; {
		e := f.iteration(s, hi, d)
		n, end := 1, e
		if f.foldable(s, e) {
			for end < hi {
				next := f.iteration(end, hi, d)
				if !f.foldable(end, next) || !slices.Equal(f.steps[s:e], f.steps[end:next]) {
					break
				}
				n, end = n+1, next
			}
		}
		switch {
		case n == 1:
			f.region(s, e, d+1)
		case f.b.expand[f.nodes[s].ID]:
			for i := s; i < end; i++ {
				f.node(i)
			}
		default:
			f.b.add(f.ln, &item{kind: LoopRow, first: f.nodes[s], last: f.nodes[end-1], step: f.steps[end-1], folded: end - s,
				iterations: n, iteration: f.cursors[s][d+1].Iteration + 1, body: distinct(f.steps[s:e]), depth: d})
		}
		s = end
	}
}

// inLoop says node i runs inside a loop of depth d.
func (f *folder) inLoop(i, d int) bool { return len(f.cursors[i]) > d+1 }

// iteration returns the end of the iteration of the loop of depth d that
// node s starts, no further than hi.
func (f *folder) iteration(s, hi, d int) int {
	e := s + 1
	for e < hi && f.cursors[e][d+1].Iteration == f.cursors[s][d+1].Iteration {
		e++
	}
	return e
}

// foldable says a fold may take nodes s..e-1. A fold never takes a line's
// first or last node, nor a node with branches: their rows (and the stubs
// under them) always show, and a fold's Node is never a branch's first
// node. Nor does it take a checkpoint: notes an agent chose to record
// between steps stay in sight.
func (f *folder) foldable(s, e int) bool {
	if s == 0 || e == len(f.nodes) {
		return false
	}
	for _, v := range f.nodes[s:e] {
		if len(v.Children) != 1 || v.Kind == event.NodeCheckpoint {
			return false
		}
	}
	return true
}

// node gives node i its own row.
func (f *folder) node(i int) {
	it := &item{kind: NodeRow, first: f.nodes[i], last: f.nodes[i], step: f.steps[i]}
	f.nodes[i].item = it
	f.b.add(f.ln, it)
}

// distinct is steps without repeats, in the order they first appear.
func distinct(steps []workflow.StepID) []workflow.StepID {
	var out []workflow.StepID
	for _, s := range steps {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func (b *builder) add(ln *line, it *item) {
	it.line = ln
	ln.items = append(ln.items, it)
}

// emit orders the rows: a line's rows top to bottom, and right below a
// node's row the rows of the branches that leave it, each whole, in the
// order they were created. A branch is drawn beside the node it forks
// from, however much later it was made.
func (b *builder) emit(ln *line) {
	for _, it := range ln.items {
		b.items = append(b.items, it)
		if it.kind == NodeRow {
			for _, br := range b.forks[it.first] {
				b.emit(br)
			}
		}
	}
}

// assignLanes gives lane 0 to the path to the tip and every other line
// the lowest lane free over its rows, taking lines in the order they
// start; a lane is free again below the last row of the line that used
// it. Lane 0 is never reused. It returns the number of lanes.
func (b *builder) assignLanes() int {
	for _, ln := range b.lines {
		ln.start, ln.end = ln.items[0].row, ln.items[len(ln.items)-1].row
		if ln.fork != nil {
			ln.start = ln.fork.item.row + 1
		}
	}
	others := slices.Clone(b.lines[1:])
	slices.SortStableFunc(others, func(x, y *line) int {
		return cmp.Or(cmp.Compare(x.start, y.start), cmp.Compare(x.items[0].row, y.items[0].row))
	})
	busy := []int{len(b.items)} // the last row of each lane's latest line
	for _, ln := range others {
		ln.lane = len(busy)
		for l := 1; l < len(busy); l++ {
			if busy[l] < ln.start {
				ln.lane = l
				break
			}
		}
		if ln.lane == len(busy) {
			busy = append(busy, 0)
		}
		busy[ln.lane] = ln.end
	}
	return len(busy)
}

// rows turns the ordered items into rows with their connections and the
// lanes passing by.
func (b *builder) rows() []Row {
	g := b.t.g
	rows := make([]Row, len(b.items))
	for i, it := range b.items {
		rows[i] = Row{Kind: it.kind, Lane: it.line.lane, Node: it.first.ID, Last: it.last.ID, Parent: it.first.Parent,
			Step: it.step, Folded: it.folded, Checkpoints: it.checkpoints, Iterations: it.iterations, FirstIteration: it.iteration, Body: it.body, LoopDepth: it.depth,
			Tip:      it.kind == NodeRow && it.first == b.tip,
			NodeKind: it.first.Kind, ForkedFrom: g.ForkedFrom(it.first.Node), ForksOf: g.ForksOf(it.first.Node), Branch: it.first.branch,
			Ends: it.last.best == it.last}
		rows[i].Edge, _ = g.Edge(it.first.ID)
	}
	for _, ln := range b.lines {
		if ln.fork != nil {
			from := &rows[ln.fork.item.row]
			from.Out = append(from.Out, Link{Row: ln.items[0].row, Lane: ln.lane})
		}
		for k := 1; k < len(ln.items); k++ {
			from := &rows[ln.items[k-1].row]
			from.Out = append(from.Out, Link{Row: ln.items[k].row, Lane: ln.lane})
		}
		for r := ln.start; r <= ln.end; r++ {
			if b.items[r].line != ln {
				rows[r].Through = append(rows[r].Through, ln.lane)
			}
		}
	}
	for i := range rows {
		slices.SortFunc(rows[i].Out, func(x, y Link) int { return cmp.Compare(x.Row, y.Row) })
		slices.Sort(rows[i].Through)
	}
	return rows
}
