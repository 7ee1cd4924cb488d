package project

import (
	"testing"

	"github.com/workrail/workrail/engine"
)

// TestNodeIndex finds every part and row of runs whose nodes fill their
// range (a table) and runs spread thin over it among other runs' nodes
// (a map), and nothing for a node the run does not hold.
func TestNodeIndex(t *testing.T) {
	for _, tt := range []struct {
		name  string
		nodes []engine.NodeID
		table bool
	}{
		{"none", nil, false},
		{"one", []engine.NodeID{7}, true},
		{"dense", []engine.NodeID{1, 2, 3, 4, 6, 7, 9}, true},
		{"gaps within the bound", []engine.NodeID{10, 40, 75}, true},
		{"thin", []engine.NodeID{1, 500, 1000, 4000}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			parts := make([]*Part, len(tt.nodes))
			for i, n := range tt.nodes {
				parts[i] = &Part{Node: n}
			}
			x := newNodeIndex(parts)
			if got := x.table != nil; got != tt.table {
				t.Errorf("table = %v, want %v", got, tt.table)
			}
			rows := map[engine.NodeID]int{}
			for i, n := range tt.nodes {
				if i%2 == 0 {
					rows[n] = len(rows)
					x.setRow(n, rows[n])
				}
			}
			held := map[engine.NodeID]bool{}
			for _, n := range tt.nodes {
				held[n] = true
			}
			for n := engine.NodeID(0); n < 4100; n++ {
				pt, ok := x.part(n)
				if ok != held[n] || ok && pt.Node != n {
					t.Errorf("part(%d) = %v, %v; held: %v", n, pt, ok, held[n])
				}
				want, wantOK := rows[n]
				if i, ok := x.row(n); ok != wantOK || i != want && ok {
					t.Errorf("row(%d) = %d, %v; want %d, %v", n, i, ok, want, wantOK)
				}
			}
		})
	}
}
