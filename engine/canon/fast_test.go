package canon

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/gowebpki/jcs"
)

// FuzzTransform holds transform to jcs, the reference RFC 8785
// implementation canon used before jsontext: the same bytes, and an error
// exactly when jcs refuses; and it holds the fast path, wherever it
// answers, to jsontext's Canonicalize. The input decoded (as
// encoding/json decodes with UseNumber) holds direct to viaMarshal.
func FuzzTransform(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `null`, `true`, `false`, `0`, `-1`, `-0`, `01`, `1.5`, `1e3`,
		`123456789012345`, `1234567890123456`, `-123456789012345`,
		`{"b":1,"a":[1,2,{"d":null,"c":true}],"":"x"}`,
		`{"a":1,"a":2}`, `{"b":1,"a":2,"b":3}`, `{"a":1,}`, `[1,]`, `[1 ]`, ` 1`, `1 `, `truex`, `[true"x"]`,
		`"\u0041\u00e9\u0000\u001f\u007f\u2028\ud83d\ude00\/\b\f\n\r\t\"\\"`,
		`"\ud800"`, `"\udc00x"`, `"\u00"`, `"\uzzzz"`, `"\x"`, "\"a\x01\"", "\"caf\xc3\xa9\"", "\"\xff\"", "\"\xed\xa0\x80\"",
		`1e400`, `[-1E309]`, `1.7976931348623157e308`, `1.7976931348623159e308`, `"1.7976931348623157e+308"`, `{"a":1e-400}`,
		`{"\u0061":1}`, `{"é":1,"e":2}`, "{\"a\x7f\":1,\"a\":2}", `{"a":"<&>"}`, `[[[[[[]]]]]]`,
		`{"data":{"edgeKind":"acked_step","fromNodeId":"node_1","toNodeId":"node_2"},"eventId":"evt_1_3","eventIndex":3,"kind":"edge_created","sessionId":"ses_1"}`,
		strings.Repeat("[", 40) + strings.Repeat("]", 40),
		strings.Repeat(`{"a":`, 40) + "1" + strings.Repeat("}", 40),
	} {
		f.Add([]byte(s))
	}
	if raw, err := os.ReadFile(filepath.Join("testdata", "vectors.txt")); err == nil {
		for _, line := range strings.Split(string(raw), "\n") {
			for _, s := range strings.Split(line, "\t") {
				f.Add([]byte(s))
			}
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		want, jcsErr := jcs.Transform(in)
		got, err := transform(bytes.Clone(in), func() []byte { return in })
		if (err != nil) != (jcsErr != nil) {
			t.Fatalf("transform(%q): error %v; jcs: %v", in, err, jcsErr)
		}
		if err == nil && string(got) != string(want) {
			t.Fatalf("transform(%q)\n got %q\njcs  %q", in, got, want)
		}
		if fast, ok := fastTransform(in); ok {
			slow := jsontext.Value(bytes.Clone(in))
			if err := slow.Canonicalize(); err != nil || string(fast) != string(slow) {
				t.Fatalf("fastTransform(%q)\n got %q\nCanonicalize %q (%v)", in, fast, slow, err)
			}
		}
		dec := json.NewDecoder(bytes.NewReader(in))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return
		}
		if out, ok := direct(v); ok {
			want, err := viaMarshal(v)
			if err != nil || string(out) != string(want) {
				t.Fatalf("direct(%q)\n got %q\nviaMarshal %q (%v)", in, out, want, err)
			}
		}
	})
}

// TestTransformTakesMarshalOutput checks transform answers as jcs for what
// encoding/json writes of WorkRail's kinds of values.
func TestTransformTakesMarshalOutput(t *testing.T) {
	type inner struct {
		Z string            `json:"z"`
		A []int             `json:"a,omitempty"`
		M map[string]string `json:"m,omitempty"`
	}
	v := struct {
		Name  string          `json:"name"`
		Index int             `json:"index"`
		Raw   json.RawMessage `json:"raw"`
		In    []inner         `json:"in"`
	}{"<é \u2028 \x01 \"q\">", -42, json.RawMessage(`{"y": [1, 2], "x": "\u00e9"}`), []inner{{Z: "z", A: []int{3, 1}, M: map[string]string{"b": "1", "a": "2"}}}}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want, err := jcs.Transform(b)
	got, gotErr := transform(bytes.Clone(b), func() []byte { return b })
	if err != nil || gotErr != nil || string(got) != string(want) {
		t.Fatalf("got %s, want %s (%v)", got, want, err)
	}
}

// BenchmarkTransform measures the canonical form of a small advance
// event and of a notes event of about 2 KB: the fast path, the library's
// Canonicalize, and jcs for comparison.
func BenchmarkTransform(b *testing.B) {
	small := []byte(`{"data":{"attempt":1,"keyId":1,"outcome":"advanced","toNodeId":"node_2"},"eventId":"evt_1_3","eventIndex":3,"kind":"advance_recorded","nodeId":"node_1","runId":"run_1","sessionId":"ses_1"}`)
	notes, _ := json.Marshal(map[string]any{"data": map[string]any{"notesMarkdown": strings.Repeat("Read the files and <note> what each exports.\n", 45), "stepId": "s1"},
		"eventId": "evt_1_3", "eventIndex": 3, "kind": "node_output_appended", "sessionId": "ses_1"})
	for _, in := range []struct {
		name string
		b    []byte
	}{{"small", small}, {"notes", notes}} {
		buf := make([]byte, len(in.b))
		b.Run(in.name+"/fast", func(b *testing.B) {
			for b.Loop() {
				if _, ok := fastTransform(in.b); !ok {
					b.Fatal("declined")
				}
			}
		})
		b.Run(in.name+"/Canonicalize", func(b *testing.B) {
			for b.Loop() {
				buf = append(buf[:0], in.b...)
				if err := (*jsontext.Value)(&buf).Canonicalize(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(in.name+"/jcs", func(b *testing.B) {
			for b.Loop() {
				jcs.Transform(in.b)
			}
		})
	}
}
