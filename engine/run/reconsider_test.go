package run_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// dialect compiles steps as a file in the TypeScript format compiles
// today (its run-time rules of revision 2), or, with ts false, as a
// canonical file.
func dialect(t testing.TB, ts bool, steps string) compile.Compiled {
	t.Helper()
	var w workflow.Workflow
	src := `{"id":"user.t","name":"T","description":"d","version":"1","context":[
		{"name":"x","type":"number","description":"x","lenient":true},{"name":"y","type":"number","description":"y","lenient":true}],"steps":` + steps + `}`
	if err := json.Unmarshal([]byte(src), &w); err != nil {
		t.Fatal(err)
	}
	opts := compile.Options{}
	if ts {
		opts.Dialect = compile.DialectTS
	}
	c, _, err := compile.CompileWith(w, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSkippedStepsAreReconsidered: under the workrail-ts dialect's rules a
// top-level step or loop skipped by its runCondition is reconsidered after
// each advance, in the file's order, as the TypeScript WorkRail picks the
// first eligible step it has not run: it runs late, once, as soon as the
// context satisfies it, and the walk then goes on where it was. A loop
// that its own condition does not enter is done, as there. A canonical
// file's skips stay skipped.
func TestSkippedStepsAreReconsidered(t *testing.T) {
	step := func(id, cond string) string {
		s := `{"id":"` + id + `","title":"` + strings.ToUpper(id) + `","prompt":"p"`
		if cond != "" {
			s += `,"runCondition":` + cond
		}
		return s + "}"
	}
	x1, y1 := `{"var":"x","equals":1}`, `{"var":"y","equals":1}`
	for _, tc := range []struct {
		name, steps string
		sends       map[string]map[string]any // step → context sent with its advance
		ts, plain   string                    // the steps presented, with and without the rules
		late        map[string]string         // step presented → the node its move ran late
	}{
		{name: "a skipped step runs after the advance whose context satisfies it",
			steps: "[" + step("a", x1) + "," + step("b", "") + "," + step("c", "") + "]",
			sends: map[string]map[string]any{"b": {"x": 1}},
			ts:    "b a c", plain: "b c", late: map[string]string{"a": "a"}},
		{name: "several run in the file's order, each once",
			steps: "[" + step("a", x1) + "," + step("b", y1) + "," + step("c", "") + "," + step("d", "") + "]",
			sends: map[string]map[string]any{"c": {"x": 1, "y": 1}},
			ts:    "c a b d", plain: "c d", late: map[string]string{"a": "a", "b": "b"}},
		{name: "one still skipped stays open for a later advance",
			steps: "[" + step("a", x1) + "," + step("b", y1) + "," + step("c", "") + "," + step("d", "") + "]",
			sends: map[string]map[string]any{"c": {"y": 1}, "d": {"x": 1}},
			ts:    "c b d a", plain: "c d", late: map[string]string{"b": "b", "a": "a"}},
		{name: "a skipped loop is entered late",
			steps: `[{"id":"l","title":"L","runCondition":` + x1 + `,"loop":{"kind":"for","count":2,"maxIterations":2},"body":[` + step("in", "") + `]},` + step("b", "") + "," + step("c", "") + "]",
			sends: map[string]map[string]any{"b": {"x": 1}},
			ts:    "b in@1 in@2 c", plain: "b c", late: map[string]string{"in@1": "l"}},
		{name: "the end of the run reconsiders too",
			steps: "[" + step("a", x1) + "," + step("b", "") + "]",
			sends: map[string]map[string]any{"b": {"x": 1}},
			ts:    "b a", plain: "b", late: map[string]string{"a": "a"}},
		{name: "a loop its own condition does not enter is done",
			steps: `[{"id":"l","title":"L","loop":{"kind":"while","condition":` + x1 + `,"maxIterations":2},"body":[` + step("in", "") + `]},` + step("b", "") + "," + step("c", "") + "]",
			sends: map[string]map[string]any{"b": {"x": 1}},
			ts:    "b c", plain: "b c"},
		{name: "a step skipped inside a loop is not reconsidered",
			steps: `[{"id":"l","title":"L","loop":{"kind":"for","count":2,"maxIterations":2},"body":[` + step("a", x1) + "," + step("b", "") + `]},` + step("c", "") + "]",
			sends: map[string]map[string]any{"b@1": {"x": 1}},
			ts:    "b@1 a@2 b@2 c", plain: "b@1 a@2 b@2 c"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, ts := range []bool{true, false} {
				c := dialect(t, ts, tc.steps)
				got, late := walkLate(t, c, tc.sends)
				want := map[bool]string{true: tc.ts, false: tc.plain}[ts]
				if got != want {
					t.Fatalf("under the dialect's rules %v: presented %q; want %q", ts, got, want)
				}
				if !ts {
					if len(late) > 0 {
						t.Errorf("a canonical file ran %v late", late)
					}
					continue
				}
				if len(late) != len(tc.late) {
					t.Fatalf("late runs %v; want %v", late, tc.late)
				}
				for at, node := range tc.late {
					if late[at] != node {
						t.Errorf("the move to %s ran %q late; want %s", at, late[at], node)
					}
				}
			}
		})
	}
}

// walkLate runs c to completion, sending the context sends names with each
// step's advance, and returns the steps presented and, per step, the node
// the move to it ran late.
func walkLate(t *testing.T, c compile.Compiled, sends map[string]map[string]any) (string, map[string]string) {
	t.Helper()
	m, err := run.Start(c, nil, workflow.Preferences{})
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	late := map[string]string{}
	for i := 0; m.Snapshot.Position.Kind == run.Pending; i++ {
		if i > 50 {
			t.Fatal("did not finish in 50 moves")
		}
		p, _ := run.PendingStep(c, m.Snapshot)
		id := string(p.Step.ID)
		if len(p.Loops) > 0 {
			id += "@" + string(rune('0'+p.Loops[0].Iteration))
		}
		for _, l := range m.Late {
			late[id] = string(l.StepID)
		}
		seen = append(seen, id)
		if m, err = run.Advance(c, m.Snapshot, sends[id], false); err != nil {
			t.Fatal(err)
		}
		if err := run.Check(c, m.Snapshot); err != nil {
			t.Fatal(err)
		}
	}
	return strings.Join(seen, " "), late
}
