package execute_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/protocol"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

// The text of every result a guided agent sees, for every bundled
// workflow, is pinned: header, sections, prompts, blockers, next calls.
// A change is a deliberate golden update: go test ./engine/execute -run Golden -update.
func TestBundledStepTextGolden(t *testing.T) {
	list, _ := newRig(t, nil).x.List(context.Background(), nil).(protocol.ListResult)
	for _, w := range list.Workflows {
		t.Run(string(w.ID), func(t *testing.T) {
			var got bytes.Buffer
			for i, res := range executetest.Drive(t, newRig(t, nil).x, w.ID, "") {
				fmt.Fprintf(&got, "======== %02d %s\n%s\n", i, res.ResultKind(), res.RenderedText())
			}
			compareGolden(t, filepath.Join("testdata", "golden", string(w.ID)+".txt"), got.Bytes())
		})
	}
}

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./engine/execute -run Golden -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(g) && i < len(w); i++ {
			if g[i] != w[i] {
				t.Fatalf("%s differs at line %d:\n got %q\nwant %q\nIf the change is intended, run go test ./engine/execute -run Golden -update and review the diff.", path, i+1, g[i], w[i])
			}
		}
		t.Fatalf("%s differs in length (%d vs %d lines); run with -update if intended", path, len(g), len(w))
	}
}
