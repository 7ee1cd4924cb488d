package bundle

import "strings"

// Text an agent or a person wrote goes into the Markdown export as
// Markdown, so it keeps its emphasis, lists and code, but never as HTML:
// a renderer that passes raw HTML through (many do) would otherwise run
// a note's <script> or <img onerror=…> for whoever opens the pull
// request. Outside code every & and < is written as an entity, which a
// renderer shows as the character and never reads as a tag; inside code
// (a fenced block or a code span) nothing is raw HTML, so the text is
// kept as written. Where a reading of the text is unsure (a backtick
// without its match on the line, an indented fence) it is escaped: an
// entity shown too many is a lesser harm than a tag run.

// inertBlock makes notes, Markdown of several lines, inert: fenced code
// blocks are kept, every other line goes through inertLine.
func inertBlock(s string) string {
	lines := strings.Split(s, "\n")
	fence := ""
	for i, l := range lines {
		switch {
		case fence != "":
			if closes(l, fence) {
				fence = ""
			}
		case opens(l) != "":
			fence = opens(l)
		default:
			lines[i] = inertLine(l)
		}
	}
	return strings.Join(lines, "\n")
}

// opens returns the fence a line opens (three or more ` or ~ after at
// most three spaces, and for backticks an info string without one), or
// "".
func opens(l string) string {
	rest, ok := fenceIndent(l)
	if !ok || (!strings.HasPrefix(rest, "```") && !strings.HasPrefix(rest, "~~~")) {
		return ""
	}
	run := rest[:len(rest)-len(strings.TrimLeft(rest, rest[:1]))]
	if run[0] == '`' && strings.Contains(rest[len(run):], "`") {
		return ""
	}
	return run
}

// closes reports whether line l closes fence: a run of its character at
// least as long, after at most three spaces, and nothing but spaces.
func closes(l, fence string) bool {
	rest, ok := fenceIndent(l)
	if !ok {
		return false
	}
	trimmed := strings.TrimLeft(rest, fence[:1])
	return len(rest)-len(trimmed) >= len(fence) && strings.TrimRight(trimmed, " \t") == ""
}

// fenceIndent is l without the at most three spaces a fence may have;
// ok is false when it has more.
func fenceIndent(l string) (string, bool) {
	rest := strings.TrimLeft(l, " ")
	return rest, len(l)-len(rest) <= 3
}

// inertLine escapes & and < on one line, outside code spans (a run of
// backticks closed by a run of the same length on the line) and
// backslash escapes (which already make the next character literal).
func inertLine(l string) string {
	var b strings.Builder
	for i := 0; i < len(l); {
		c := l[i]
		switch {
		case c == '\\' && i+1 < len(l) && isPunct(l[i+1]):
			b.WriteString(l[i : i+2])
			i += 2
		case c == '`':
			n := len(l[i:]) - len(strings.TrimLeft(l[i:], "`"))
			if end := closingRun(l, i+n, n); end >= 0 {
				b.WriteString(l[i:end])
				i = end
			} else {
				b.WriteString(l[i : i+n])
				i += n
			}
		case c == '&':
			b.WriteString("&amp;")
			i++
		case c == '<':
			b.WriteString("&lt;")
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// closingRun returns the end of the first run of exactly n backticks in
// l from at, or -1.
func closingRun(l string, at, n int) int {
	for i := at; i < len(l); {
		if l[i] != '`' {
			i++
			continue
		}
		m := len(l[i:]) - len(strings.TrimLeft(l[i:], "`"))
		if m == n {
			return i + m
		}
		i += m
	}
	return -1
}

func isPunct(c byte) bool { return strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0 }

// inline makes text for a heading or a list item one inert line.
func inline(s string) string { return inertLine(oneLine(s)) }

// code sets s in a code span that holds it whole: fenced by more
// backticks than its longest run, padded when it starts or ends with
// one, on one line.
func code(s string) string {
	s = oneLine(s)
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}
