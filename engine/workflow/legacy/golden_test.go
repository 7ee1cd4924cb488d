package legacy_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/golden"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/engine/workflow/legacy"
)

// fixtures normalizes every testdata file, by name.
func fixtures(tb testing.TB) map[string]legacy.Result {
	tb.Helper()
	names, _ := filepath.Glob("testdata/*.json")
	out := map[string]legacy.Result{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			tb.Fatal(err)
		}
		r, err := legacy.Normalize(b)
		if err != nil {
			tb.Fatalf("%s: %v", n, err)
		}
		out[strings.TrimSuffix(filepath.Base(n), ".json")] = r
	}
	return out
}

// routinesIn finds the routines among normalized fixtures.
func routinesIn(all map[string]legacy.Result) func(engine.WorkflowID) (workflow.Workflow, bool) {
	return func(id engine.WorkflowID) (workflow.Workflow, bool) {
		for _, r := range all {
			if r.Workflow.ID == id && r.Workflow.Kind == workflow.KindRoutine {
				return r.Workflow, true
			}
		}
		return workflow.Workflow{}, false
	}
}

func compileLegacy(tb testing.TB, r legacy.Result, routines func(engine.WorkflowID) (workflow.Workflow, bool)) compile.Compiled {
	tb.Helper()
	c, _, err := compile.CompileWith(r.Workflow, compile.Options{Routines: routines, Dialect: compile.DialectTS, Rewrites: r.Rewrites()})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// TestGolden pins, for each fixture, the normalized canonical workflow
// with its warnings, and the compiled form with every rendered prompt
// (go test ./engine/workflow/legacy -update, then review the diff).
func TestGolden(t *testing.T) {
	all := fixtures(t)
	for name, r := range all {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			norm, _ := json.MarshalIndent(struct {
				Workflow workflow.Workflow `json:"workflow"`
				Warnings []legacy.Warning  `json:"warnings"`
			}{r.Workflow, r.Warnings}, "", "  ")
			b.Write(norm)
			b.WriteString("\n")
			golden.Check(t, filepath.Join("testdata", "golden", name+".normalized.json"), b.Bytes())

			c := compileLegacy(t, r, routinesIn(all))
			b.Reset()
			json.Indent(&b, c.Canonical, "", "  ")
			b.WriteString("\n")
			compile.Walk(c.Steps, func(n compile.Node) {
				if n.Step != nil {
					b.WriteString("\n==== " + string(n.Step.ID) + "\n" + n.Step.Prompt + "\n")
				}
			})
			golden.Check(t, filepath.Join("testdata", "golden", name+".compiled.txt"), b.Bytes())
		})
	}
}

// TestHandConvertedTwinHasAnotherHash: the normalized file, written out by
// hand as a canonical file, compiles to the same steps but never to the
// same hash as the legacy file, whose dialect, rewrites and rules are
// pinned.
func TestHandConvertedTwinHasAnotherHash(t *testing.T) {
	all := fixtures(t)
	r := all["mixed"]
	legacyC := compileLegacy(t, r, routinesIn(all))
	twin, err := legacy.Normalize(r.Canonical)
	if err != nil {
		t.Fatal(err)
	}
	if twin.Legacy() {
		t.Fatalf("the normalized file still reads as legacy: %+v", twin.Warnings)
	}
	twinC, _, err := compile.CompileWith(twin.Workflow, compile.Options{Routines: routinesIn(all)})
	if err != nil {
		t.Fatal(err)
	}
	if twinC.Hash == legacyC.Hash {
		t.Fatal("a legacy file and its canonical twin share a hash")
	}
	a, b := legacyC.Workflow, twinC.Workflow
	a.Dialect, a.Rewrites, a.DialectRules = "", nil, 0
	if sa, _ := json.Marshal(a); !bytes.Equal(sa, mustJSON(t, b)) {
		t.Error("the twin compiles to other steps than the legacy file, beyond dialect and rewrites")
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
