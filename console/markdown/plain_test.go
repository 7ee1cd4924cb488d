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
