package lanes_test

import (
	"testing"

	"github.com/workrail/workrail/console/lanes"
	"github.com/workrail/workrail/engine"
)

// BenchmarkLayout1000 lays out a run of 1,000 nodes with a fork every 50
// steps, every branch folded (the run page's first view).
func BenchmarkLayout1000(b *testing.B) {
	f := big(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := lanes.Build(f.p, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLayout1000SVG adds drawing the SVG.
func BenchmarkLayout1000SVG(b *testing.B) {
	f := big(b)
	b.ReportAllocs()
	for b.Loop() {
		l, err := lanes.Build(f.p, nil)
		if err != nil {
			b.Fatal(err)
		}
		_ = l.SVG()
	}
}

// BenchmarkLayout1000Loop3 lays out a run of 1,000 nodes that is one loop
// of plan → edit → test: 333 iterations, 332 of them folded.
func BenchmarkLayout1000Loop3(b *testing.B) {
	f := bigLoop3(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := lanes.Build(f.p, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLayout1000Loop3Expanded lays out the same run with its fold
// open: 1,000 rows.
func BenchmarkLayout1000Loop3Expanded(b *testing.B) {
	f := bigLoop3(b)
	expand := map[engine.NodeID]bool{f.expand[0]: true}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := lanes.Build(f.p, expand); err != nil {
			b.Fatal(err)
		}
	}
}
