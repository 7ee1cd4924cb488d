package lanes_test

import (
	"testing"

	"github.com/workrail/workrail/console/lanes"
)

// BenchmarkLayout1000 lays out a run of 1,000 nodes with a fork every 50
// steps, every branch folded (the run page's first view).
func BenchmarkLayout1000(b *testing.B) {
	f := big(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := lanes.Build(f.g, f.run, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLayout1000SVG adds drawing the SVG.
func BenchmarkLayout1000SVG(b *testing.B) {
	f := big(b)
	b.ReportAllocs()
	for b.Loop() {
		l, err := lanes.Build(f.g, f.run, nil)
		if err != nil {
			b.Fatal(err)
		}
		_ = l.SVG()
	}
}
