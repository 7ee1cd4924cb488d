package lanes

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// vertex is one node of the run's tree with what the layout derives of it.
type vertex struct {
	project.Node
	parent *vertex
	// activity is the highest last activity from the run's root down to
	// here: the preferred-tip rule's measure of a leaf.
	activity engine.EventIndex
	best     *vertex // the preferred leaf of the subtree under this node
	size     int     // nodes in the subtree, this one included
	next     *vertex // the child continuing this node's line; nil at its end
	item     *item   // the row showing this node, when it has its own
	// branch is the index in Layout.Branches of the branch this node is
	// on; forks are the branches that leave it, in the order their first
	// nodes were created.
	branch int
	forks  []*vertex

	checkpoints int // the checkpoint nodes in the subtree
}

// tree is the nodes reachable from a run's root, parents before children.
type tree struct {
	g     *project.Graph
	byID  map[engine.NodeID]*vertex
	order []*vertex
	tops  []*vertex // the first node of each branch, by branch index
}

// load walks the run's tree from root. A child that names another parent,
// or is reached twice, is an error: the walk never loops.
func load(g *project.Graph, root project.Node) (*tree, error) {
	t := &tree{g: g, byID: map[engine.NodeID]*vertex{}}
	t.add(root, nil)
	for i := 0; i < len(t.order); i++ {
		v := t.order[i]
		for _, id := range v.Children {
			c, err := g.Node(id)
			if err != nil {
				return nil, fmt.Errorf("lanes: child of %s: %w", v.ID, err)
			}
			if c.Parent != v.ID || t.byID[id] != nil {
				return nil, fmt.Errorf("lanes: %s is listed under %s but its parent is %s", id, v.ID, c.Parent)
			}
			t.add(c, v)
		}
	}
	for i := len(t.order) - 1; i >= 0; i-- { // children before parents
		v := t.order[i]
		if v.best == nil {
			v.best = v
		}
		if p := v.parent; p != nil {
			p.size += v.size
			p.checkpoints += v.checkpoints
			if p.best == nil || beats(v.best, p.best) {
				p.best = v.best
			}
		}
	}
	t.branches()
	return t, nil
}

// branches splits the tree into branches, each the path from its first
// node down to the preferred leaf under it: the root's branch ends at the
// run's preferred tip, and a child whose preferred leaf is not its
// parent's starts a branch of its own. The split follows the preferred-
// tip rule alone, never how the page folds, so a branch keeps its index
// (its letter) whatever is expanded. Indexes follow node_created of the
// branches' first nodes: the root's branch is 0.
func (t *tree) branches() {
	t.tops = t.tops[:0]
	for _, v := range t.order {
		if v.parent == nil || v.best != v.parent.best {
			t.tops = append(t.tops, v)
		}
	}
	slices.SortFunc(t.tops, func(a, b *vertex) int { return cmp.Compare(a.CreatedAt, b.CreatedAt) })
	for i, v := range t.tops {
		v.branch = -1 - i // marks a top until the walk below
	}
	for _, v := range t.order { // parents before children
		switch {
		case v.branch < 0:
			v.branch = -1 - v.branch
			if v.parent != nil {
				v.parent.forks = append(v.parent.forks, v)
			}
		case v.parent != nil:
			v.branch = v.parent.branch
		}
	}
	for _, v := range t.order {
		slices.SortFunc(v.forks, func(a, b *vertex) int { return cmp.Compare(a.CreatedAt, b.CreatedAt) })
	}
}

func (t *tree) add(n project.Node, parent *vertex) {
	v := &vertex{Node: n, parent: parent, activity: n.LastActivity, size: 1}
	if n.Kind == event.NodeCheckpoint {
		v.checkpoints = 1
	}
	if parent != nil {
		v.activity = max(parent.activity, n.LastActivity)
	}
	t.byID[n.ID] = v
	t.order = append(t.order, v)
}

// beats is the locked preferred-tip order (DESIGN §5), the same as
// project's: the higher activity over the leaf's reachable history, then
// the later node_created, then the greater node id as text.
func beats(a, b *vertex) bool {
	if a.activity != b.activity {
		return a.activity > b.activity
	}
	if a.CreatedAt != b.CreatedAt {
		return a.CreatedAt > b.CreatedAt
	}
	return a.ID.String() > b.ID.String()
}

// spine links the nodes from top down to leaf through next and returns
// them in that order.
func spine(top, leaf *vertex) []*vertex {
	n := 1
	for v := leaf; v != top; v = v.parent {
		v.parent.next = v
		n++
	}
	out := make([]*vertex, 0, n)
	for v := top; v != nil; v = v.next {
		out = append(out, v)
	}
	return out
}

// pending reads the step waiting at v ("" when v is complete) and the
// cursor that reaches it: one frame per level, so a cursor of more than
// one frame is inside a loop (nil when v is complete).
func (t *tree) pending(v *vertex) (workflow.StepID, []run.Frame, error) {
	s, err := t.g.Snapshot(v.Snapshot)
	if err != nil {
		return "", nil, fmt.Errorf("lanes: snapshot of %s: %w", v.ID, err)
	}
	if s.Position.Kind != run.Pending {
		return "", nil, nil
	}
	return s.Position.Step, s.Position.Path, nil
}
