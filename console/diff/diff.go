package diff

import "strings"

// Op is the closed set of things a line of a hunk can be.
type Op string

// The ops, written as the first column of a unified diff line.
const (
	// OpSame: a context line, in both texts.
	OpSame Op = " "
	// OpDel: a line of a that is not in b.
	OpDel Op = "-"
	// OpAdd: a line of b that is not in a.
	OpAdd Op = "+"
)

// Ops lists every op in a fixed order.
func Ops() []Op {
	return []Op{OpSame, OpDel, OpAdd}
}

// Line is one line of a hunk: its op and its text without the newline.
// NoEOL is set on the last line of a text that does not end in "\n".
type Line struct {
	Op    Op
	Text  string
	NoEOL bool
}

// Hunk is one block of a unified diff: the lines of a from FromLine, and of
// b from ToLine, with their context. Line numbers are 1-based as in
// `diff -u`, and as there, a range of zero lines names the line before it:
// inserting three lines at the top of b is FromLine 0, FromCount 0, ToLine 1,
// ToCount 3.
type Hunk struct {
	FromLine, FromCount int
	ToLine, ToCount     int
	Lines               []Line
}

// Lines is the diff of a and b (each split on "\n", see the package
// comment), as hunks with context lines of context around each change; a
// negative context counts as 0. Changes whose context would touch or overlap
// (at most 2*context equal lines apart) share one hunk, as in diff -u. Equal
// texts have no hunks.
func Lines(a, b string, context int) []Hunk {
	if a == b {
		return nil
	}
	la, lb := split(a), split(b)
	// More context than lines changes nothing, and keeps 2*context from
	// overflowing.
	context = min(max(context, 0), len(la)+len(lb))
	ca, cb := changes(la, lb, bounds)
	return hunks(la, lb, ca, cb, context)
}

// line is one line of a text as the diff sees it.
type line struct {
	text  string
	noEOL bool
}

// split cuts s into lines: a final "\n" ends the last line, and a last line
// without one is marked noEOL.
func split(s string) []line {
	if s == "" {
		return nil
	}
	out := make([]line, 0, strings.Count(s, "\n")+1)
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, line{text: s, noEOL: true})
			break
		}
		out = append(out, line{text: s[:i]})
		s = s[i+1:]
	}
	return out
}

// changes marks which lines of a and of b are not part of the common
// subsequence the search found, after sliding each run of changes as GNU
// diff does.
func changes(a, b []line, lim limits) (ca, cb []bool) {
	ca, cb = make([]bool, len(a)), make([]bool, len(b))
	// The common prefix and suffix are unchanged.
	lo := 0
	for lo < len(a) && lo < len(b) && a[lo] == b[lo] {
		lo++
	}
	ha, hb := len(a), len(b)
	for ha > lo && hb > lo && a[ha-1] == b[hb-1] {
		ha--
		hb--
	}
	ia, ib := intern(a[lo:ha], b[lo:hb])
	search(ia, ib, ca[lo:ha], cb[lo:hb], lim)
	slide(a, ca, cb)
	slide(b, cb, ca)
	return ca, cb
}

// intern numbers the lines of a and b so that equal lines, and only those,
// have equal numbers. A line without a newline is never equal to one with.
func intern(a, b []line) (ia, ib []int) {
	ids := make(map[line]int, len(a)+len(b))
	num := func(ls []line) []int {
		out := make([]int, len(ls))
		for i, l := range ls {
			id, ok := ids[l]
			if !ok {
				id = len(ids)
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	return num(a), num(b)
}

// change is one run of changed lines: del lines of a from line a, replaced
// by ins lines of b from line b (0-based).
type change struct {
	a, b     int
	del, ins int
}

// script lists the runs of changes in order.
func script(ca, cb []bool) []change {
	var out []change
	i, j := 0, 0
	for i < len(ca) || j < len(cb) {
		if i < len(ca) && j < len(cb) && !ca[i] && !cb[j] {
			i++
			j++
			continue
		}
		c := change{a: i, b: j}
		for i < len(ca) && ca[i] {
			i++
		}
		for j < len(cb) && cb[j] {
			j++
		}
		c.del, c.ins = i-c.a, j-c.b
		out = append(out, c)
	}
	return out
}

// hunks groups the changes into hunks with their context: a change joins
// the hunk before it when at most 2*context equal lines lie between them.
func hunks(a, b []line, ca, cb []bool, context int) []Hunk {
	cs := script(ca, cb)
	var out []Hunk
	for start := 0; start < len(cs); {
		end := start + 1
		for end < len(cs) && cs[end].a-(cs[end-1].a+cs[end-1].del) <= 2*context {
			end++
		}
		first, last := cs[start], cs[end-1]
		pre := min(context, first.a, first.b)
		post := min(context, len(a)-(last.a+last.del), len(b)-(last.b+last.ins))
		i, j := first.a-pre, first.b-pre
		h := Hunk{FromLine: i, ToLine: j}
		// Every line of a in the hunk, plus the inserted ones.
		size := last.a + last.del + post - i
		for _, c := range cs[start:end] {
			size += c.ins
		}
		h.Lines = make([]Line, 0, size)
		same := func(n int) {
			for range n {
				h.Lines = append(h.Lines, Line{OpSame, a[i].text, a[i].noEOL})
				i++
				j++
			}
		}
		same(pre)
		for k, c := range cs[start:end] {
			if k > 0 {
				same(c.a - i)
			}
			for ; i < c.a+c.del; i++ {
				h.Lines = append(h.Lines, Line{OpDel, a[i].text, a[i].noEOL})
			}
			for ; j < c.b+c.ins; j++ {
				h.Lines = append(h.Lines, Line{OpAdd, b[j].text, b[j].noEOL})
			}
		}
		same(post)
		h.FromCount, h.ToCount = i-h.FromLine, j-h.ToLine
		if h.FromCount > 0 {
			h.FromLine++
		}
		if h.ToCount > 0 {
			h.ToLine++
		}
		out = append(out, h)
		start = end
	}
	return out
}
