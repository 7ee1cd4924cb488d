package project

import "github.com/workrail/workrail/engine"

// nodeIndex finds a run's parts, and the rows they head, by node id.
// Node ids are handed out in order within a session, so a run's nodes
// are nearly all of a range: a table over that range answers with an
// index, not a hash. A run whose nodes are spread thin over the range
// (other runs of its session made most of the nodes in it) is kept in
// a map instead.
type nodeIndex struct {
	first engine.NodeID
	// table holds, for node first+i, its part's index in parts plus 1
	// (0: no part) and its row's index plus 1 (0: no row).
	table []nodeEntry
	m     map[engine.NodeID]nodeEntry // when the range is thin
	parts []*Part                     // by node id
}

type nodeEntry struct{ part, row int32 }

// newNodeIndex indexes parts, sorted by node id.
func newNodeIndex(sorted []*Part) nodeIndex {
	x := nodeIndex{parts: sorted}
	if len(sorted) == 0 {
		return x
	}
	x.first = sorted[0].Node
	if span := int(sorted[len(sorted)-1].Node-x.first) + 1; span <= 2*len(sorted)+64 {
		x.table = make([]nodeEntry, span)
	} else {
		x.m = make(map[engine.NodeID]nodeEntry, len(sorted))
	}
	for i, pt := range sorted {
		x.set(pt.Node, nodeEntry{part: int32(i) + 1})
	}
	return x
}

func (x *nodeIndex) entry(n engine.NodeID) nodeEntry {
	if x.m != nil {
		return x.m[n]
	}
	if n >= x.first && int(n-x.first) < len(x.table) {
		return x.table[n-x.first]
	}
	return nodeEntry{}
}

func (x *nodeIndex) set(n engine.NodeID, e nodeEntry) {
	if x.m != nil {
		x.m[n] = e
		return
	}
	x.table[n-x.first] = e
}

// part is node n's part.
func (x *nodeIndex) part(n engine.NodeID) (*Part, bool) {
	if e := x.entry(n); e.part > 0 {
		return x.parts[e.part-1], true
	}
	return nil, false
}

// row is the index in Rows of the row node n heads.
func (x *nodeIndex) row(n engine.NodeID) (int, bool) {
	e := x.entry(n)
	return int(e.row) - 1, e.row > 0
}

// setRow notes that node n heads row i.
func (x *nodeIndex) setRow(n engine.NodeID, i int) {
	e := x.entry(n)
	e.row = int32(i) + 1
	x.set(n, e)
}
