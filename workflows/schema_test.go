package workflows_test

import (
	"testing"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/workflow"
)

// TestSchemaAgreesWithParse runs the documents under testdata/schema
// through both the Go reader and the JSON Schema:
//
//	valid/     accepted by both (and compiled)
//	invalid/   rejected by both
//	semantic/  rejected by Parse only: rules that need the whole document
func TestSchemaAgreesWithParse(t *testing.T) {
	cases := []struct {
		dir      string
		parseOK  bool
		schemaOK bool
		atLeast  int
	}{
		{dir: "valid", parseOK: true, schemaOK: true, atLeast: 5},
		{dir: "invalid", parseOK: false, schemaOK: false, atLeast: 12},
		{dir: "semantic", parseOK: false, schemaOK: true, atLeast: 5},
	}
	for _, tc := range cases {
		files := testdataFiles(t, tc.dir)
		if len(files) < tc.atLeast {
			t.Errorf("testdata/schema/%s has %d files; want at least %d", tc.dir, len(files), tc.atLeast)
		}
		for _, f := range files {
			t.Run(tc.dir+"/"+f.name, func(t *testing.T) {
				w, perr := workflow.Parse(f.src)
				serr := validate(t, f.src)
				if got := perr == nil; got != tc.parseOK {
					t.Errorf("Parse accepted=%v, want %v (err: %v)", got, tc.parseOK, perr)
				}
				if got := serr == nil; got != tc.schemaOK {
					t.Errorf("schema accepted=%v, want %v (err: %v)", got, tc.schemaOK, serr)
				}
				if perr == nil {
					if _, err := compile.Compile(w); err != nil {
						t.Errorf("Compile: %v", err)
					}
				}
			})
		}
	}
}
