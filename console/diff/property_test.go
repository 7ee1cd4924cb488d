package diff_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/workrail/workrail/console/diff"
)

// randomText is up to maxLines lines drawn from a small alphabet, so that
// equal lines recur and the diff has choices to make; the final newline
// is there three times in four.
func randomText(r *rand.Rand, maxLines int, alphabet []string) string {
	n := r.IntN(maxLines + 1)
	lines := make([]string, n)
	for i := range lines {
		lines[i] = alphabet[r.IntN(len(alphabet))]
	}
	s := strings.Join(lines, "\n")
	if n > 0 && r.IntN(4) > 0 {
		s += "\n"
	}
	return s
}

// mutate edits a few lines of s: deletes, inserts and replacements.
func mutate(r *rand.Rand, s string, alphabet []string) string {
	lines := strings.Split(s, "\n")
	for range r.IntN(5) {
		i := r.IntN(len(lines) + 1)
		switch r.IntN(3) {
		case 0:
			if i < len(lines) {
				lines = append(lines[:i], lines[i+1:]...)
			}
		case 1:
			lines = append(lines[:i], append([]string{alphabet[r.IntN(len(alphabet))]}, lines[i:]...)...)
		default:
			if i < len(lines) {
				lines[i] = alphabet[r.IntN(len(alphabet))]
			}
		}
	}
	return strings.Join(lines, "\n")
}

// lcs is the length of a longest common subsequence of the lines of a and
// b, by the textbook table.
func lcs(a, b []textLine) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// checkShape checks what diff -u promises of hunks besides applying: every
// hunk has a change, at most context lines of context at either end, and
// more than 2*context equal lines lie between two hunks.
func checkShape(hunks []diff.Hunk, context int) error {
	for k, h := range hunks {
		lead, trail, changed := 0, 0, false
		for _, l := range h.Lines {
			switch {
			case l.Op != diff.OpSame:
				changed, trail = true, 0
			case changed:
				trail++
			default:
				lead++
			}
		}
		if !changed || lead > context || trail > context {
			return fmt.Errorf("hunk %d: changed %v, %d leading and %d trailing context lines, context %d", k, changed, lead, trail, context)
		}
		if k > 0 {
			p := hunks[k-1]
			gap := (from0(h) + lead) - (from0(p) + p.FromCount - trailOf(p))
			if gap <= 2*context {
				return fmt.Errorf("hunks %d and %d are %d equal lines apart, context %d", k-1, k, gap, context)
			}
		}
	}
	return nil
}

// from0 is the 0-based index in a of a hunk's first line (a zero-line
// range names the line before it).
func from0(h diff.Hunk) int {
	if h.FromCount == 0 {
		return h.FromLine
	}
	return h.FromLine - 1
}

func trailOf(h diff.Hunk) int {
	n := 0
	for i := len(h.Lines) - 1; i >= 0 && h.Lines[i].Op == diff.OpSame; i-- {
		n++
	}
	return n
}

// TestApplyRandom is the property: for random a and b and any context,
// applying Lines(a, b) to a gives b exactly; the diff is a shortest one
// (these edit distances are far below the cost bound); the hunks have the
// shape diff -u gives them; and the same inputs give the same hunks again.
func TestApplyRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabets := [][]string{
		{"a", "b"},
		{"a", "b", "c", "", "{", "}", "},"},
		{"x", "y", "z", "w", "v", "u", "t", "s", "r", "q"},
	}
	for iter := range 3000 {
		alphabet := alphabets[iter%len(alphabets)]
		a := randomText(r, 40, alphabet)
		b := randomText(r, 40, alphabet)
		if iter%2 == 0 {
			b = mutate(r, a, alphabet) // near a: few edits, long common runs
		}
		context := r.IntN(5)
		hunks := diff.Lines(a, b, context)
		got, err := apply(a, hunks)
		if err != nil || got != b {
			t.Fatalf("a=%q b=%q context %d: apply = %q, %v\n%s", a, b, context, got, err, diff.Unified("a", "b", hunks))
		}
		if err := checkShape(hunks, context); err != nil {
			t.Fatalf("a=%q b=%q context %d: %v\n%s", a, b, context, err, diff.Unified("a", "b", hunks))
		}
		la, lb := splitText(a), splitText(b)
		edits := 0
		for _, h := range hunks {
			for _, l := range h.Lines {
				if l.Op != diff.OpSame {
					edits++
				}
			}
		}
		if want := len(la) + len(lb) - 2*lcs(la, lb); edits != want {
			t.Fatalf("a=%q b=%q: %d lines deleted and added, the shortest diff has %d\n%s", a, b, edits, want, diff.Unified("a", "b", hunks))
		}
		if again := diff.Unified("a", "b", diff.Lines(a, b, context)); again != diff.Unified("a", "b", hunks) {
			t.Fatalf("a=%q b=%q: two runs differ", a, b)
		}
		if h := diff.Lines(a, a, context); h != nil {
			t.Fatalf("a=%q against itself: %d hunks", a, len(h))
		}
	}
}

// TestApplyLarge applies diffs of large documents, including ones far past
// the cost bound, where the diff is no longer the shortest but must still
// be right.
func TestApplyLarge(t *testing.T) {
	doc := jsonDoc(2000, 1)
	cases := []struct{ name, a, b string }{
		{"few edits", doc, editDoc(doc)},
		{"unrelated", doc, jsonDoc(2000, 2)},
		{"shuffled", doc, shuffleLines(doc, 3)},
		{"reversed", doc, reverseLines(doc)},
		{"against empty", doc, ""},
		{"from empty", "", doc},
		{"many small edits", doc, manyEdits(doc, 400)},
		{"repetitive", strings.Repeat("{\n}\n", 1500), strings.Repeat("}\n{\n", 1500)},
		{"alternating", strings.Repeat("a\nb\n", 1500), strings.Repeat("b\nb\na\n", 1000)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hunks := diff.Lines(c.a, c.b, 3)
			got, err := apply(c.a, hunks)
			if err != nil || got != c.b {
				t.Fatalf("apply: %v (equal to b: %v)", err, got == c.b)
			}
			if err := checkShape(hunks, 3); err != nil {
				t.Fatal(err)
			}
		})
	}
}
