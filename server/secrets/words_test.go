package secrets

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// found is what wordSet.each reports, as end:word pairs.
func found(w *wordSet, text string) []string {
	var out []string
	w.each([]byte(text), func(end, word int) bool {
		out = append(out, text[:end]+"|"+string(rune('0'+word)))
		return true
	})
	return out
}

// naive is every occurrence of every word, by a search per word, ordered
// as each promises: by end, longest first (of equal words, the last).
func naive(words []string, text string) []string {
	type hit struct{ end, word int }
	var hits []hit
	last := map[string]int{}
	for i, w := range words {
		last[w] = i
	}
	for i, w := range words {
		if w == "" || last[w] != i {
			continue
		}
		for at := 0; at+len(w) <= len(text); at++ {
			if text[at:at+len(w)] == w {
				hits = append(hits, hit{at + len(w), i})
			}
		}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if a.end != b.end {
			return a.end - b.end
		}
		return len(words[b.word]) - len(words[a.word])
	})
	var out []string
	for _, h := range hits {
		out = append(out, text[:h.end]+"|"+string(rune('0'+h.word)))
	}
	return out
}

func TestWordSet(t *testing.T) {
	for _, tc := range []struct {
		words []string
		text  string
		want  []string
	}{
		{[]string{"he", "she", "his", "hers"}, "ushers", []string{"ushe|1", "ushe|0", "ushers|3"}},
		{[]string{"key", "api_key"}, "my_api_key=1", []string{"my_api_key|1", "my_api_key|0"}},
		{[]string{"a", "a"}, "aa", []string{"a|1", "aa|1"}},
		{[]string{"", "x"}, "xx", []string{"x|1", "xx|1"}},
		{[]string{"token"}, "no such word", nil},
		{nil, "anything", nil},
	} {
		if got := found(newWordSet(tc.words), tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("%q in %q: %q, want %q", tc.words, tc.text, got, tc.want)
		}
	}
}

// Random words over a small alphabet overlap as prefixes and suffixes of
// one another in every way; each set is held to a search per word.
func TestWordSetAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	word := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte("abcAB_"[r.IntN(6)])
		}
		return b.String()
	}
	for range 2000 {
		words := make([]string, r.IntN(8))
		for i := range words {
			words[i] = word(r.IntN(5))
		}
		text := word(r.IntN(40))
		w := newWordSet(words)
		if got, want := found(w, text), naive(words, text); !slices.Equal(got, want) {
			t.Fatalf("%q in %q: %q, want %q", words, text, got, want)
		}
		if got, want := w.any(text), len(naive(words, text)) > 0; got != want {
			t.Fatalf("any(%q) over %q: %v", text, words, got)
		}
	}
}
