package bundle

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

// unsafeMarkdown renders Markdown as a renderer that passes raw HTML
// through does (GitHub's before it sanitises; many others as they are).
var unsafeMarkdown = goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))

// rawTag finds an HTML element or comment the renderer let through that
// Markdown itself never makes (links are checked on their own).
var rawTag = regexp.MustCompile(`<(?:!--|/?(?:script|img|iframe|svg|details|style|object|embed|math|form|input|body|div|x-)\b)`)

// Agent text comes out of the Markdown export inert: rendered by a
// renderer that passes raw HTML, no element of it is made; code keeps
// its text as written; ordinary Markdown keeps its meaning.
func TestInertText(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		shows    string // what the rendered text must still show
	}{
		{"a script", `<script>alert(1)</script>`, "&lt;script&gt;alert(1)&lt;/script&gt;"},
		{"an image with onerror", `see <img src=x onerror=alert(1)> here`, "&lt;img src=x onerror=alert(1)&gt;"},
		{"an iframe", `<iframe src="javascript:alert(1)"></iframe>`, "&lt;iframe"},
		{"svg onload", `<svg onload=alert(1)>`, "&lt;svg"},
		{"a link tag", `<a href="javascript:alert(1)">x</a>`, "&lt;a href="},
		{"details ontoggle", "<details open ontoggle=alert(1)>", "&lt;details"},
		{"a comment", `<!-- hidden --><script>x</script>`, "&lt;!-- hidden --&gt;"},
		{"a block of HTML", "<div>\n<script>alert(1)</script>\n</div>", "&lt;div&gt;"},
		{"a tag after a code span", "`ok` <img src=x onerror=alert(1)>", "<code>ok</code> &lt;img"},
		{"a code span keeps its text", "run `a <b> & c`", "<code>a &lt;b&gt; &amp; c</code>"},
		{"an escaped backtick is no code span", "\\`<img src=x onerror=alert(1)>`", "`&lt;img"},
		{"backticks that do not match", "``<img src=x onerror=alert(1)>`", "&lt;img"},
		{"a tag inside a span's backticks", "<img src=\"`\" onerror=alert(1)>`", "&lt;img"},
		{"a fenced block keeps its text", "```html\n<script>alert(1)</script>\n```\n<script>after</script>", "<code class=\"language-html\">&lt;script&gt;alert(1)&lt;/script&gt;\n</code>"},
		{"a tilde fence", "~~~\n<b>x</b>\n~~~", "&lt;b&gt;x&lt;/b&gt;"},
		{"an indented fence is no fence", "    ```\n<script>alert(1)</script>", "&lt;script&gt;"},
		{"a fence with a backtick in its info is no fence", "``` a`b\n<script>alert(1)</script>", "&lt;script&gt;"},
		{"an entity shows as written", "&lt;script&gt; and AT&T", "&amp;lt;script&amp;gt; and AT&amp;T"},
		{"an autolink shows as text", "<https://example.com/x>", "&lt;https://example.com/x&gt;"},
		{"Markdown keeps its meaning", "**bold** _it_ [link](https://example.com/?a=1&b=2)\n- item", `<strong>bold</strong>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := quote(inertBlock(tc.in))
			var out bytes.Buffer
			if err := unsafeMarkdown.Convert([]byte(md), &out); err != nil {
				t.Fatal(err)
			}
			if m := rawTag.FindString(out.String()); m != "" {
				t.Errorf("%q renders a raw %s:\n%s", tc.in, m, out.String())
			}
			if tc.name != "Markdown keeps its meaning" && strings.Contains(out.String(), "<a ") {
				t.Errorf("%q renders a link:\n%s", tc.in, out.String())
			}
			if !strings.Contains(out.String(), tc.shows) {
				t.Errorf("%q renders as\n%s\nwhich does not show %q", tc.in, out.String(), tc.shows)
			}
		})
	}
}

// A one-line text (a title, a gap's summary) is inert where a list item
// or heading puts it, a fence at its start included; a value set in code
// cannot close its code span.
func TestInertInline(t *testing.T) {
	for _, tc := range []struct{ name, md string }{
		{"a heading", "# " + inline("<script>alert(1)</script>")},
		{"a list item", "- summary: " + inline("```<img src=x onerror=alert(1)>")},
		{"a list item, two lines", "- " + inline("x\n<iframe src=x>")},
		{"a branch in code", "- Git branch: " + code("main`<img src=x onerror=alert(1)>`")},
		{"a path in code", "- Workspace: " + code("`<script>`")},
	} {
		var out bytes.Buffer
		if err := unsafeMarkdown.Convert([]byte(tc.md), &out); err != nil {
			t.Fatal(err)
		}
		if m := rawTag.FindString(out.String()); m != "" {
			t.Errorf("%s: %q renders a raw %s:\n%s", tc.name, tc.md, m, out.String())
		}
	}
}
