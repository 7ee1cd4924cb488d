package markdown

import (
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// Plain is a one-line Markdown text (a title) as plain words: emphasis,
// code marks, link and image syntax and a leading heading or list marker
// removed, "**Alice** fixed `x`" reading "Alice fixed x". Text that parses
// to nothing (only marks) stays as it was. The result is text for templ
// to escape, never HTML.
func Plain(src string) string {
	if !marked(src) {
		return strings.Join(strings.Fields(src), " ")
	}
	return parsePlain(src)
}

// marked reports whether src may hold Markdown marks: a character that
// can open inline markup, or a start that can open a block. Most titles
// (a workflow id, a sentence) hold none, and skip the parse.
func marked(src string) bool {
	s := strings.TrimSpace(src)
	if s == "" || strings.ContainsAny(s, "*_`[]<>!#\\&~|") {
		return true
	}
	return strings.IndexByte("-+=0123456789", s[0]) >= 0
}

// parsePlain is Plain by goldmark's parse: the text of every inline node.
func parsePlain(src string) string {
	src, _ = bound(src)
	source := []byte(src)
	var b strings.Builder
	doc := converter.Parser().Parse(text.NewReader(source))
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := n.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(source))
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		case *ast.AutoLink:
			b.Write(t.Label(source))
		case *ast.RawHTML: // shown as the text it is
			for i := range t.Segments.Len() {
				seg := t.Segments.At(i)
				b.Write(seg.Value(source))
			}
		case *ast.HTMLBlock:
			for i := range t.Lines().Len() {
				seg := t.Lines().At(i)
				b.Write(seg.Value(source))
			}
		}
		if n.Type() == ast.TypeBlock && n.PreviousSibling() != nil {
			b.WriteByte(' ')
		}
		return ast.WalkContinue, nil
	})
	if s := strings.Join(strings.Fields(b.String()), " "); s != "" {
		return s
	}
	return src
}
