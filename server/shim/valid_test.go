package shim

import (
	"encoding/json"
	"strings"
	"testing"
)

// validSeeds are the corners of the grammar: each is held to json.Valid.
var validSeeds = []string{
	``, ` `, `{}`, `[]`, `[ ]`, `{ }`, `""`, `"\u00e9\n\"\\\/\b\f\r\t"`, `"\u00g0"`, `"\u00"`, `"\x"`, `"` + "\x01" + `"`,
	"\"\xff\xfe\"", "\"\u2028\"", `"\ud800"`, `"\udc00\ud800"`, `{"a":1,"a":2}`, "{\"\xff\":1,\"\xfe\":2}", `0`, `-0`, `01`, `-`, `1.`, `.5`, `1.5e+10`, `1E-2`, `1e`, `-12.0e5`, `true`, `tru`, `false`, `null`, `nul`,
	`{"a":1,"b":[true,false,null],"c":{"d":"e"}}`, `{"a":1,}`, `[1,]`, `[1 2]`, `{"a" 1}`, `{1:2}`, `{"a":}`, `[`, `{`, `]`, `"abc`,
	` {"a" : [ 1 , 2 ] } ` + "\n", "\t[\r\n]", `{} {}`, `[][]`, `1 2`, "[\x00]",
	deep(10000), deep(10001), `{"a":` + deep(9999) + `}`, `{"a":` + deep(10000) + `}`,
}

func TestValidIsJSONValid(t *testing.T) {
	for _, s := range validSeeds {
		if got, want := valid([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("valid(%.60q) = %v, json.Valid says %v", s, got, want)
		}
	}
}

// FuzzValid holds valid to json.Valid and, while it is kept, to the
// hand-written validator it replaced.
func FuzzValid(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := valid(b), json.Valid(b); got != want {
			t.Errorf("valid(%q) = %v, json.Valid says %v", b, got, want)
		}
		if got, old := valid(b), oldValid(b); got != old {
			t.Errorf("valid(%q) = %v, the old validator says %v", b, got, old)
		}
	})
}

// A step's answer as the daemon writes it, about 15 KB, most of it text.
func BenchmarkValid(b *testing.B) {
	text, _ := json.Marshal(strings.Repeat("Read the files <and> note what \"each\" exports.\n", 100))
	msg := []byte(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":` + string(text) + `}],"structuredContent":{"kind":"step","text":` +
		string(text) + `,"pending":{"prompt":` + string(text) + `,"n":[1,2.5,-3e2,true,false,null]}}}}`)
	for _, f := range []struct {
		name  string
		valid func([]byte) bool
	}{{"valid", valid}, {"old", oldValid}, {"json.Valid", json.Valid}} {
		b.Run(f.name, func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			for b.Loop() {
				if !f.valid(msg) {
					b.Fatal("invalid")
				}
			}
		})
	}
}
