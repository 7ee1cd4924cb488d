package legacy_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/engine/workflow/legacy"
)

// libraryDir holds the fixtures in the TypeScript format the whole
// project tests with; its largest file is the size of the largest in the
// TypeScript WorkRail's library (about 90 KB, 36 steps once its routine
// calls expand).
const libraryDir = "../../../workflows/testdata/legacy/"

// library normalizes the large fixture's routines.
func libraryRoutines(tb testing.TB) func(engine.WorkflowID) (workflow.Workflow, bool) {
	tb.Helper()
	names, _ := filepath.Glob(libraryDir + "routines/*.json")
	byID := map[engine.WorkflowID]workflow.Workflow{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			tb.Fatal(err)
		}
		r, err := legacy.Normalize(b)
		if err != nil {
			tb.Fatalf("%s: %v", n, err)
		}
		byID[r.Workflow.ID] = r.Workflow
		if id := string(r.Workflow.ID); strings.HasPrefix(id, "routine-") {
			byID[engine.WorkflowID("wr."+id)] = r.Workflow
		}
	}
	return func(id engine.WorkflowID) (workflow.Workflow, bool) {
		w, ok := byID[id]
		return w, ok
	}
}

// BenchmarkCompileLarge normalizes and compiles the ~90 KB fixture with
// its routine calls (goal: at most 5 ms).
func BenchmarkCompileLarge(b *testing.B) {
	src, err := os.ReadFile(libraryDir + "mixed-platform-migration.json")
	if err != nil {
		b.Fatal(err)
	}
	routines := libraryRoutines(b)
	b.SetBytes(int64(len(src)))
	var steps int
	for b.Loop() {
		r, err := legacy.Normalize(src)
		if err != nil {
			b.Fatal(err)
		}
		c, _, err := compile.CompileWith(r.Workflow, compile.Options{Routines: routines, Dialect: compile.DialectTS, Rewrites: r.Rewrites()})
		if err != nil {
			b.Fatal(err)
		}
		steps = 0
		compile.Walk(c.Steps, func(n compile.Node) {
			if n.Step != nil {
				steps++
			}
		})
	}
	b.ReportMetric(float64(steps), "steps")
}

// FuzzNormalize: whatever the bytes, Normalize never panics, explains
// every rejection, and what it accepts compiles (routines aside) to the
// same hash every time.
func FuzzNormalize(f *testing.F) {
	for _, n := range []string{"testdata/mixed.json", "testdata/routine.json"} {
		b, _ := os.ReadFile(n)
		f.Add(b)
	}
	f.Add(doc("", plain))
	f.Fuzz(func(t *testing.T, src []byte) {
		r, err := legacy.Normalize(src)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("a rejection without problems")
			}
			return
		}
		for _, w := range r.Warnings {
			if w.Code == "" || w.Message == "" {
				t.Fatalf("a warning without code or message: %+v", w)
			}
		}
		c1, _, err1 := compile.CompileWith(r.Workflow, compile.Options{Rewrites: r.Rewrites()})
		c2, _, err2 := compile.CompileWith(r.Workflow, compile.Options{Rewrites: r.Rewrites()})
		if (err1 == nil) != (err2 == nil) || c1.Hash != c2.Hash {
			t.Fatalf("compiling twice differed: %v %v", err1, err2)
		}
	})
}
