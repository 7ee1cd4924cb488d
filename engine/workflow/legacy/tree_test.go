package legacy

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"unicode/utf8"
)

// FuzzDecode holds decode (jsontext) to the scan it replaced, while that
// is kept: on valid UTF-8 (all rewrite hands it), the same documents
// refused, and the same tree, written back by encode byte for byte, for
// the rest. encode's string quoting is held to encoding/json's on any
// bytes.
func FuzzDecode(f *testing.F) {
	for _, n := range []string{"testdata/mixed.json", "testdata/routine.json"} {
		b, _ := os.ReadFile(n)
		f.Add(b)
	}
	for _, s := range []string{`{"b":1,"a":[1.50,-0,1e3,true,false,null,"x"],"b":{"c":"\u00e9\n"}}`, `"\udc00\ud800x"`, `{"\ud800":1,"\udbff":2}`,
		`"\ud800"`, `{"a":"<&>\u2028"}`, ` [ ] `, `{} {}`, `[1,]`, `{"a":1,"a":2,"b":3,"a":4}`, "\"\x01\b\f\x1f\x7f\xff\xc3\u2029<>&\\\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if want, _ := json.Marshal(string(src)); string(appendString(nil, string(src))) != string(want) {
			t.Fatalf("appendString(%q) = %q, encoding/json: %q", src, appendString(nil, string(src)), want)
		}
		if !utf8.Valid(src) {
			return
		}
		got, err := decode(src)
		want, oldErr := oldDecode(src)
		if (err == nil) != (oldErr == nil) {
			t.Fatalf("decode(%q): %v; the old scan: %v", src, err, oldErr)
		}
		if err != nil {
			return
		}
		var a, b bytes.Buffer
		errA, errB := encode(&a, got), encode(&b, want)
		if (errA == nil) != (errB == nil) || a.String() != b.String() {
			t.Fatalf("decode(%q) writes %q (%v); the old scan's tree writes %q (%v)", src, a.String(), errA, b.String(), errB)
		}
	})
}
