package legacy_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/workflow/legacy"
)

// largeLegacy is a file in the TypeScript format the size of the largest
// in that library (~90 KB, 36+ steps once its routine calls expand): the
// mixed fixture's steps repeated with fresh ids and longer prompts.
func largeLegacy(tb testing.TB) []byte {
	tb.Helper()
	b, err := os.ReadFile("testdata/mixed.json")
	if err != nil {
		tb.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		tb.Fatal(err)
	}
	base := doc["steps"].([]any)
	pad := strings.Repeat("Read the surrounding code before judging a line, and write down what you checked. ", 22)
	var steps []any
	for k := 0; ; k++ {
		for _, s := range base {
			steps = append(steps, suffixed(clone(s), fmt.Sprintf("-%d", k), pad))
		}
		doc["steps"] = steps
		out, _ := json.MarshalIndent(doc, "", "  ")
		if len(out) >= 88<<10 {
			return out
		}
	}
}

func clone(v any) any {
	b, _ := json.Marshal(v)
	var out any
	json.Unmarshal(b, &out)
	return out
}

// suffixed renames every id under a step and lengthens its prompt text.
func suffixed(v any, suffix, pad string) any {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			switch {
			case k == "id":
				x[k] = val.(string) + suffix
			case k == "prompt" || k == "text":
				x[k] = val.(string) + " " + pad
			default:
				x[k] = suffixed(val, suffix, pad)
			}
		}
	case []any:
		for i := range x {
			x[i] = suffixed(x[i], suffix, pad)
		}
	}
	return v
}

// BenchmarkCompileLarge normalizes and compiles a ~90 KB legacy file with
// its routine calls (goal: at most 5 ms).
func BenchmarkCompileLarge(b *testing.B) {
	src := largeLegacy(b)
	routines := routinesIn(fixtures(b))
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
		steps = len(c.Steps)
	}
	b.ReportMetric(float64(steps), "top-steps")
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
