package engine

import "strings"

// Closest returns the entry of known that s most likely misspells, or ""
// when none is close: at most two edits (and fewer than half of s's
// length, so short words do not match everything), or a prefix of at least
// four characters. Comparison ignores case.
func Closest(s string, known []string) string {
	ls := strings.ToLower(s)
	best, bestD := "", 3
	for _, k := range known {
		lk := strings.ToLower(k)
		d := distance(ls, lk)
		if 2*d >= len(ls) {
			d = 3
		}
		if len(ls) >= 4 && len(lk) >= 4 && (strings.HasPrefix(lk, ls) || strings.HasPrefix(ls, lk)) {
			d = min(d, 2)
		}
		if d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// distance is the Levenshtein edit distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
