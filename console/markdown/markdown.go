package markdown

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// MaxBytes is the most input Render renders: longer text is cut on a rune
// boundary and ends with a visible marker. It matches the note limit
// (protocol.MaxNotesBytes, DESIGN §4).
const MaxBytes = 32 << 10

// The markers are HTML appended after goldmark's output, so they always
// sit outside any block a cut left open; they still pass the sanitizer.
var (
	truncatedMarker = fmt.Sprintf(
		"<p><em>… truncated: this text is longer than %d KiB</em></p>\n", MaxBytes>>10)
	plainMarker = fmt.Sprintf(
		"<p><em>… shown as plain text: as Markdown it renders to more than %d KiB</em></p>\n",
		maxOutput>>10)
)

// converter and policy are built once; both are safe for concurrent use.
var (
	converter = goldmark.New(
		goldmark.WithExtensions(tables{}, extension.Strikethrough, extension.Linkify),
		goldmark.WithRendererOptions(
			renderer.WithNodeRenderers(
				util.Prioritized(linkRenderer{}, 100),
				util.Prioritized(rawHTMLRenderer{}, 100),
			),
		),
	)
	policy = newPolicy()
)

// Render returns agent-written Markdown src as sanitized HTML. It is the
// one way such text reaches a page. It renders eagerly; the work is
// bounded, but the worst inputs (thousands of nested quotes) take a few
// hundred milliseconds, so render a note once rather than on every poll.
func Render(src string) HTML {
	out, err := toHTML(src)
	return HTML{html: out, err: err}
}

// HTML is sanitized markup Render made, or why it could not. It is a
// templ.Component (it has the interface's one method), which keeps templ,
// and net/http with it, out of this package.
type HTML struct {
	html string
	err  error
}

// Render writes the markup to w, or returns why there is none.
func (h HTML) Render(_ context.Context, w io.Writer) error {
	if h.err != nil {
		return h.err
	}
	_, err := io.WriteString(w, h.html)
	return err
}

// toHTML bounds src, renders it with raw HTML off and sanitizes the
// result. Text that would render too large is shown as plain text.
func toHTML(src string) (string, error) {
	src, cut := bound(src)
	out := &boundedBuffer{}
	err := converter.Convert([]byte(src), out)
	switch {
	case errors.Is(err, errTooLarge):
		out.buf.Reset()
		out.buf.WriteString("<pre><code>" + html.EscapeString(src) + "</code></pre>\n" + plainMarker)
	case err != nil:
		return "", fmt.Errorf("markdown: render: %w", err)
	}
	if cut {
		out.buf.WriteString(truncatedMarker)
	}
	return policy.SanitizeReader(&out.buf).String(), nil
}

// bound cuts src to MaxBytes on a rune boundary, replaces invalid UTF-8
// and NUL with U+FFFD (CommonMark §2.3), and reports whether it cut.
func bound(src string) (string, bool) {
	cut := len(src) > MaxBytes
	if cut {
		end := MaxBytes
		for i := MaxBytes; i > MaxBytes-utf8.UTFMax; i-- {
			if utf8.RuneStart(src[i]) {
				end = i
				break
			}
		}
		src = src[:end]
	}
	src = strings.ToValidUTF8(src, "\uFFFD")
	return strings.ReplaceAll(src, "\x00", "\uFFFD"), cut
}
