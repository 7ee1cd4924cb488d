package lanes

import (
	"fmt"
	"slices"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/project"
)

// vertex is one row of the projection with what the layout derives of
// it.
type vertex struct {
	*project.Row // the projection's, not a copy
	parent       *vertex
	// next is the row continuing this one on its branch; forks the rows
	// of the branches made from it, in the order they were made.
	next  *vertex
	forks []*vertex
	// kids are next (when there is one), then forks: what children
	// returns, made once.
	kids []*vertex
	size int // rows in the subtree, this one included
	cps  int // checkpoints in the subtree
	// onPath is the row below this one on the line being laid out.
	onPath *vertex
	item   *item // the row showing this one, when it has its own
}

// tree is a run's rows, parents before children.
type tree struct {
	p     *project.Projection
	order []*vertex
	root  *vertex
	// tip is the row of the run's preferred tip: the row it is on, or
	// the row the run completed from.
	tip *vertex
}

// load builds the tree of p's rows. A row that names a parent the run
// does not hold is an error: the walk never loops.
func load(p *project.Projection) (*tree, error) {
	t := &tree{p: p, order: make([]*vertex, len(p.Rows))}
	vs := make([]vertex, len(p.Rows)) // one allocation for every row
	for i := range p.Rows {
		r := &p.Rows[i]
		v := &vs[i]
		v.Row, v.size, v.cps = r, 1, len(r.Checkpoints)
		t.order[i] = v
	}
	for _, v := range t.order { // rows are in creation order: parents first
		if v.Parent == 0 {
			if t.root != nil {
				return nil, fmt.Errorf("lanes: %s has two first rows, %s and %s", p.Run, t.root.Node, v.Node)
			}
			t.root = v
			continue
		}
		pv := t.byID(v.Parent)
		if pv == nil || pv.Node >= v.Node {
			return nil, fmt.Errorf("lanes: %s was made from %s, which is not an earlier row of %s", v.Node, v.Parent, p.Run)
		}
		v.parent = pv
		if pv.Next == v.Node {
			pv.next = v
		} else {
			pv.forks = append(pv.forks, v)
		}
	}
	if t.root == nil {
		return nil, fmt.Errorf("lanes: %s has no first row: %w", p.Run, engine.ErrNotFound)
	}
	t.tip = t.byID(p.PathEnd(p.Tip))
	kids := make([]*vertex, 0, len(t.order)) // every row but the first is one row's kid: one allocation for all
	for i := len(t.order) - 1; i >= 0; i-- { // children before parents
		v := t.order[i]
		if v.parent != nil {
			v.parent.size += v.size
			v.parent.cps += v.cps
		}
		v.kids = v.forks
		if v.next != nil {
			start := len(kids)
			kids = append(append(kids, v.next), v.forks...)
			v.kids = kids[start:len(kids):len(kids)]
		}
	}
	return t, nil
}

// byID is the vertex of the row node n heads; nil for none.
func (t *tree) byID(n engine.NodeID) *vertex {
	if i, ok := t.p.RowIndex(n); ok {
		return t.order[i]
	}
	return nil
}

// children are v's rows below it: its branch's next, then its forks.
func (v *vertex) children() []*vertex { return v.kids }

// line is the rows from top down its branch to the branch's last row.
func (t *tree) line(top *vertex) []*vertex {
	var out []*vertex
	for v := top; v != nil; v = v.next {
		out = append(out, v)
	}
	return out
}

// tipPath is the rows from the first row down to the tip's row: the
// projection's Path, walked up the tree's parents.
func (t *tree) tipPath() []*vertex {
	var out []*vertex
	for v := t.tip; v != nil; v = v.parent {
		out = append(out, v)
	}
	slices.Reverse(out)
	return out
}
