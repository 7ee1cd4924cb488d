package workflows_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/workflow"
)

// FuzzParse feeds arbitrary bytes to workflow.Parse, seeded with every
// bundled workflow and every schema test document. Parse must never panic
// and must explain every rejection; whatever it accepts must compile, to
// the same hash every time, and must also pass the JSON Schema (the schema
// is never stricter than Parse).
//
// The seeds are 10-12 KB, so minimizing a new input can take the whole
// default -fuzzminimizetime (60s) and the exec counter stalls meanwhile;
// add -fuzzminimizetime=2s for short sessions.
func FuzzParse(f *testing.F) {
	for _, x := range bundledFiles(f) {
		f.Add(x.src)
	}
	for _, dir := range []string{"valid", "invalid", "semantic"} {
		for _, x := range testdataFiles(f, dir) {
			f.Add(x.src)
		}
	}
	workflowSchema(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		w, err := workflow.Parse(src)
		if err != nil {
			var p workflow.Problems
			if !errors.As(err, &p) || len(p) == 0 {
				t.Fatalf("Parse rejected the input without problems: %v", err)
			}
			for _, x := range p {
				if x.Message == "" {
					t.Fatalf("problem without a message: %+v", x)
				}
			}
			return
		}
		c1, err := compile.Compile(w)
		if err != nil {
			t.Fatalf("Parse accepted a workflow that does not compile: %v\n%s", err, src)
		}
		c2, err := compile.Compile(w)
		if err != nil {
			t.Fatalf("second Compile: %v", err)
		}
		if c1.Hash != c2.Hash || !bytes.Equal(c1.Canonical, c2.Canonical) {
			t.Fatalf("compiling twice gave %s and %s", c1.Hash, c2.Hash)
		}
		if err := validate(t, src); err != nil {
			t.Fatalf("Parse accepted what the schema rejects: %v\n%s", err, src)
		}
	})
}
