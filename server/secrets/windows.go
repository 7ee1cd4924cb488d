package secrets

import (
	"regexp/syntax"
	"unicode"
)

// span is a stretch [start, end) of a text.
type span struct{ start, end int }

// lookBack is how many lines above its secret a rule's match may start
// (an assignment may be split over lines, as in YAML).
const lookBack = 2

// windows are the stretches of text a gated rule is run on: from
// lookBack lines above where its secret can be to the end of the line
// where it can end, merged where they overlap.
func windows(text string, secrets []span) []span {
	var out []span
	for _, r := range secrets {
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

func (a *alphabet) union(b alphabet) {
	for c, in := range b.in {
		a.in[c] = a.in[c] || in
	}
	a.unicode = a.unicode || b.unicode
}
