package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/workrail/workrail/engine/golden"
)

func TestQuantiles(t *testing.T) {
	for _, c := range []struct {
		name        string
		vs          []float64
		median, p99 float64
	}{
		{"one run", []float64{7}, 7, 7},
		{"odd", []float64{3, 1, 2}, 2, 3},
		{"even: the middle two", []float64{4, 1, 3, 2}, 2.5, 4},
		{"five: p99 is the max", []float64{5, 1, 4, 2, 3}, 3, 5},
		{"six", []float64{6, 1, 5, 2, 4, 3}, 3.5, 6},
		{"101: p99 is the 100th", seq(101), 51, 100},
		{"200: p99 is the 198th", seq(200), 100.5, 198},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := median(c.vs); got != c.median {
				t.Errorf("median = %v, want %v", got, c.median)
			}
			if got := p99(c.vs); got != c.p99 {
				t.Errorf("p99 = %v, want %v", got, c.p99)
			}
		})
	}
}

// seq is 1, 2, …, n.
func seq(n int) []float64 {
	vs := make([]float64, n)
	for i := range vs {
		vs[i] = float64(i + 1)
	}
	return vs
}

func TestParse(t *testing.T) {
	raw, err := os.ReadFile("testdata/run.txt")
	if err != nil {
		t.Fatal(err)
	}
	r := parse(string(raw), 2)
	if r.cpu != "Test CPU @ 1.00GHz" {
		t.Errorf("cpu = %q", r.cpu)
	}
	for _, c := range []struct {
		k    key
		unit string
		want []float64
	}{
		{floorBench, "ns/op", []float64{2e6, 4e6, 3e6}},
		{key{"github.com/workrail/workrail/store", "BenchmarkAdvance"}, "dbB/step", []float64{1234, 1236}},
		{key{"github.com/workrail/workrail/e2e", "BenchmarkMCPThroughput/clients=32"}, "ops/s", []float64{1223}},
		{key{"github.com/workrail/workrail/e2e", "BenchmarkDaemonStart/sessions=10000"}, "samples", []float64{7}},
	} {
		got := r.bench[c.k][c.unit]
		if len(got) != len(c.want) {
			t.Errorf("%v %s = %v, want %v", c.k, c.unit, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%v %s = %v, want %v", c.k, c.unit, got, c.want)
			}
		}
	}
	if n := len(r.bench); n != 5 {
		t.Errorf("%d benchmarks parsed, want 5: %v", n, r.bench)
	}
}

func TestResultLine(t *testing.T) {
	for _, c := range []struct {
		line string
		ok   bool
	}{
		{"BenchmarkX-2  100  12 ns/op", true},
		{"BenchmarkX-2  100  12 ns/op  3 B/op  1 allocs/op", true},
		{"BenchmarkX-2  100", false},                       // no value
		{"BenchmarkX-2  100  12", false},                   // a value without a unit
		{"BenchmarkX-2  many  12 ns/op", false},            // not an iteration count
		{"BenchmarkX-2  100  fast ns/op", false},           // not a number
		{"    x_test.go:3: BenchmarkX 100 1 ns/op", false}, // a log line
		{"--- BENCH: BenchmarkX-2", false},
	} {
		if _, _, ok := resultLine(c.line); ok != c.ok {
			t.Errorf("resultLine(%q) ok = %v, want %v", c.line, ok, c.ok)
		}
	}
}

func TestNumber(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {7, "7"}, {1223.4, "1223"}, {140.9, "141"}, {22.63, "22.6"}, {9.071, "9.07"}, {0.0123, "0.0123"},
	} {
		if got := number(c.v); got != c.want {
			t.Errorf("number(%v) = %q, want %q", c.v, got, c.want)
		}
	}
	if got := duration(3.5e6); got != "3.50 ms" {
		t.Errorf("duration(3.5e6) = %q", got)
	}
	if got := bytesOf(22577); got != "22.0 KiB" {
		t.Errorf("bytesOf(22577) = %q", got)
	}
}

func TestNatural(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"BenchmarkX/clients=8", "BenchmarkX/clients=32", -1},
		{"BenchmarkX/step=500", "BenchmarkX/step=5", 1},
		{"BenchmarkX/sessions=0", "BenchmarkX/sessions=10000", -1},
		{"BenchmarkLayout1000", "BenchmarkLayout1000SVG", -1},
		{"BenchmarkA", "BenchmarkB", -1},
		// Equal by value, so compared as text: no two names tie.
		{"BenchmarkX/n=007", "BenchmarkX/n=7", -1},
		{"BenchmarkX/n=7", "BenchmarkX/n=007", 1},
		{"BenchmarkSame", "BenchmarkSame", 0},
	} {
		if got := natural(c.a, c.b); got != c.want {
			t.Errorf("natural(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// TestPage renders testdata/run.txt on a fixed machine and compares the
// page with testdata/page.md (go test ./e2e/perf -update rewrites it).
func TestPage(t *testing.T) {
	raw, err := os.ReadFile("testdata/run.txt")
	if err != nil {
		t.Fatal(err)
	}
	m := machine{nproc: 2, memory: "23.5 GiB (MemTotal)", goVer: "go1.26.8 linux amd64", kernel: "6.18.44", commit: "0123456789ab",
		date: "2026-01-02", command: "go run ./e2e/perf -count=3 -pkg=./... -bench=. -throughput=30s",
		commands: []string{"go test -run=NONE -bench=. -benchmem -count=3 -timeout=0 github.com/workrail/workrail/store"}}
	got := page(parse(string(raw), 2), m, 3, "github.com/workrail/workrail", "performance.txt", "")
	golden.Check(t, filepath.Join("testdata", "page.md"), []byte(got))
	// Rendering twice gives the same page: map order does not leak.
	if again := page(parse(string(raw), 2), m, 3, "github.com/workrail/workrail", "performance.txt", ""); again != got {
		t.Error("two renderings of the same run differ")
	}
}
