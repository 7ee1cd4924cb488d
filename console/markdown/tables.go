package markdown

import (
	"bytes"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// maxTableCells bounds the table cells one document may produce. GFM pads
// every row to the header's width, so a wide header over many one-character
// rows turns 32 KiB into hundreds of megabytes of <td></td>; past the budget
// the rest of the tables stay paragraphs. A dense table that fills MaxBytes
// has fewer cells than this.
const maxTableCells = MaxBytes / 2

// tables is goldmark's GFM table extension with a cell budget.
type tables struct{}

// Extend implements goldmark.Extender, registering what extension.Table
// does with the paragraph transformer wrapped in the budget.
func (tables) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(
		parser.WithParagraphTransformers(
			util.Prioritized(boundedTables{extension.NewTableParagraphTransformer()}, 200),
		),
		parser.WithASTTransformers(
			util.Prioritized(extension.NewTableASTTransformer(), 0),
		),
	)
	m.Renderer().AddOptions(renderer.WithNodeRenderers(
		util.Prioritized(extension.NewTableHTMLRenderer(
			extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)), 500),
	))
}

// cellsKey holds the cells spent so far in one parse.
var cellsKey = parser.NewContextKey()

// boundedTables lets a paragraph become a table only while the document's
// cell budget lasts.
type boundedTables struct{ inner parser.ParagraphTransformer }

// Transform implements parser.ParagraphTransformer.
func (b boundedTables) Transform(node *ast.Paragraph, reader text.Reader, pc parser.Context) {
	cells := maxCells(node.Lines(), reader.Source())
	if cells == 0 {
		return
	}
	spent, _ := pc.Get(cellsKey).(int)
	if spent+cells > maxTableCells {
		return
	}
	pc.Set(cellsKey, spent+cells)
	b.inner.Transform(node, reader, pc)
}

// maxCells is an upper bound on the cells a table made of lines could
// have: its line count times the columns of its widest candidate
// delimiter row. Zero means no line can be a delimiter row.
func maxCells(lines *text.Segments, source []byte) int {
	widest := 0
	for i := 1; i < lines.Len(); i++ {
		seg := lines.At(i)
		line := seg.Value(source)
		if isDelimiterRow(line) {
			widest = max(widest, bytes.Count(line, []byte("|"))+1)
		}
	}
	return widest * lines.Len()
}

// isDelimiterRow reports whether line could be a GFM delimiter row:
// dashes, colons, pipes and white space, with at least one dash.
func isDelimiterRow(line []byte) bool {
	dash := false
	for _, c := range line {
		switch c {
		case '-':
			dash = true
		case ':', '|', ' ', '\t', '\n', '\r', '\v', '\f':
		default:
			return false
		}
	}
	return dash
}
