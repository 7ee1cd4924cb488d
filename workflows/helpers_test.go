package workflows_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/workflows"
)

const schemaID = "https://workrail.dev/schema/workflow.schema.json"

// file is one workflow document: a bundled workflow or a testdata case.
type file struct {
	name string
	src  []byte
}

// bundledFiles returns every bundled workflow file, sorted by name.
func bundledFiles(tb testing.TB) []file {
	tb.Helper()
	names, err := fs.Glob(workflows.FS, "*.json")
	if err != nil {
		tb.Fatal(err)
	}
	if len(names) == 0 {
		tb.Fatal("no bundled workflows embedded")
	}
	sort.Strings(names)
	out := make([]file, len(names))
	for i, n := range names {
		b, err := fs.ReadFile(workflows.FS, n)
		if err != nil {
			tb.Fatal(err)
		}
		out[i] = file{n, b}
	}
	return out
}

// testdataFiles returns the *.json files of testdata/schema/<dir>.
func testdataFiles(tb testing.TB, dir string) []file {
	tb.Helper()
	names, err := filepath.Glob(filepath.Join("testdata", "schema", dir, "*.json"))
	if err != nil {
		tb.Fatal(err)
	}
	sort.Strings(names)
	out := make([]file, len(names))
	for i, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			tb.Fatal(err)
		}
		out[i] = file{filepath.Base(n), b}
	}
	return out
}

var (
	schemaOnce sync.Once
	schemaVal  *jsonschema.Schema
	schemaErr  error
)

// workflowSchema compiles the embedded workflow schema once.
func workflowSchema(tb testing.TB) *jsonschema.Schema {
	tb.Helper()
	schemaOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(workflows.Schema))
		if err != nil {
			schemaErr = err
			return
		}
		c := jsonschema.NewCompiler()
		if schemaErr = c.AddResource(schemaID, doc); schemaErr != nil {
			return
		}
		schemaVal, schemaErr = c.Compile(schemaID)
	})
	if schemaErr != nil {
		tb.Fatalf("compile workflow schema: %v", schemaErr)
	}
	return schemaVal
}

// validate checks src against the workflow schema.
func validate(tb testing.TB, src []byte) error {
	tb.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(src))
	if err != nil {
		return err
	}
	return workflowSchema(tb).Validate(inst)
}

// mustCompile parses and compiles src, failing the test on any error.
func mustCompile(tb testing.TB, name string, src []byte) (workflow.Workflow, compile.Compiled) {
	tb.Helper()
	w, err := workflow.Parse(src)
	if err != nil {
		tb.Fatalf("%s: Parse: %v", name, err)
	}
	c, err := compile.Compile(w)
	if err != nil {
		tb.Fatalf("%s: Compile: %v", name, err)
	}
	return w, c
}
