package legacy

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unicode/utf8"
)

// checkPlain holds plain(tree) to what workflow.Parse reads of the
// bytes encode wrote of tree (encoding/json with UseNumber), wherever
// plain answers.
func checkPlain(t *testing.T, tree any, written []byte) {
	t.Helper()
	got, ok := plain(tree)
	if !ok {
		return
	}
	dec := json.NewDecoder(bytes.NewReader(written))
	dec.UseNumber()
	var want any
	if err := dec.Decode(&want); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("plain(%s):\n%#v\nencoding/json reads:\n%#v (%v)", written, got, want, err)
	}
}

// TestPlainIsWhatParseReads checks plain on every fixture's normalized
// tree, which holds what the normalizer builds besides what it decodes.
func TestPlainIsWhatParseReads(t *testing.T) {
	names, _ := filepath.Glob("../../../workflows/testdata/legacy/*.json")
	deeper, _ := filepath.Glob("../../../workflows/testdata/legacy/*/*.json")
	names = append(names, deeper...)
	more, _ := filepath.Glob("testdata/*.json")
	names = append(names, more...)
	if len(names) < 10 {
		t.Fatalf("only %d fixtures found", len(names))
	}
	legacyFiles, answered := 0, 0
	for _, n := range names {
		src, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		tree, warnings, problems := rewrite(src)
		if tree == nil || len(warnings) == 0 || len(problems) > 0 {
			continue
		}
		var b bytes.Buffer
		if err := encode(&b, tree); err != nil {
			t.Fatal(err)
		}
		checkPlain(t, tree, b.Bytes())
		legacyFiles++
		if _, ok := plain(tree); ok {
			answered++
		}
	}
	if answered != legacyFiles || answered < 10 {
		t.Fatalf("plain answered for %d of %d legacy fixtures", answered, legacyFiles)
	}
}

// FuzzDecode holds decode (jsontext) to the scan it replaced, while that
// is kept: on valid UTF-8 (all rewrite hands it), the same documents
// refused, and the same tree, written back by encode byte for byte, for
// the rest. encode's string quoting is held to encoding/json's on any
// bytes, and plain to what Parse reads of the tree written.
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
		if errA == nil {
			checkPlain(t, got, a.Bytes())
		}
	})
}
