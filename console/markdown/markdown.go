package markdown

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/a-h/templ"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// MaxBytes is the most input Render renders: longer text is cut on a rune
// boundary and ends with a visible marker. It matches the note limit
// (protocol.MaxNotesBytes, DESIGN §4).
const MaxBytes = 32 << 10

// truncatedMarker closes a cut note. It is HTML appended after goldmark's
// output, so it always sits outside any block the cut left open, and it
// still passes through the sanitizer like everything else.
var truncatedMarker = fmt.Sprintf(
	"<p><em>… truncated: this text is longer than %d KiB</em></p>\n", MaxBytes>>10)

// converter and policy are built once; both are safe for concurrent use.
var (
	converter = goldmark.New(
		goldmark.WithExtensions(tables{}, extension.Strikethrough, extension.Linkify),
		goldmark.WithRendererOptions(
			renderer.WithNodeRenderers(util.Prioritized(linkRenderer{}, 100)),
		),
	)
	policy = newPolicy()
)

// Render returns agent-written Markdown src as sanitized HTML. It is the
// one way such text reaches a page.
func Render(src string) templ.Component {
	out, err := toHTML(src)
	if err != nil {
		return templ.Raw("", err)
	}
	return templ.Raw(out)
}

// toHTML bounds src, renders it with raw HTML off and sanitizes the result.
func toHTML(src string) (string, error) {
	src, cut := bound(src)
	var buf bytes.Buffer
	buf.Grow(len(src) * 2)
	if err := converter.Convert([]byte(src), &buf); err != nil {
		return "", fmt.Errorf("markdown: render: %w", err)
	}
	if cut {
		buf.WriteString(truncatedMarker)
	}
	return policy.SanitizeReader(&buf).String(), nil
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
