package workflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/workrail/workrail/engine/canon"
)

// oldParse is Parse as it was before jsontext read the tree and json/v2
// the model, kept in a test file only while FuzzParseIsOld holds the new
// path to it: encoding/json read the file twice, the second time through
// Node.UnmarshalJSON, which validated each node's bytes again.
func oldParse(src []byte) (Workflow, error) {
	if off := invalidUTF8(src); off >= 0 {
		line, col := lineCol(src, off)
		return Workflow{}, Problems{{Line: line, Column: col, Message: "the file is not valid UTF-8 here: save it with UTF-8 encoding"}}
	}
	var tree any
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	if err := dec.Decode(&tree); err != nil {
		return Workflow{}, Problems{syntaxProblem(src, err)}
	}
	if dec.More() {
		return Workflow{}, Problems{locate(src, Problem{Message: "trailing data after the workflow object"})}
	}
	var r reader
	for _, n := range canon.BadNumbers(tree) {
		r.add(n.Pointer, n.Err.Error()+"; use a smaller number or a string", "")
	}
	r.check(tree, reflect.TypeFor[Workflow](), "")
	if r.typeErrors > 0 {
		return Workflow{}, r.located(src)
	}
	var w Workflow
	if err := json.Unmarshal(src, &w); err != nil {
		return Workflow{}, Problems{{Message: "could not be read: " + err.Error()}}
	}
	r.problems = append(r.problems, w.check()...)
	if len(r.problems) > 0 {
		return Workflow{}, r.located(src)
	}
	return w, nil
}

// FuzzParseIsOld holds Parse to oldParse while that is kept: the same
// workflow, or the same problems (texts, pointers, lines and columns, in
// the same order), for any bytes; and loopByName to the member decode it
// stands in for, on any object. It is seeded with the bundled
// workflows and the TypeScript-format fixtures.
func FuzzParseIsOld(f *testing.F) {
	for _, glob := range []string{"../../workflows/*.json", "../../workflows/testdata/*/*.json", "../../workflows/testdata/legacy/*/*.json"} {
		names, _ := filepath.Glob(glob)
		for _, n := range names {
			b, err := os.ReadFile(n)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	for _, s := range []string{``, ` `, `{}`, `{} ]`, `{}}`, `{} x`, `123a`, `[1]`, `{"id":1} ]`, `"\ud800"`, `{"steps":[{"Loop":null}]}`, `{"a":{"loop":1},"b":["body"],"BODY":null}`, `{"l\u006fop":1}`, `{"LoOp":[{"x":"}"}]}`,
		`{"steps":[{"id":"a","body":[]}],"steps":[{"id":"b"}]}`, `{"capabilities":{"a":"b"},"capabilities":{}}`,
		`{"steps":[{"id":"a","title":"A","prompt":"p","runCondition":{"var":"n","gt":"x","gt":1}}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if loop, ok := loopByName(src); ok && jsontext.Value(src).IsValid() {
			var keys struct {
				Loop jsontext.Value `json:"loop"`
				Body jsontext.Value `json:"body"`
			}
			if err := jsonv2.Unmarshal(src, &keys, modelOptions); err != nil || loop != (keys.Loop != nil || keys.Body != nil) {
				t.Fatalf("loopByName(%q) = %v; json/v2: %+v (%v)", src, loop, keys, err)
			}
		}
		w, err := Parse(src)
		want, wantErr := oldParse(src)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("Parse(%q):\n%v\noldParse:\n%v", src, err, wantErr)
		}
		var p, wantP Problems
		errors.As(err, &p)
		errors.As(wantErr, &wantP)
		if !reflect.DeepEqual(p, wantP) || !reflect.DeepEqual(w, want) {
			t.Fatalf("Parse(%q):\n%#v\n%#v\noldParse:\n%#v\n%#v", src, w, p, want, wantP)
		}
	})
}
