package project

import (
	"slices"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
)

// leaf is a candidate tip: a node without children, its depth below the
// node the search started at, and its last activity over its reachable
// history (the highest event index touching any node from the run's root
// down to it).
type leaf struct {
	node     Node
	depth    int
	activity engine.EventIndex
}

// beats is the locked preferred-tip order: the higher last activity, then
// the later node_created, then the greater NodeId as text. Never a clock.
func (a leaf) beats(b leaf) bool {
	if a.activity != b.activity {
		return a.activity > b.activity
	}
	if a.node.CreatedAt != b.node.CreatedAt {
		return a.node.CreatedAt > b.node.CreatedAt
	}
	return a.node.ID.String() > b.node.ID.String()
}

// PreferredTip is the preferred tip of a run: of the leaves of its DAG,
// the one whose reachable history saw the latest activity.
func PreferredTip(r Reader, root Node) (Node, error) {
	l, err := preferredLeaf(r, root, 0)
	return l.node, err
}

// preferredLeaf returns the preferred leaf of the subtree under top;
// above is the highest last activity on the path above top.
func preferredLeaf(r Reader, top Node, above engine.EventIndex) (leaf, error) {
	type frame struct {
		n        Node
		depth    int
		activity engine.EventIndex
	}
	stack := []frame{{top, 0, max(above, top.LastActivity)}}
	var best leaf
	found := false
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if len(f.n.Children) == 0 {
			if l := (leaf{f.n, f.depth, f.activity}); !found || l.beats(best) {
				best, found = l, true
			}
			continue
		}
		for _, id := range f.n.Children {
			c, err := r.Node(id)
			if err != nil {
				return leaf{}, err
			}
			stack = append(stack, frame{c, f.depth + 1, max(f.activity, c.LastActivity)})
		}
	}
	return best, nil
}

// pathActivity is the highest last activity on the path from the run's
// root down to n, inclusive.
func pathActivity(r Reader, n Node) (engine.EventIndex, error) {
	top := n.LastActivity
	for n.Parent != 0 {
		p, err := r.Node(n.Parent)
		if err != nil {
			return 0, err
		}
		top, n = max(top, p.LastActivity), p
	}
	return top, nil
}

// WentOn says the run went on from node n's step: a step node stands
// somewhere below n. Below a node with only checkpoints under it the step
// pending at n is still pending there (a checkpoint records notes and
// advances nothing), so going on from n continues the line, and is no
// fork.
func WentOn(r Reader, n Node) (bool, error) {
	stack := slices.Clone(n.Children)
	for len(stack) > 0 {
		c, err := r.Node(stack[len(stack)-1])
		if err != nil {
			return false, err
		}
		stack = stack[:len(stack)-1]
		if c.Kind != event.NodeCheckpoint {
			return true, nil
		}
		stack = append(stack, c.Children...)
	}
	return false, nil
}
