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
