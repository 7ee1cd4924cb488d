package markdown_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/workrail/workrail/console/markdown"
	"github.com/workrail/workrail/engine/golden"
	"github.com/workrail/workrail/engine/protocol"
)

const relAttr = `rel="nofollow noopener noreferrer"`

func TestRenderOrdinary(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"heading", "# Plan\n## Steps", "<h1>Plan</h1>\n<h2>Steps</h2>\n"},
		{"emphasis", "*a* **b** ~~c~~", "<p><em>a</em> <strong>b</strong> <del>c</del></p>\n"},
		{"list", "- a\n- b", "<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n"},
		{"ordered list start", "3. a\n4. b", "<ol start=\"3\">\n<li>a</li>\n<li>b</li>\n</ol>\n"},
		{"task list stays text", "- [x] done\n- [ ] todo", "<ul>\n<li>[x] done</li>\n<li>[ ] todo</li>\n</ul>\n"},
		{"code block", "```go\nif a < b && c > d {}\n```",
			"<pre><code>if a &lt; b &amp;&amp; c &gt; d {}\n</code></pre>\n"},
		{"inline code", "use `x<y`", "<p>use <code>x&lt;y</code></p>\n"},
		{"blockquote", "> quoted", "<blockquote>\n<p>quoted</p>\n</blockquote>\n"},
		{"rule", "a\n\n---", "<p>a</p>\n<hr>\n"},
		{"table", "| a | b | c |\n|:--|:-:|--:|\n| 1 | 2 | 3 |",
			"<table>\n<thead>\n<tr>\n<th align=\"left\">a</th>\n<th align=\"center\">b</th>\n<th align=\"right\">c</th>\n</tr>\n</thead>\n" +
				"<tbody>\n<tr>\n<td align=\"left\">1</td>\n<td align=\"center\">2</td>\n<td align=\"right\">3</td>\n</tr>\n</tbody>\n</table>\n"},
		{"link", "[docs](https://example.com/a?b=1&c=2)",
			`<p><a href="https://example.com/a?b=1&amp;c=2" ` + relAttr + `>docs</a></p>` + "\n"},
		{"link title", `[docs](https://example.com "The docs")`,
			`<p><a href="https://example.com" ` + relAttr + ` title="The docs">docs</a></p>` + "\n"},
		{"reference link", "[docs][d]\n\n[d]: https://example.com",
			`<p><a href="https://example.com" ` + relAttr + `>docs</a></p>` + "\n"},
		{"autolink", "<https://example.com>",
			`<p><a href="https://example.com" ` + relAttr + `>https://example.com</a></p>` + "\n"},
		{"bare url", "see www.example.com",
			`<p>see <a href="http://www.example.com" ` + relAttr + `>www.example.com</a></p>` + "\n"},
		{"email", "ask ops@example.com",
			`<p>ask <a href="mailto:ops@example.com" ` + relAttr + `>ops@example.com</a></p>` + "\n"},
		{"image becomes link", "![diagram](https://example.com/d.png)",
			`<p><a href="https://example.com/d.png" ` + relAttr + `>diagram</a></p>` + "\n"},
		{"image without alt", "![](https://example.com/d.png)",
			`<p><a href="https://example.com/d.png" ` + relAttr + `>https://example.com/d.png</a></p>` + "\n"},
		{"image inside link", "[![badge](https://example.com/b.svg)](https://example.com/)",
			`<p><a href="https://example.com/" ` + relAttr + `>badge</a></p>` + "\n"},
		{"inline html shown", "the <input> field", "<p>the &lt;input&gt; field</p>\n"},
		{"empty", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := mustRender(t, c.src); got != c.want {
				t.Errorf("Render(%q)\n got %q\nwant %q", c.src, got, c.want)
			}
		})
	}
}

// TestRenderGolden renders a note like the ones agents write; refresh with
// go test ./console/markdown -run Golden -update.
func TestRenderGolden(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "note.md"))
	if err != nil {
		t.Fatal(err)
	}
	got := mustRender(t, string(src))
	golden.Check(t, filepath.Join("testdata", "note.html"), []byte(got))
	if err := inert(got); err != nil {
		t.Error(err)
	}
}

// TestRenderDeterministic renders every case from many goroutines at once:
// the same text must give the same bytes (and -race must stay quiet).
func TestRenderDeterministic(t *testing.T) {
	srcs := []string{strings.Repeat("| a | b |\n|---|---|\n| [x](https://e.x) | `y` |\n", 20)}
	for _, c := range xssCases {
		srcs = append(srcs, c.src)
	}
	want := make([]string, len(srcs))
	for i, src := range srcs {
		want[i] = mustRender(t, src)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i, src := range srcs {
				if got := mustRender(t, src); got != want[i] {
					t.Errorf("Render(%q) gave %q, then %q", src, want[i], got)
				}
			}
		})
	}
	wg.Wait()
}

func TestRenderTruncates(t *testing.T) {
	const marker = "truncated: this text is longer than 32 KiB"
	// "é" is two bytes and straddles the limit, so the cut falls before it.
	over := strings.Repeat("a", markdown.MaxBytes-1) + "é tail"
	for _, c := range []struct {
		name, src  string
		cut        bool
		wantPrefix string
	}{
		{"at the limit", strings.Repeat("a", markdown.MaxBytes), false, "<p>" + strings.Repeat("a", markdown.MaxBytes) + "</p>\n"},
		{"one byte over", strings.Repeat("a", markdown.MaxBytes+1), true, "<p>" + strings.Repeat("a", markdown.MaxBytes) + "</p>\n"},
		{"rune across the limit", over, true, "<p>" + strings.Repeat("a", markdown.MaxBytes-1) + "</p>\n"},
		{"inside a code fence", "```\n" + strings.Repeat("<", markdown.MaxBytes), true, "<pre><code>&lt;"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := mustRender(t, c.src)
			if !strings.HasPrefix(out, c.wantPrefix) {
				t.Errorf("output starts %.80q, want %.80q", out, c.wantPrefix)
			}
			if got := strings.Contains(out, marker); got != c.cut {
				t.Errorf("marker present = %v, want %v; ends %q", got, c.cut, out[max(0, len(out)-120):])
			}
			if err := inert(out); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestRenderInvalidUTF8(t *testing.T) {
	out := mustRender(t, "a\xffb\x00c")
	if want := "<p>a\uFFFDb\uFFFDc</p>\n"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
	if !utf8.ValidString(out) {
		t.Error("output is not valid UTF-8")
	}
}

// TestRenderBoundsAmplification feeds texts that GFM and reference links
// blow up by a thousand times; the output must stay small and inert.
func TestRenderBoundsAmplification(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		// Every one-byte row is padded to 4000 cells.
		{"wide table", strings.Repeat("|a", 4000) + "|\n" + strings.Repeat("|-", 4000) + "|\n" + strings.Repeat("x\n", 8000), ""},
		// Each [a] repeats a 16 KiB URL.
		{"reference fan-out", "[a]: https://x.example/" + strings.Repeat("y", 16<<10) + "\n\n" + strings.Repeat("[a]", 5000),
			"shown as plain text"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := mustRender(t, c.src)
			if len(out) > 1<<20 {
				t.Errorf("output is %d bytes", len(out))
			}
			if !strings.Contains(out, c.want) {
				t.Errorf("output does not contain %q", c.want)
			}
			if err := inert(out); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestMaxBytesIsTheNoteLimit(t *testing.T) {
	if markdown.MaxBytes != protocol.MaxNotesBytes {
		t.Errorf("MaxBytes = %d, protocol.MaxNotesBytes = %d", markdown.MaxBytes, protocol.MaxNotesBytes)
	}
}

func BenchmarkRender(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("testdata", "note.md"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		mustRender(b, string(src))
	}
}
