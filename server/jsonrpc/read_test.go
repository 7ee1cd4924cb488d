package jsonrpc

import (
	"encoding/json"
	"strings"
	"testing"
)

// deep nests a value n arrays deep, past encoding/json's limit of 10000.
func deep(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

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
		if got, want := Valid([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("Valid(%.60q) = %v, json.Valid says %v", s, got, want)
		}
	}
}

// FuzzValid holds Valid to json.Valid and, while it is kept, to the
// hand-written validator it replaced.
func FuzzValid(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Errorf("Valid(%q) = %v, json.Valid says %v", b, got, want)
		}
		if got, old := Valid(b), oldValid(b); got != old {
			t.Errorf("Valid(%q) = %v, the old validator says %v", b, got, old)
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
	}{{"valid", Valid}, {"old", oldValid}, {"json.Valid", json.Valid}} {
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

// BenchmarkLeadingID is what checking a reply's id costs the shim per
// call: the id of a tool call with 64 KB of notes, and of its answer.
func BenchmarkLeadingID(b *testing.B) {
	call := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"continue_workflow","arguments":{"output":{"notesMarkdown":"` +
		strings.Repeat("note ", 64<<10/5) + `"}}}}`)
	answer := []byte(`{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":"` + strings.Repeat("step ", 1<<10) + `"}]}}`)
	for b.Loop() {
		want, _ := LeadingID(call)
		got, _ := LeadingID(answer)
		if string(want) != string(got) {
			b.Fatal(want, got)
		}
	}
}

// LeadingID reads a message's top-level id as the daemon's encoder
// would write it, whatever comes before it.
func TestLeadingID(t *testing.T) {
	for _, c := range []struct {
		msg, id string
		ok      bool
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"ping"}`, `7`, true},
		{` { "params" : {"id": 1, "x": [{"id":2}]} , "id" : "x" }`, `"x"`, true},
		{`{"id":"a<b\u0041"}`, `"a\u003cbA"`, true},
		{`{"id":null}`, `null`, true},
		{`{"id":9007199254740993}`, `9007199254740993`, true},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, ``, false},
		{`{"id":{"a":1}}`, ``, false},
		{`[{"id":1}]`, ``, false},
		{`{"id"`, ``, false},
	} {
		id, ok := LeadingID([]byte(c.msg))
		if string(id) != c.id || ok != c.ok {
			t.Errorf("LeadingID(%s) = %s %v, want %s %v", c.msg, id, ok, c.id, c.ok)
		}
	}
}
