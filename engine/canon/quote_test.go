package canon

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/gowebpki/jcs"
)

// AppendString writes what the encoder each quoting stands in for writes:
// encoding/json with and without HTML escaping, and jcs.
func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", `quote " back \ slash`, "<a href='x'>&</a>", "\n\r\t\b\f\x00\x1f\x7f",
		"line\u2028para\u2029", "é, 日本, 🙂", "bad \xff byte", "cut \xe6\x97"} {
		for _, html := range []bool{false, true} {
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(html)
			if err := enc.Encode(s); err != nil {
				t.Fatal(err)
			}
			q := Go
			if html {
				q = GoHTML
			}
			if got, want := string(AppendString(nil, s, q)), string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))); got != want {
				t.Errorf("%q, quoting %d: %s, want %s", s, q, got, want)
			}
		}
		raw, _ := json.Marshal(s)
		want, err := jcs.Transform(raw)
		if err != nil || bytes.Contains([]byte(s), []byte("\xff")) || bytes.Contains([]byte(s), []byte("\xe6\x97")) {
			continue // Canonical takes valid UTF-8 only
		}
		if got := AppendString(nil, s, Canonical); !bytes.Equal(got, want) {
			t.Errorf("%q, canonical: %s, want %s", s, got, want)
		}
	}
}
