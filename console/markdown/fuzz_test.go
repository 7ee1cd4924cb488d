package markdown_test

import (
	"strings"
	"testing"
)

// FuzzRender checks, for any text, that Render does not panic, writes
// valid UTF-8, writes only inert, balanced markup (see inert), stays
// within a bounded size and gives the same bytes twice. Seeds: the XSS
// and ordinary cases here plus testdata/fuzz/FuzzRender.
func FuzzRender(f *testing.F) {
	for _, c := range xssCases {
		f.Add(c.src)
	}
	for _, src := range []string{
		"# h\n\n*a* **b** ~~c~~ `d`\n\n- [x] e\n\n1. f\n\n> g\n\n---\n",
		"| a | b |\n|:-|-:|\n| [x](https://e.x \"t\") | www.e.x |\n",
		"```\n<script>\n```\n\n<div>\n*x*\n</div>\n",
		"[a]: https://e.x\n\n[a] [a][] ![a] ![a][a] <a@b.c> <https://e.x>",
	} {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		out := mustRender(t, src)
		if err := inert(out); err != nil {
			t.Fatalf("Render(%q) = %q: %v", src, out, err)
		}
		// Plain text escaped with the markers is at most 6x; rendered
		// output is capped at 512 KiB before sanitizing.
		if limit := 6*len(src) + 1<<20; len(out) > limit {
			t.Fatalf("Render(%.60q) wrote %d bytes", src, len(out))
		}
		if again := mustRender(t, src); again != out {
			t.Fatalf("Render(%q) gave %q, then %q", src, out, again)
		}
		if strings.Contains(out, "<!--") {
			t.Fatalf("Render(%q) kept a comment: %q", src, out)
		}
	})
}
