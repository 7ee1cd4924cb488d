package canon

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
)

// FuzzTransform holds the fast path to jcs: wherever it answers, it
// answers with jcs's bytes, and it never accepts what jcs refuses.
func FuzzTransform(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `null`, `true`, `false`, `0`, `-1`, `-0`, `01`, `1.5`, `1e3`,
		`123456789012345`, `1234567890123456`, `-123456789012345`,
		`{"b":1,"a":[1,2,{"d":null,"c":true}],"":"x"}`,
		`{"a":1,"a":2}`, `{"b":1,"a":2,"b":3}`, `{"a":1,}`, `[1,]`, `[1 ]`, ` 1`, `1 `, `truex`, `[true"x"]`,
		`"\u0041\u00e9\u0000\u001f\u007f\u2028\ud83d\ude00\/\b\f\n\r\t\"\\"`,
		`"\ud800"`, `"\udc00x"`, `"\u00"`, `"\uzzzz"`, `"\x"`, "\"a\x01\"", "\"caf\xc3\xa9\"", "\"\xff\"", "\"\xed\xa0\x80\"",
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
		got, ok := fastTransform(in)
		if !ok {
			return
		}
		want, err := jcs.Transform(in)
		if err != nil {
			t.Fatalf("fast path accepted %q, which jcs refuses: %v", in, err)
		}
		if string(got) != string(want) {
			t.Fatalf("fast path on %q\n got %q\nwant %q", in, got, want)
		}
	})
}

// TestTransformTakesMarshalOutput checks the fast path answers for what
// encoding/json writes of WorkRail's kinds of values, not only that it
// agrees with jcs when it does.
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
	got, ok := fastTransform(b)
	if !ok {
		t.Fatalf("fast path refused encoding/json's %s", b)
	}
	want, err := jcs.Transform(b)
	if err != nil || string(got) != string(want) {
		t.Fatalf("got %s, want %s (%v)", got, want, err)
	}
}
