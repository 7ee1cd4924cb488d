package server_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/server"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

// goldenRig is a rig with the fixed test key ring, so tokens (and so the
// rendered text) are the same on every machine.
func goldenRig(t testing.TB) *rig {
	t.Helper()
	home := t.TempDir()
	keys, err := os.ReadFile(filepath.Join("testdata", "keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "keys.json"), keys, 0o600); err != nil {
		t.Fatal(err)
	}
	r := &rig{home: home, db: filepath.Join(home, "workrail.db")}
	r.open(t, nil)
	return r
}

// requiredInputs gives every required context input its first allowed
// value (or a plain value of its type).
func requiredInputs(t *testing.T, r *rig, id string) map[string]any {
	raw, _ := json.Marshal(map[string]any{"workflowId": id})
	res := r.x.Inspect(raw)
	in, ok := res.(server.InspectResult)
	if !ok {
		t.Fatalf("inspect %s: %s", id, res.RenderedText())
	}
	ctx := map[string]any{}
	for _, c := range in.Context {
		if !c.Required {
			continue
		}
		if len(c.Enum) > 0 {
			var v any
			json.Unmarshal(c.Enum[0], &v)
			ctx[c.Name] = v
			continue
		}
		ctx[c.Name] = map[string]any{"string": "example", "number": 1, "integer": 1, "boolean": true, "array": []any{"a"}}[string(c.Type)]
	}
	return ctx
}

// The text of every result a guided agent sees, for every bundled
// workflow, is pinned: header, sections, prompts, blockers, next calls.
// A change is a deliberate golden update: go test ./server -run Golden -update.
func TestBundledStepTextGolden(t *testing.T) {
	probe := goldenRig(t)
	list, _ := probe.x.List(nil).(server.ListResult)
	for _, w := range list.Workflows {
		id := string(w.ID)
		t.Run(id, func(t *testing.T) {
			r := goldenRig(t)
			start, _ := json.Marshal(map[string]any{"workflowId": id, "context": requiredInputs(t, r, id)})
			res := r.x.Start(start)
			var got bytes.Buffer
			for i := 0; ; i++ {
				if i > 200 {
					t.Fatal("no completion within 200 results")
				}
				fmt.Fprintf(&got, "======== %02d %s\n%s\n", i, res.ResultKind(), res.RenderedText())
				var next protocol.ContinueArgs
				switch v := res.(type) {
				case protocol.StepResult:
					next = v.NextCall.Arguments
					next.Output.NotesMarkdown = "Did " + string(v.Pending.StepID) + "."
				case protocol.BlockedResult:
					next = v.NextCall.Arguments
				case protocol.CompleteResult:
					compareGolden(t, filepath.Join("testdata", "golden", id+".txt"), got.Bytes())
					return
				default:
					t.Fatalf("unexpected result:\n%s", res.RenderedText())
				}
				raw, _ := json.Marshal(next)
				res = r.x.Continue(raw)
			}
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
		t.Fatalf("%v (run go test ./server -run Golden -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(g) && i < len(w); i++ {
			if g[i] != w[i] {
				t.Fatalf("%s differs at line %d:\n got %q\nwant %q\nIf the change is intended, run go test ./server -run Golden -update and review the diff.", path, i+1, g[i], w[i])
			}
		}
		t.Fatalf("%s differs in length (%d vs %d lines); run with -update if intended", path, len(g), len(w))
	}
}
