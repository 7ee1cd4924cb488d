package secrets

import (
	"regexp/syntax"
	"slices"
	"unicode"
)

// Go's regular expressions cost about 300 ns a byte on gitleaks' broadest
// rule (generic-api-key, whose keywords are words like "key" and "token"
// that ordinary notes are full of), so a rule whose secret needs many
// distinct characters and no white space is run only near the runs of
// text that could hold one: from two lines above such a run (an
// assignment may be split over lines, as in YAML) to the end of its line.

// Go's regular expressions cost about 200 ns a byte on gitleaks' broadest
// rule (generic-api-key, whose keywords are words like "key" and "token"
// that ordinary notes are full of). A rule that needs an entropy above e
// can only match where its secret has more than 2^e distinct characters,
// all from the characters its secret group allows (one alphabet per
// alternative of the group). Such a rule is run only near the runs of
// text that could hold its secret: from two lines above a run (an
// assignment may be split over lines, as in YAML) to the end of its line.

// span is a run of bytes of one alphabet and how many distinct bytes it
// holds (every byte outside ASCII counts as many: runes are not counted).
type span struct {
	start, end, distinct int
}

// lookBack is how many lines above a run its rule's match may start.
const lookBack = 2

// alphabet is the set of characters a rule's secret may be made of.
// Bytes outside ASCII are in it as one: they are never counted.
type alphabet struct {
	in      [128]bool
	unicode bool
}

// add adds the characters re can match; false when it cannot tell (an
// operator that matches any character, or an empty-width one).
func (a *alphabet) add(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return false
	case syntax.OpLiteral:
		for _, c := range re.Rune {
			a.addRange(c, c)
			if re.Flags&syntax.FoldCase != 0 {
				for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
					a.addRange(f, f)
				}
			}
		}
		return true
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			a.addRange(re.Rune[i], re.Rune[i+1])
		}
		return true
	case syntax.OpEmptyMatch, syntax.OpBeginText, syntax.OpEndText, syntax.OpBeginLine, syntax.OpEndLine,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true // matches no character
	}
	for _, sub := range re.Sub {
		if !a.add(sub) {
			return false
		}
	}
	return true
}

func (a *alphabet) addRange(lo, hi rune) {
	for c := lo; c <= hi && c < 128; c++ {
		a.in[c] = true
	}
	if hi >= 128 {
		a.unicode = true
	}
}

func (a *alphabet) has(c byte) bool {
	if c >= 128 {
		return a.unicode
	}
	return a.in[c]
}

// runs lists the maximal runs of text made of one of the rule's
// alphabets that hold at least its minDistinct characters, in order of
// start.
func (r *rule) runs(text string) []span {
	var out []span
	for _, a := range r.alphabets {
		out = a.runs(out, text, r.minDistinct)
	}
	slices.SortFunc(out, func(x, y span) int { return x.start - y.start })
	return out
}

// runs adds the maximal runs of text made of a's characters that hold at
// least min distinct ones.
func (a *alphabet) runs(out []span, text string, min int) []span {
	var seen [128]bool
	start := -1
	distinct := 0
	for i := 0; i <= len(text); i++ {
		if i == len(text) || !a.has(text[i]) {
			if start >= 0 && distinct >= min {
				out = append(out, span{start, i, distinct})
			}
			if start >= 0 {
				start, distinct, seen = -1, 0, [128]bool{}
			}
			continue
		}
		if start < 0 {
			start = i
		}
		switch c := text[i]; {
		case c >= 128:
			distinct = len(text)
		case !seen[c]:
			seen[c] = true
			distinct++
		}
	}
	return out
}

// windows are the stretches of text a gated rule is run on: around every
// run, merged where they overlap.
func windows(text string, runs []span) []span {
	var out []span
	for _, r := range runs {
		w := span{start: linesAbove(text, r.start, lookBack), end: lineEnd(text, r.end)}
		if n := len(out); n > 0 && w.start <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, w.end)
			continue
		}
		out = append(out, w)
	}
	return out
}

// linesAbove is where the line n lines above the one holding i starts.
func linesAbove(text string, i, n int) int {
	for ; i > 0; i-- {
		if text[i-1] == '\n' {
			if n == 0 {
				return i
			}
			n--
		}
	}
	return 0
}

// lineEnd is just past the newline ending the line holding i (or the
// text's end): a rule may need the newline after its secret.
func lineEnd(text string, i int) int {
	for ; i < len(text); i++ {
		if text[i] == '\n' {
			return i + 1
		}
	}
	return len(text)
}
