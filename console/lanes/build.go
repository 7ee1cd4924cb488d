package lanes

import (
	"cmp"
	"maps"
	"slices"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// Build lays out run p. Lane 0 is the path from the run's first row to
// the row of its preferred tip; every other line (a branch's rows from
// the row where it leaves lane 0 or another line) folds to one stub row
// right after the row it left, and two or more consecutive whole
// iterations of a loop that repeat the same steps fold to one row (the
// outermost loop that repeats; inside an iteration that does not, its
// inner loops fold the same way), unless expand holds the folded row's
// Node (a line's first row, a loop fold's first row), which then shows
// every row it stood for. An id in expand that names no folded row on
// show is ignored. A fold never takes a row other lines leave, a row
// with checkpoints, the tip's row or a line's first or last row: they
// keep their own rows, and a loop fold splits around the iteration that
// holds them. A run without rows is an error wrapping
// engine.ErrNotFound.
func Build(p *project.Projection, expand map[engine.NodeID]bool) (Layout, error) {
	l, _, err := Reveal(p, expand, 0)
	return l, err
}

// Reveal lays out run p as Build does, with whatever hides node (a row's
// node, or one of its checkpoints) unfolded too: every folded line above
// it and the loop fold holding it, so its row has a row of its own. It
// returns the layout and the ids it added to expand, in ascending order
// (none when the row is shown already, node is 0, or not of the run).
func Reveal(p *project.Projection, expand map[engine.NodeID]bool, node engine.NodeID) (Layout, []engine.NodeID, error) {
	t, err := load(p)
	if err != nil {
		return Layout{}, nil, err
	}
	b := &builder{t: t, p: p, expand: expand}
	b.lay()
	v := t.byID(p.RowOf(node))
	var added []engine.NodeID
	open := func(id engine.NodeID) {
		if !b.expand[id] {
			if len(added) == 0 {
				b.expand = maps.Clone(b.expand)
				if b.expand == nil {
					b.expand = map[engine.NodeID]bool{}
				}
			}
			b.expand[id] = true
			added = append(added, id)
		}
	}
	for v != nil && v.item == nil { // inside a folded line or loop fold: open it, a level at a time
		opened := false
		for _, it := range b.items {
			if it.holds(v) {
				open(it.first.Node)
				opened = true
			}
		}
		if !opened {
			break
		}
		b.lay()
	}
	slices.Sort(added)
	return b.layout(), added, nil
}

// item is one row before the rows are ordered.
type item struct {
	kind        Kind
	first, last *vertex
	// rows folded, with the checkpoints on them
	folded, checkpoints int
	// a loop fold's iterations, the first of them (from 1), the steps of
	// one and its loop's depth
	iterations, iteration int
	body                  []workflow.StepID
	depth                 int
	line                  *line
	row                   int
	// members are the rows a fold stands for.
	members []*vertex
}

// holds says a folded item stands for v.
func (it *item) holds(v *vertex) bool { return it.kind != NodeRow && slices.Contains(it.members, v) }

// line is the rows one lane shows: lane 0's path to the tip, an
// expanded line's rows down its branch, or a stub.
type line struct {
	rows  []*vertex
	fork  *vertex // the row it leaves; nil for lane 0
	items []*item
	// lane is busy from row start to row end, inclusive: a line's lane
	// from right below the row it leaves, where its connector bends in.
	lane, start, end int
}

type builder struct {
	t      *tree
	p      *project.Projection
	expand map[engine.NodeID]bool
	lines  []*line
	items  []*item
	forks  map[*vertex][]*line // the lines laid out off each row
	// free are items made ahead, a block at a time, for the next rows:
	// a 1,000-row run makes a few blocks, not a thousand items.
	free []item
}

// newItem is it, stored in a block made ahead.
func (b *builder) newItem(it item) *item {
	if len(b.free) == 0 {
		b.free = make([]item, 64)
	}
	p := &b.free[0]
	b.free = b.free[1:]
	*p = it
	return p
}

// lay turns lane 0 and every line it reaches into items, breadth first,
// then orders them.
func (b *builder) lay() {
	for _, v := range b.t.order {
		v.item, v.onPath = nil, nil
	}
	b.lines, b.items, b.forks = nil, nil, map[*vertex][]*line{}
	b.lines = []*line{{rows: b.t.tipPath()}}
	for i := 0; i < len(b.lines); i++ {
		ln := b.lines[i]
		if ln.fork != nil && !b.expand[ln.rows[0].Node] {
			b.stub(ln)
		} else {
			b.path(ln)
		}
	}
	b.emit(b.lines[0])
	for i, it := range b.items {
		it.row = i
	}
}

func (b *builder) stub(ln *line) {
	top := ln.rows[0]
	it := &item{kind: StubRow, first: top, last: ln.rows[len(ln.rows)-1], folded: top.size, checkpoints: top.cps}
	var walk func(v *vertex)
	walk = func(v *vertex) {
		it.members = append(it.members, v)
		for _, c := range v.children() {
			walk(c)
		}
	}
	walk(top)
	b.add(ln, it)
}

// path lays out a line's rows, queues the lines leaving them, and folds
// their loop iterations.
func (b *builder) path(ln *line) {
	for i, v := range ln.rows {
		if i+1 < len(ln.rows) {
			v.onPath = ln.rows[i+1]
		}
		for _, c := range v.children() {
			if c == v.onPath {
				continue
			}
			off := &line{rows: b.t.line(c), fork: v}
			b.lines = append(b.lines, off)
			b.forks[v] = append(b.forks[v], off)
		}
	}
	f := &folder{b: b, ln: ln}
	f.region(0, len(ln.rows), 0)
}

// folder folds the loop iterations of one line's rows. Which loop a row
// runs in, and which iteration, is its cursor: frame d points at the loop
// of depth d (0 for a loop among the workflow's top-level steps) and
// frame d+1 counts its iterations, so rows in one iteration share their
// cursor down to frame d+1's iteration. Step names are never compared to
// find a loop, only to tell whether iterations repeat.
type folder struct {
	b  *builder
	ln *line
}

func (f *folder) at(i int) []run.Frame       { return f.ln.rows[i].At }
func (f *folder) step(i int) workflow.StepID { return f.ln.rows[i].Step }
func (f *folder) steps(s, e int) []workflow.StepID {
	out := make([]workflow.StepID, 0, e-s)
	for i := s; i < e; i++ {
		out = append(out, f.step(i))
	}
	return out
}

// region lays out rows lo..hi-1, which share their cursor above frame
// d: the whole line (d 0) or one iteration of a loop of depth d-1. Each
// run of rows inside one loop of depth d is laid out by loop.
func (f *folder) region(lo, hi, d int) {
	for i := lo; i < hi; {
		if !f.inLoop(i, d) {
			f.row(i)
			i++
			continue
		}
		j := i + 1
		for j < hi && f.inLoop(j, d) && f.at(j)[d].Index == f.at(i)[d].Index {
			j++
		}
		f.loop(i, j, d)
		i = j
	}
}

// loop lays out rows lo..hi-1, one run of the loop of depth d, by whole
// iterations: two or more consecutive iterations that repeat (the same
// steps in the same order) and hold only foldable rows fold to one row,
// or show every row when that row is expanded; any other iteration is
// laid out alone, its inner loops folded the same way.
func (f *folder) loop(lo, hi, d int) {
	for s := lo; s < hi; {
		e := f.iteration(s, hi, d)
		n, end := 1, e
		if f.foldable(s, e) {
			for end < hi {
				next := f.iteration(end, hi, d)
				if !f.foldable(end, next) || !slices.Equal(f.steps(s, e), f.steps(end, next)) {
					break
				}
				n, end = n+1, next
			}
		}
		switch {
		case n == 1:
			f.region(s, e, d+1)
		case f.b.expand[f.ln.rows[s].Node]:
			for i := s; i < end; i++ {
				f.row(i)
			}
		default:
			f.b.add(f.ln, &item{kind: LoopRow, first: f.ln.rows[s], last: f.ln.rows[end-1], folded: end - s,
				iterations: n, iteration: f.at(s)[d+1].Iteration + 1, body: distinct(f.steps(s, e)), depth: d,
				members: slices.Clone(f.ln.rows[s:end])})
		}
		s = end
	}
}

// inLoop says row i runs inside a loop of depth d.
func (f *folder) inLoop(i, d int) bool { return len(f.at(i)) > d+1 }

// iteration returns the end of the iteration of the loop of depth d that
// row s starts, no further than hi.
func (f *folder) iteration(s, hi, d int) int {
	e := s + 1
	for e < hi && len(f.at(e)) > d+1 && f.at(e)[d+1].Iteration == f.at(s)[d+1].Iteration {
		e++
	}
	return e
}

// foldable says a fold may take rows s..e-1. A fold never takes a line's
// first or last row, a row other lines leave (their stubs always show
// under it), a row with checkpoints (notes an agent chose to record
// during a step stay in sight) or the tip's.
func (f *folder) foldable(s, e int) bool {
	if s == 0 || e == len(f.ln.rows) {
		return false
	}
	for _, v := range f.ln.rows[s:e] {
		if len(v.children()) > 1 || len(v.Checkpoints) > 0 || v == f.b.t.tip {
			return false
		}
	}
	return true
}

// row gives row i its own row.
func (f *folder) row(i int) {
	v := f.ln.rows[i]
	it := f.b.newItem(item{kind: NodeRow, first: v, last: v})
	v.item = it
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
// row the lines that leave it, each whole, in the order they were made.
func (b *builder) emit(ln *line) {
	for _, it := range ln.items {
		b.items = append(b.items, it)
		if it.kind == NodeRow {
			for _, off := range b.forks[it.first] {
				b.emit(off)
			}
		}
	}
}

// layout is the laid-out tree as rows, with the run's branches.
func (b *builder) layout() Layout {
	l := Layout{Run: b.p.Run, Tip: b.p.Tip, Lanes: b.assignLanes()}
	l.Rows = b.rows()
	l.Branches = describe(b.p, b.t)
	return l
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
	tipPart, _ := b.p.Part(b.p.Tip)
	rows := make([]Row, len(b.items))
	for i, it := range b.items {
		r := Row{Kind: it.kind, Lane: it.line.lane, Node: it.first.Node, Last: it.last.Node, Parent: it.first.Parent,
			Step: it.last.Step, At: it.first.At, Folded: it.folded, Checkpoints: it.checkpoints, Iterations: it.iterations, FirstIteration: it.iteration,
			Body: it.body, LoopDepth: it.depth, Branch: it.first.Branch, Ends: it.last.next == nil || it.kind == StubRow}
		if it.kind == NodeRow {
			v := it.first
			r.Checkpoints, r.Forks = len(v.Checkpoints), len(v.Forks)
			r.Tip = v == b.t.tip
			r.TipCheckpoint = r.Tip && tipPart.Checkpoint
			next, _ := b.p.Part(v.Next)
			r.Complete = v.Next != 0 && next.Step == "" && !next.Checkpoint
		}
		r.Starts = r.Branch > 0 && it.first.Starts
		rows[i] = r
	}
	b.links(rows)
	for i := range rows {
		slices.SortFunc(rows[i].Out, func(x, y Link) int { return cmp.Compare(x.Row, y.Row) })
		slices.Sort(rows[i].Through)
	}
	return rows
}

// links fills each row's Out and Through. Each row's are carved from
// one block, counted first, so rows do not each grow their own.
func (b *builder) links(rows []Row) {
	outs, throughs := make([]int, len(rows)), make([]int, len(rows))
	nOut, nThrough := 0, 0
	b.eachLink(func(from int, _ Link) { outs[from]++; nOut++ }, func(r, _ int) { throughs[r]++; nThrough++ })
	out, through := make([]Link, nOut), make([]int, nThrough)
	for i := range rows {
		if outs[i] > 0 {
			rows[i].Out, out = out[:0:outs[i]], out[outs[i]:]
		}
		if throughs[i] > 0 {
			rows[i].Through, through = through[:0:throughs[i]], through[throughs[i]:]
		}
	}
	b.eachLink(func(from int, l Link) { rows[from].Out = append(rows[from].Out, l) },
		func(r, lane int) { rows[r].Through = append(rows[r].Through, lane) })
}

// eachLink calls out with each link from a row to the next of its line
// (and from a fork's row to its line's first), and through with each
// row a line passes by on its lane.
func (b *builder) eachLink(out func(from int, l Link), through func(row, lane int)) {
	for _, ln := range b.lines {
		if ln.fork != nil {
			out(ln.fork.item.row, Link{Row: ln.items[0].row, Lane: ln.lane})
		}
		for k := 1; k < len(ln.items); k++ {
			out(ln.items[k-1].row, Link{Row: ln.items[k].row, Lane: ln.lane})
		}
		for r := ln.start; r <= ln.end; r++ {
			if b.items[r].line != ln {
				through(r, ln.lane)
			}
		}
	}
}
