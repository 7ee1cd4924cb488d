package secrets

import (
	"math"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
)

// Go's regular expressions cost about 200 ns a byte on gitleaks' broadest
// rule (generic-api-key, whose keywords are words like "key" and "token"
// that ordinary notes are full of). A rule's expression is therefore run
// only where its secret could be, read off the expression itself:
//
//   - a rule that needs an entropy above e needs more than 2^e distinct
//     characters in its secret, all from the characters its secret group
//     allows (one alphabet per alternative of the group);
//   - the secret starts with the group's first characters (or literal);
//   - when the group follows, in the expression, something that must
//     match at least one character (as generic-api-key's "=" or ":"),
//     the text just before the secret (past what may be skipped) must end
//     with one of that part's last characters.
//
// Each condition only narrows where a match can be, never changes one,
// and a rule whose expression does not allow the reading runs on the
// whole text.

// gate is where a rule's secret can be.
type gate struct {
	min    int // distinct characters the secret needs
	alts   []alt
	before *context // nil: no condition on what precedes the secret
}

// alt is one alternative of the secret group.
type alt struct {
	abc    alphabet
	first  alphabet // its first character
	prefix string   // a literal it starts with, "" for none
}

// context is what must precede the secret: at most skipMax characters of
// skip, and before them one of anchor.
type context struct {
	skip    alphabet
	skipMax int
	anchor  alphabet
	// words, when not empty: one of them (in lower case) ends at most
	// dist bytes before the secret.
	words  []string
	finder *wordSet // finds words
	dist   int
}

// gateOf reads a rule's gate off its expression; nil when the rule needs
// no entropy or the expression does not allow the reading.
func gateOf(r rule) *gate {
	if r.entropy <= 0 {
		return nil
	}
	re, err := syntax.Parse(r.regex.String(), syntax.Perl)
	if err != nil {
		return nil
	}
	var caps []*syntax.Regexp
	collectCaps(re, r.secretGroup, &caps)
	g := &gate{min: int(math.Floor(math.Pow(2, r.entropy))) + 1}
	if len(caps) == 0 {
		caps = []*syntax.Regexp{re} // no group: the whole match
	}
	for _, c := range caps {
		if c.Op == syntax.OpCapture {
			c = c.Sub[0]
		}
		alts := []*syntax.Regexp{c}
		if c.Op == syntax.OpAlternate {
			alts = c.Sub
		}
		for _, sub := range alts {
			a, ok := altOf(sub)
			if !ok {
				return nil
			}
			g.alts = append(g.alts, a)
		}
	}
	if len(caps) == 1 && caps[0].Op == syntax.OpCapture {
		g.before = contextOf(re, caps[0])
	}
	return g
}

func altOf(re *syntax.Regexp) (alt, bool) {
	var a alt
	if !a.abc.add(re) {
		return a, false
	}
	first, _, ok := edge(re, false)
	if !ok {
		return a, false
	}
	a.first = first
	lit := re
	if re.Op == syntax.OpConcat && len(re.Sub) > 0 {
		lit = re.Sub[0]
	}
	if lit.Op == syntax.OpLiteral && lit.Flags&syntax.FoldCase == 0 {
		a.prefix = string(lit.Rune)
	}
	return a, true
}

// contextOf reads what precedes capture c in expression re: the parts of
// the top-level sequence before it that may match nothing, then the
// first that may not. nil when c is not in the top-level sequence, a
// skipped part is unbounded, or nothing must precede c.
func contextOf(re, c *syntax.Regexp) *context {
	if re.Op != syntax.OpConcat {
		return nil
	}
	i := 0
	for i < len(re.Sub) && re.Sub[i] != c {
		i++
	}
	ctx := &context{}
	for j := i - 1; j >= 0; j-- {
		part := re.Sub[j]
		if minLen(part) > 0 {
			last, _, ok := edge(part, true)
			if !ok {
				return nil
			}
			ctx.anchor = last
			ctx.words, ctx.dist = wordsBefore(re.Sub[:j+1], ctx.skipMax)
			if len(ctx.words) > 0 {
				ctx.finder = newWordSet(ctx.words)
			}
			return ctx
		}
		n := maxLen(part)
		if n < 0 || !ctx.skip.add(part) {
			return nil
		}
		ctx.skipMax += n
	}
	return nil
}

// wordsBefore looks, from the end of parts back, for a part that matches
// one of a few literals (as generic-api-key's keywords) after only
// bounded parts; dist is how far before the secret such a literal can
// end (skipped is the bound already past the end of parts).
func wordsBefore(parts []*syntax.Regexp, skipped int) ([]string, int) {
	dist := skipped
	for j := len(parts) - 1; j >= 0; j-- {
		if ws, ok := literals(parts[j]); ok && !slices.Contains(ws, "") {
			return ws, dist
		}
		n := maxLen(parts[j])
		if n < 0 {
			return nil, 0
		}
		dist += n
	}
	return nil, 0
}

// maxLiterals bounds the literals one part may expand to.
const maxLiterals = 64

// literals is every string re matches, in lower case, when they are few.
func literals(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}, true
	case syntax.OpEmptyMatch:
		return []string{""}, true
	case syntax.OpCharClass:
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for c := re.Rune[i]; c <= re.Rune[i+1]; c++ {
				if len(out) == 8 {
					return nil, false
				}
				out = append(out, strings.ToLower(string(c)))
			}
		}
		return out, true
	case syntax.OpCapture:
		return literals(re.Sub[0])
	case syntax.OpQuest:
		ws, ok := literals(re.Sub[0])
		return append(ws, ""), ok
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			ws, ok := literals(sub)
			if !ok || len(out)+len(ws) > maxLiterals {
				return nil, false
			}
			out = append(out, ws...)
		}
		return out, true
	case syntax.OpConcat:
		out := []string{""}
		for _, sub := range re.Sub {
			ws, ok := literals(sub)
			if !ok || len(out)*len(ws) > maxLiterals {
				return nil, false
			}
			var next []string
			for _, a := range out {
				for _, b := range ws {
					next = append(next, a+b)
				}
			}
			out = next
		}
		return out, true
	}
	return nil, false
}

// wordEnds lists, in order, where c's words end in the text (lower, in
// lower case; nil when c has no words).
func (c *context) wordEnds(lower []byte) []int {
	if c.finder == nil {
		return nil
	}
	var ends []int
	c.finder.each(lower, func(end, _ int) bool {
		ends = append(ends, end)
		return true
	})
	return ends
}

// nearWord reports whether one of c's words ends at most c.dist bytes
// before p (always, when c has no words).
func (c *context) nearWord(ends []int, p int) bool {
	if len(c.words) == 0 {
		return true
	}
	i, _ := slices.BinarySearch(ends, p-c.dist)
	return i < len(ends) && ends[i] <= p
}

// edge is the set of characters re's matches can start with (last:
// end with), whether re can match the empty string, and false when it
// cannot tell.
func edge(re *syntax.Regexp, last bool) (alphabet, bool, bool) {
	var a alphabet
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return a, true, true
		}
		c := re.Rune[0]
		if last {
			c = re.Rune[len(re.Rune)-1]
		}
		a.addRange(c, c)
		if re.Flags&syntax.FoldCase != 0 {
			for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
				a.addRange(f, f)
			}
		}
		return a, false, true
	case syntax.OpCharClass:
		a.add(re)
		return a, false, true
	case syntax.OpEmptyMatch, syntax.OpBeginText, syntax.OpEndText, syntax.OpBeginLine, syntax.OpEndLine,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return a, true, true
	case syntax.OpCapture, syntax.OpPlus:
		return edge(re.Sub[0], last)
	case syntax.OpStar, syntax.OpQuest:
		s, _, ok := edge(re.Sub[0], last)
		return s, true, ok
	case syntax.OpRepeat:
		s, nullable, ok := edge(re.Sub[0], last)
		return s, nullable || re.Min == 0, ok
	case syntax.OpAlternate:
		nullable := false
		for _, sub := range re.Sub {
			s, n, ok := edge(sub, last)
			if !ok {
				return a, false, false
			}
			a.union(s)
			nullable = nullable || n
		}
		return a, nullable, true
	case syntax.OpConcat:
		subs := re.Sub
		for k := range subs {
			sub := subs[k]
			if last {
				sub = subs[len(subs)-1-k]
			}
			s, n, ok := edge(sub, last)
			if !ok {
				return a, false, false
			}
			a.union(s)
			if !n {
				return a, false, true
			}
		}
		return a, true, true
	}
	return a, false, false
}

// minLen is the fewest characters re matches.
func minLen(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpPlus:
		return minLen(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min * minLen(re.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			n += minLen(sub)
		}
		return n
	case syntax.OpAlternate:
		n := math.MaxInt
		for _, sub := range re.Sub {
			n = min(n, minLen(sub))
		}
		return n
	}
	return 0
}

// maxLen is the most characters re matches, -1 for no bound.
func maxLen(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpQuest:
		return maxLen(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		return -1
	case syntax.OpRepeat:
		n := maxLen(re.Sub[0])
		if re.Max < 0 || n < 0 {
			return -1
		}
		return re.Max * n
	case syntax.OpConcat, syntax.OpAlternate:
		n := 0
		for _, sub := range re.Sub {
			m := maxLen(sub)
			if m < 0 {
				return -1
			}
			if re.Op == syntax.OpConcat {
				n += m
			} else {
				n = max(n, m)
			}
		}
		return n
	}
	return 0
}

// collectCaps finds the capture group numbered n, or every group when n
// is 0 (the secret is then the first group that matched).
func collectCaps(re *syntax.Regexp, n int, out *[]*syntax.Regexp) {
	if re.Op == syntax.OpCapture && (n == 0 || re.Cap == n) {
		*out = append(*out, re)
	}
	for _, sub := range re.Sub {
		collectCaps(sub, n, out)
	}
}

// starts lists, by start, where in text the rule's secret can be: each
// a place it can start and the end of the run of its alphabet there. It
// looks first where fewest places are: after each anchor character when
// something must precede the secret, at each occurrence of its literal
// prefix when it has one, else along every run of its alphabet.
func (g *gate) starts(text string, lower []byte) []span {
	var out []span
	var ends []int
	if g.before != nil {
		ends = g.before.wordEnds(lower)
	}
	for _, a := range g.alts {
		switch {
		case g.before != nil:
			out = g.afterAnchors(out, a, text, ends)
		case a.prefix != "":
			for i := 0; ; i++ {
				k := strings.Index(text[i:], a.prefix)
				if k < 0 {
					break
				}
				i += k
				out = g.at(out, a, text, i)
			}
		default:
			out = g.inRuns(out, a, text)
		}
	}
	slices.SortFunc(out, func(x, y span) int { return x.start - y.start })
	return out
}

// afterAnchors adds the secrets of a that can start after an anchor
// character and at most skipMax skipped ones (and, when the context has
// words, not too far after one: ends are where they end in text).
func (g *gate) afterAnchors(out []span, a alt, text string, ends []int) []span {
	c := g.before
	for j := 0; j < len(text); j++ {
		if !c.anchor.has(text[j]) {
			continue
		}
		word := 0 // 1: a word is near enough, -1: none is (read once)
		for p := j + 1; p < len(text) && p <= j+1+c.skipMax; p++ {
			if a.first.has(text[p]) {
				if word == 0 {
					word = -1
					if c.nearWord(ends, min(len(text), j+1+c.skipMax)) {
						word = 1
					}
				}
				if word > 0 {
					out = g.at(out, a, text, p)
				}
			}
			if !c.skip.has(text[p]) {
				break
			}
		}
	}
	return out
}

// at adds the secret of a that can start at p, if one can.
func (g *gate) at(out []span, a alt, text string, p int) []span {
	if !a.first.has(text[p]) || !strings.HasPrefix(text[p:], a.prefix) {
		return out
	}
	end := p
	var seen [128]bool
	n := 0
	for ; end < len(text) && a.abc.has(text[end]); end++ {
		switch c := text[end]; {
		case c >= 128:
			n = g.min
		case !seen[c]:
			seen[c] = true
			n++
		}
	}
	if n < g.min {
		return out
	}
	return append(out, span{p, end})
}

// inRuns adds, for each run of a's alphabet, the secret that can start
// at the first place in it that fits.
func (g *gate) inRuns(out []span, a alt, text string) []span {
	var suffix []int
	for i := 0; i < len(text); {
		if !a.abc.has(text[i]) {
			i++
			continue
		}
		end := i
		for end < len(text) && a.abc.has(text[end]) {
			end++
		}
		if end-i >= g.min {
			suffix = distinctSuffix(suffix[:0], text[i:end])
			for p := i; p < end && suffix[p-i] >= g.min; p++ {
				if a.first.has(text[p]) {
					out = append(out, span{p, end})
					break
				}
			}
		}
		i = end
	}
	return out
}

// distinctSuffix lists, for each position of run, how many distinct bytes
// the run holds from there on (every byte outside ASCII counts as many).
func distinctSuffix(out []int, run string) []int {
	out = append(out, make([]int, len(run))...)
	var seen [128]bool
	n := 0
	for i := len(run) - 1; i >= 0; i-- {
		switch c := run[i]; {
		case c >= 128:
			n = len(run) + 128
		case !seen[c]:
			seen[c] = true
			n++
		}
		out[i] = n
	}
	return out
}
