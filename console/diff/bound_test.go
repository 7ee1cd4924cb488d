package diff

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// kept is the lines of ls not marked changed, in order.
func kept(ls []line, changed []bool) []line {
	var out []line
	for i, l := range ls {
		if !changed[i] {
			out = append(out, l)
		}
	}
	return out
}

// commonKept checks the lines ca and cb leave unchanged are a common
// subsequence of a and b: the same lines in the same order.
func commonKept(a, b []line, ca, cb []bool) error {
	ka, kb := kept(a, ca), kept(b, cb)
	if len(ka) != len(kb) {
		return fmt.Errorf("%d lines of a kept, %d of b", len(ka), len(kb))
	}
	for i := range ka {
		if ka[i] != kb[i] {
			return fmt.Errorf("kept line %d is %v in a, %v in b", i, ka[i], kb[i])
		}
	}
	return nil
}

// TestCostBound runs the search with tiny cost bounds, so that nearly
// every split goes through furthest, and checks the result is still a
// common subsequence, and that the bound does make some diffs longer than
// the shortest.
func TestCostBound(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	alphabet := []line{{text: "a"}, {text: "b"}, {text: "c"}, {text: "{"}, {text: "}"}, {text: "x"}, {text: "y"}}
	random := func() []line {
		ls := make([]line, r.IntN(60))
		for i := range ls {
			ls[i] = alphabet[r.IntN(len(alphabet))]
		}
		return ls
	}
	longer := 0
	for iter := range 4000 {
		a, b := random(), random()
		limit := 1 + iter%4
		ca, cb := changes(a, b, limits{cost: limit, work: bounds.work})
		if err := commonKept(a, b, ca, cb); err != nil {
			t.Fatalf("cost %d, a=%v b=%v: %v", limit, a, b, err)
		}
		ea, _ := changes(a, b, bounds)
		if len(kept(a, ea)) > len(kept(a, ca)) {
			longer++
		}
	}
	if longer == 0 {
		t.Error("a cost bound of 1 to 4 never gave a longer diff: the bound is not reached")
	}
}

// TestWorkBudget runs the search with work budgets from none to plenty
// and checks the result is always a common subsequence, and that a small
// budget gives up where the full one finds more.
func TestWorkBudget(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	alphabet := []line{{text: "a"}, {text: "b"}, {text: "c"}, {text: "d"}, {text: "e", noEOL: true}}
	random := func() []line {
		ls := make([]line, 1+r.IntN(80))
		for i := range ls {
			ls[i] = alphabet[r.IntN(len(alphabet)-1)]
		}
		if r.IntN(2) == 0 {
			ls[len(ls)-1] = alphabet[len(alphabet)-1]
		}
		return ls
	}
	gaveUp := 0
	for iter := range 3000 {
		a, b := random(), random()
		work := []int{0, 1, 10, 100, 1000}[iter%5]
		ca, cb := changes(a, b, limits{cost: bounds.cost, work: work})
		if err := commonKept(a, b, ca, cb); err != nil {
			t.Fatalf("work %d, a=%v b=%v: %v", work, a, b, err)
		}
		if ea, _ := changes(a, b, bounds); len(kept(a, ea)) > len(kept(a, ca)) {
			gaveUp++
		}
	}
	if gaveUp == 0 {
		t.Error("the work budget never cut a search short")
	}
}

// TestSplitInside checks every split point furthest returns lies inside its
// box and is not one of its corners, for random boxes and small bounds.
func TestSplitInside(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 2000 {
		n, m := 1+r.IntN(40), 1+r.IntN(40)
		a, b := make([]int, n), make([]int, m)
		for i := range a {
			a[i] = r.IntN(4)
		}
		for i := range b {
			b[i] = r.IntN(4)
		}
		// split expects the box's ends to differ, as compare leaves them.
		if a[0] == b[0] || a[n-1] == b[m-1] {
			continue
		}
		size := n + m + 3
		s := searcher{a: a, b: b, fd: make([]int, size), bd: make([]int, size), off: m + 1, cost: 1 + r.IntN(3), work: bounds.work}
		x, y := s.split(0, n, 0, m)
		if x < 0 || x > n || y < 0 || y > m || (x == 0 && y == 0) || (x == n && y == m) {
			t.Fatalf("a=%v b=%v limit %d: split at (%d, %d)", a, b, s.cost, x, y)
		}
	}
}
