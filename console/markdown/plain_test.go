package markdown

import "testing"

func TestPlain(t *testing.T) {
	tests := []struct{ in, want string }{
		{"**Alice** reviewed the patch", "Alice reviewed the patch"},
		{"Fix `parseArgs` for _nested_ keys", "Fix parseArgs for nested keys"},
		{"## Heading words", "Heading words"},
		{"- a bullet", "a bullet"},
		{"see [the docs](https://example.com) now", "see the docs now"},
		{"plain already", "plain already"},
		{"a < b & <script>", "a < b & <script>"},
		{"**", "**"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Plain(tt.in); got != tt.want {
			t.Errorf("Plain(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

// Titles without marks skip the parse; the parse gives them the same.
func TestPlainSkipsOnlyWhatTheParseLeavesAlone(t *testing.T) {
	for _, in := range []string{"wr.hello", "Triaged: the parser drops a trailing comma.", "look-around then wrap-up",
		"  spaced   out  ", "see https://example.com now", "www.example.com", "a: b; c, d (e) 'f' \"g\" é", "x = y"} {
		if marked(in) {
			t.Errorf("marked(%q) = true; want false", in)
		}
		if got, want := Plain(in), parsePlain(in); got != want {
			t.Errorf("Plain(%q) = %q; the parse gives %q", in, got, want)
		}
	}
	for _, in := range []string{"**a**", "- a", "1. a", "# a", "a <b>", "a & b", "`a`", "[a](b)", "a\\b", "~~a~~", "=== a"} {
		if !marked(in) {
			t.Errorf("marked(%q) = false; want true", in)
		}
	}
}

// BenchmarkPlain is one sessions-list title: the list strips one per
// row. Most titles have no marks.
func BenchmarkPlain(b *testing.B) {
	for name, title := range map[string]string{
		"marked": "**Alice** reviewed the `auth` patch and [the docs](https://example.com): two gaps left",
		"plain":  "Triaged: the parser drops a trailing comma on the last line of a file.",
	} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				Plain(title)
			}
		})
	}
}
