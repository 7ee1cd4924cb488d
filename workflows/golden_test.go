package workflows_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/workrail/workrail/engine/golden"
)

// TestCompiledGolden compares each bundled workflow's compiled canonical
// JSON (indented for review) with testdata/compiled/<id>.json. Any change
// to a workflow or to the compiler shows up here as a reviewable diff.
// Refresh with: go test ./workflows -run TestCompiledGolden -update
func TestCompiledGolden(t *testing.T) {
	want := map[string]bool{}
	for _, f := range bundledFiles(t) {
		w, c := mustCompile(t, f.name, f.src)
		name := string(w.ID) + ".json"
		want[name] = true
		t.Run(name, func(t *testing.T) {
			var got bytes.Buffer
			if err := json.Indent(&got, c.Canonical, "", "  "); err != nil {
				t.Fatal(err)
			}
			got.WriteByte('\n')
			golden.Check(t, filepath.Join("testdata", "compiled", name), got.Bytes())
		})
	}
	entries, err := os.ReadDir(filepath.Join("testdata", "compiled"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !want[e.Name()] {
			t.Errorf("testdata/compiled/%s has no bundled workflow; delete it", e.Name())
		}
	}
}
