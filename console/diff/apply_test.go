package diff_test

import (
	"fmt"
	"strings"

	"github.com/workrail/workrail/console/diff"
)

// textLine is a line of a text as the tests read it, independently of the
// package: its text and whether it lacks a newline.
type textLine struct {
	text  string
	noEOL bool
}

// splitText cuts s into lines the way the package documents.
func splitText(s string) []textLine {
	var out []textLine
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, textLine{s, true})
			break
		}
		out = append(out, textLine{s[:i], false})
		s = s[i+1:]
	}
	return out
}

// joinText is the inverse of splitText.
func joinText(ls []textLine) (string, error) {
	var sb strings.Builder
	for i, l := range ls {
		sb.WriteString(l.text)
		if l.noEOL {
			if i != len(ls)-1 {
				return "", fmt.Errorf("line %d lacks a newline but is not the last", i+1)
			}
			continue
		}
		sb.WriteByte('\n')
	}
	return sb.String(), nil
}

// apply patches a with hunks the way patch(1) reads a unified diff,
// checking every context and deleted line against a, every header against
// its lines and the order of the hunks; it returns the patched text.
func apply(a string, hunks []diff.Hunk) (string, error) {
	src := splitText(a)
	var out []textLine
	next := 0 // the first line of a not yet copied, 0-based
	for k, h := range hunks {
		start := h.FromLine - 1 // a zero-line range names the line before
		if h.FromCount == 0 {
			start = h.FromLine
		}
		toStart := h.ToLine - 1
		if h.ToCount == 0 {
			toStart = h.ToLine
		}
		if start < next || start > len(src) {
			return "", fmt.Errorf("hunk %d starts at line %d of a, after line %d of %d", k, h.FromLine, next, len(src))
		}
		out = append(out, src[next:start]...)
		if len(out) != toStart {
			return "", fmt.Errorf("hunk %d: ToLine %d, but b has %d lines before it", k, h.ToLine, len(out))
		}
		if len(h.Lines) == 0 {
			return "", fmt.Errorf("hunk %d has no lines", k)
		}
		i, from, to := start, 0, 0
		for n, l := range h.Lines {
			tl := textLine{l.Text, l.NoEOL}
			switch l.Op {
			case diff.OpSame, diff.OpDel:
				if i >= len(src) || src[i] != tl {
					return "", fmt.Errorf("hunk %d line %d: %q%q is not line %d of a", k, n, l.Op, l.Text, i+1)
				}
				i++
				from++
				if l.Op == diff.OpSame {
					out = append(out, tl)
					to++
				}
			case diff.OpAdd:
				out = append(out, tl)
				to++
			default:
				return "", fmt.Errorf("hunk %d line %d: op %q", k, n, l.Op)
			}
		}
		if from != h.FromCount || to != h.ToCount {
			return "", fmt.Errorf("hunk %d: header -%d,%d +%d,%d, lines -%d +%d", k, h.FromLine, h.FromCount, h.ToLine, h.ToCount, from, to)
		}
		next = i
	}
	out = append(out, src[next:]...)
	return joinText(out)
}
