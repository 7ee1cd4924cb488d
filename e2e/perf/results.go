package main

import (
	"bufio"
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
)

// key names one benchmark: its package's import path and its full name
// (sub-benchmarks included) without the -GOMAXPROCS suffix.
type key struct{ pkg, name string }

// results holds every value a benchmark reported, by unit, one per run
// (-count), in the order the runs printed them.
type results struct {
	cpu   string // go test's "cpu:" line
	bench map[key]map[string][]float64
}

// parse reads `go test -bench` output. procs is the GOMAXPROCS the
// benchmarks ran with: go test appends "-procs" to every name when it is
// not 1, and parse takes it off. Lines that are not results (logs, PASS,
// ok) are skipped.
func parse(out string, procs int) results {
	r := results{bench: map[key]map[string][]float64{}}
	suffix := ""
	if procs != 1 {
		suffix = "-" + strconv.Itoa(procs)
	}
	var pkg string
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "pkg: "); ok {
			pkg = strings.TrimSpace(v)
			continue
		}
		if v, ok := strings.CutPrefix(line, "cpu: "); ok {
			r.cpu = strings.TrimSpace(v)
			continue
		}
		name, metrics, ok := resultLine(line)
		if !ok {
			continue
		}
		k := key{pkg, strings.TrimSuffix(name, suffix)}
		if r.bench[k] == nil {
			r.bench[k] = map[string][]float64{}
		}
		for unit, v := range metrics {
			r.bench[k][unit] = append(r.bench[k][unit], v)
		}
	}
	return r
}

// resultLine splits "BenchmarkX-2  100  123 ns/op  4.5 median-ms" into
// its name and its values by unit.
func resultLine(line string) (string, map[string]float64, bool) {
	f := strings.Fields(line)
	if len(f) < 4 || len(f)%2 != 0 || !strings.HasPrefix(f[0], "Benchmark") {
		return "", nil, false
	}
	if _, err := strconv.ParseInt(f[1], 10, 64); err != nil {
		return "", nil, false
	}
	m := map[string]float64{}
	for i := 2; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return "", nil, false
		}
		m[f[i+1]] = v
	}
	return f[0], m, true
}

// median is the middle value of vs, or the mean of the two middle ones
// when their number is even.
func median(vs []float64) float64 {
	s := slices.Sorted(slices.Values(vs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// p99 is the nearest-rank 99th percentile: the ⌈0.99·n⌉-th smallest of
// vs, which for n ≤ 100 is the largest.
func p99(vs []float64) float64 {
	s := slices.Sorted(slices.Values(vs))
	return s[int(math.Ceil(0.99*float64(len(s))))-1]
}

// packages lists the packages of r, sorted.
func (r results) packages() []string {
	var ps []string
	for k := range r.bench {
		if !slices.Contains(ps, k.pkg) {
			ps = append(ps, k.pkg)
		}
	}
	slices.Sort(ps)
	return ps
}

// names lists the benchmarks of pkg, sorted with numbers in their names
// compared as numbers (clients=8 before clients=32).
func (r results) names(pkg string) []string {
	var ns []string
	for k := range r.bench {
		if k.pkg == pkg {
			ns = append(ns, k.name)
		}
	}
	slices.SortFunc(ns, natural)
	return ns
}

// natural compares a and b piece by piece, runs of digits by their
// value; names equal that way ("n=007", "n=7") compare as text, so no two
// names tie and the order is the same on every run.
func natural(a, b string) int { return cmp.Or(byPieces(a, b), strings.Compare(a, b)) }

// byPieces compares a and b piece by piece, runs of digits by their
// value.
func byPieces(a, b string) int {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := cmp.Or(cmp.Compare(len(na), len(nb)), strings.Compare(na, nb)); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

// digits is the length of the run of ASCII digits s starts with.
func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}
