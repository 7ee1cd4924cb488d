package canon_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/canon"
)

// The vectors in testdata/vectors.txt are "input<TAB>canonical" pairs taken
// from RFC 8785's rules: key ordering by UTF-16 code units, ES6 number
// formatting, minimal string escaping.
func TestJSONVectors(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "vectors.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		in, want, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("line %d: no tab", i+1)
		}
		var v any
		if err := json.Unmarshal([]byte(in), &v); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		got, err := canon.JSON(v)
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if string(got) != want {
			t.Errorf("line %d: canon.JSON(%s)\n got %s\nwant %s", i+1, in, got, want)
		}
	}
}

func TestDigestIsStable(t *testing.T) {
	type doc struct {
		B string `json:"b"`
		A int    `json:"a"`
	}
	_, d1, err := canon.Digest(doc{B: "<x>", A: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, d2, _ := canon.Digest(map[string]any{"a": 1, "b": "<x>"})
	if d1 != d2 {
		t.Fatalf("struct and map with the same content hash differently: %v vs %v", d1, d2)
	}
	// sha256 of the bytes {"a":1,"b":"<x>"}, computed independently.
	const want = "sha256:836f01bed2d0b38eadd56d2ce0bada6a9e237f179452b10364f92e5b45ab2d1b"
	if got := d1.String(); got != want {
		t.Fatalf("digest = %s, want %s", got, want)
	}
}

// Every number BadNumbers accepts canonicalises without error, to the
// value sent; every one it refuses is named by its pointer.
func TestBadNumbers(t *testing.T) {
	cases := []struct {
		doc  string
		want []string // pointers refused
	}{
		{`{"a":1,"b":-0,"c":0.1,"d":1e20,"e":1.7976931348623157e308,"f":9007199254740992,"g":-9007199254740992}`, nil},
		{`{"a":1e400}`, []string{"/a"}},
		{`{"a":-1e309,"b":[1,2e999]}`, []string{"/a", "/b/1"}},
		{`{"x/y":9007199254740993,"z~":-9007199254740993}`, []string{"/x~1y", "/z~0"}},
		{`[123456789012345678901234567890]`, []string{"/0"}},
	}
	for _, c := range cases {
		t.Run(c.doc, func(t *testing.T) {
			dec := json.NewDecoder(strings.NewReader(c.doc))
			dec.UseNumber()
			var v any
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range canon.BadNumbers(v) {
				got = append(got, p.Pointer)
			}
			if strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Fatalf("refused %v; want %v", got, c.want)
			}
			if c.want == nil {
				if _, err := canon.JSON(v); err != nil {
					t.Fatalf("accepted numbers do not canonicalise: %v", err)
				}
			}
		})
	}
}

// A number beyond a double is refused, as JCS refuses it (jsontext would
// write the largest double, giving two values one digest); the largest
// double itself, and its text in a string, are not.
func TestJSONRefusesNumbersBeyondADouble(t *testing.T) {
	for raw, ok := range map[string]bool{
		`[1e400]`:                             false,
		`{"a":{"b":-2e308}}`:                  false,
		`1` + strings.Repeat("0", 400):        false,
		`[1.7976931348623157e308]`:            true,
		`["1.7976931348623157e+308", 1e-400]`: true,
	} {
		got, err := canon.JSON(json.RawMessage(raw))
		if (err == nil) != ok {
			t.Errorf("canon.JSON(%.40s) = %s, %v; want accepted %v", raw, got, err, ok)
		}
	}
}
