package run_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// canonical compiles a workflow written in the canonical language with
// the constructs the strict checker may not know yet (it decodes the model
// directly; the checker's rules are tested where they live).
func canonical(t testing.TB, extra, steps string) compile.Compiled {
	t.Helper()
	src := `{"id":"user.t","name":"T","description":"d","version":"1",` + extra + `"steps":` + steps + `}`
	var w workflow.Workflow
	if err := json.Unmarshal([]byte(src), &w); err != nil {
		t.Fatalf("decode: %v", err)
	}
	c, err := compile.Compile(w)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestLoopRunTimeRules(t *testing.T) {
	x := `{"id":"x","title":"X","prompt":"x"}`
	decide := `{"id":"d","title":"D","prompt":"d","output":{"contractRef":"wr.contracts.loop_control"}}`
	cases := []struct {
		name    string
		steps   string
		ctx     map[string]any
		stop    map[string]bool
		perStep map[string]map[string]any
		want    string
		exit    event.ExitReason
		skip    string // the skip recorded for the loop, "reason: condition"
	}{
		{name: "condition-less while runs until its decision step says stop",
			steps: `[{"id":"l","title":"L","loop":{"kind":"while","maxIterations":9},"body":[` + x + `,` + decide + `]}]`,
			stop:  map[string]bool{"d@3": true}, want: "x@1 d@1 x@2 d@2 x@3 d@3", exit: event.StopRequested},
		{name: "condition-less while that is never stopped ends at maxIterations",
			steps: `[{"id":"l","title":"L","loop":{"kind":"while","maxIterations":2},"body":[` + decide + `]},{"id":"e","title":"E","prompt":"e"}]`,
			want:  "d@1 d@2 e", exit: event.MaxIterations},
		{name: "loop runCondition false skips the loop with its condition",
			steps: `[{"id":"l","title":"L","runCondition":{"var":"mode","equals":"deep"},"loop":{"kind":"for","count":2,"maxIterations":2},"body":[` + x + `]},{"id":"e","title":"E","prompt":"e"}]`,
			ctx:   map[string]any{"mode": "quick"}, want: "e", skip: "loop_not_entered: mode == \"deep\""},
		{name: "loop runCondition true enters",
			steps: `[{"id":"l","title":"L","runCondition":{"var":"mode","equals":"deep"},"loop":{"kind":"for","count":2,"maxIterations":2},"body":[` + x + `]}]`,
			ctx:   map[string]any{"mode": "deep"}, want: "x@1 x@2", exit: event.CountDone},
		{name: "body conditions read the named loop variables",
			steps: `[{"id":"l","title":"L","loop":{"kind":"forEach","over":"items","as":"file","indexVar":"i","iterationVar":"n","maxIterations":5},"body":[
				{"id":"first","title":"F","prompt":"f","runCondition":{"var":"i","equals":0}},
				{"id":"go","title":"G","prompt":"g","runCondition":{"var":"file","equals":"b.go"}},
				{"id":"third","title":"T","prompt":"t","runCondition":{"var":"n","gte":3}}]}]`,
			ctx: map[string]any{"items": []any{"a.md", "b.go", "c.md"}}, want: "first@1=a.md go@2=b.go third@3=c.md", exit: event.ItemsDone},
		{name: "body conditions read the default loop variables",
			steps: `[{"id":"l","title":"L","loop":{"kind":"forEach","over":"items","as":"","maxIterations":5},"body":[
				{"id":"y","title":"Y","prompt":"y","runCondition":{"and":[{"var":"currentIndex","equals":1},{"var":"currentIteration","equals":2},{"var":"currentItem","equals":"q"}]}}]}]`,
			ctx: map[string]any{"items": []any{"p", "q"}}, want: "y@2=q", exit: event.ItemsDone},
		{name: "any loop kind shows its iteration under its iterationVar",
			steps: `[{"id":"l","title":"L","loop":{"kind":"for","count":3,"iterationVar":"pass","maxIterations":3},"body":[
				{"id":"late","title":"Late","prompt":"l","runCondition":{"var":"pass","gte":2}}]}]`,
			want: "late@2 late@3", exit: event.CountDone},
		{name: "a for loop runs as many times as its countVar holds when reached",
			steps: `[{"id":"l","title":"L","loop":{"kind":"for","countVar":"n","maxIterations":5},"body":[` + x + `]},{"id":"e","title":"E","prompt":"e"}]`,
			ctx:   map[string]any{"n": json.Number("2")}, want: "x@1 x@2 e", exit: event.CountDone},
		{name: "a countVar above maxIterations runs maxIterations",
			steps: `[{"id":"l","title":"L","loop":{"kind":"for","countVar":"n","maxIterations":2},"body":[` + x + `]}]`,
			ctx:   map[string]any{"n": json.Number("7")}, want: "x@1 x@2", exit: event.MaxIterations},
		{name: "a countVar of 0 skips the loop",
			steps: `[{"id":"l","title":"L","loop":{"kind":"for","countVar":"n","maxIterations":2},"body":[` + x + `]},{"id":"e","title":"E","prompt":"e"}]`,
			ctx:   map[string]any{"n": json.Number("0")}, want: "e", skip: "loop_not_entered: "},
		{name: "an empty required array skips the loop",
			steps: `[{"id":"l","title":"L","loop":{"kind":"forEach","over":"items","as":"it","itemsRequired":true,"maxIterations":5},"body":[` + x + `]},{"id":"e","title":"E","prompt":"e"}]`,
			ctx:   map[string]any{"items": []any{}}, want: "e", skip: "loop_not_entered: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cw := canonical(t, "", c.steps)
			got, exits := walk(t, cw, c.ctx, c.stop, c.perStep)
			if got != c.want {
				t.Fatalf("visited %q; want %q", got, c.want)
			}
			if c.exit != "" && (len(exits) == 0 || exits[len(exits)-1].Reason != c.exit) {
				t.Fatalf("loop exits %+v; want last reason %s", exits, c.exit)
			}
			if c.skip != "" {
				m, err := run.Start(cw, c.ctx, workflow.Preferences{})
				if err != nil {
					t.Fatal(err)
				}
				if len(m.Skipped) == 0 || string(m.Skipped[0].Reason)+": "+m.Skipped[0].Condition != c.skip {
					t.Fatalf("skips %+v; want %q", m.Skipped, c.skip)
				}
			}
		})
	}
}

// A forEach loop whose array is required refuses a start or an advance
// that reaches it without the array, naming the loop and the variable;
// with the array sent, the same advance goes on.
func TestRequiredItemsAreAnInputError(t *testing.T) {
	cw := canonical(t, "", `[{"id":"a","title":"A","prompt":"a"},
		{"id":"files","title":"Files","loop":{"kind":"forEach","over":"items","as":"it","itemsRequired":true,"maxIterations":5},"body":[{"id":"x","title":"X","prompt":"x"}]}]`)
	for _, tc := range []struct {
		name string
		ctx  map[string]any
		want string
	}{
		{"missing", nil, "context.items, which is not set"},
		{"not an array", map[string]any{"items": "a.go"}, `context.items, which is not an array but "a.go"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			direct := canonical(t, "", `[{"id":"files","title":"Files","loop":{"kind":"forEach","over":"items","as":"it","itemsRequired":true,"maxIterations":5},"body":[{"id":"x","title":"X","prompt":"x"}]}]`)
			if _, err := run.Start(direct, tc.ctx, workflow.Preferences{}); !isInput(err, tc.want) {
				t.Fatalf("start: %v; want INVALID_INPUT naming %q", err, tc.want)
			}
			m, err := run.Start(cw, tc.ctx, workflow.Preferences{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = run.Advance(cw, m.Snapshot, nil, false)
			if !isInput(err, tc.want) || !strings.Contains(err.Error(), "loop files (Files)") {
				t.Fatalf("advance: %v; want INVALID_INPUT naming the loop and %q", err, tc.want)
			}
			next, err := run.Advance(cw, m.Snapshot, map[string]any{"items": []any{"a.go"}}, false)
			if err != nil || next.Snapshot.Position.Step != "x" {
				t.Fatalf("advance with the array: %v, at %s; want x", err, next.Snapshot.Position.Step)
			}
		})
	}
}

func isInput(err error, want string) bool {
	var e *engine.Error
	return errors.As(err, &e) && e.Code == engine.CodeInvalidInput && strings.Contains(e.Message, want)
}

// Existing loops keep their behaviour: a forEach without itemsRequired
// over a missing array is skipped, as before.
func TestOptionalItemsStillSkip(t *testing.T) {
	cw := canonical(t, "", `[{"id":"l","title":"L","loop":{"kind":"forEach","over":"items","as":"it","maxIterations":5},"body":[{"id":"x","title":"X","prompt":"x"}]},{"id":"e","title":"E","prompt":"e"}]`)
	m, err := run.Start(cw, nil, workflow.Preferences{})
	if err != nil || m.Snapshot.Position.Step != "e" || len(m.Skipped) != 1 || m.Skipped[0].Reason != event.LoopNotEntered {
		t.Fatalf("start = %+v, %v; want e with the loop skipped", m, err)
	}
}

// A loop that cannot run on the context it reaches (a forEach whose
// required array, a for loop whose countVar, holds nothing it can run on)
// is an INVALID_INPUT error in the modes that stop, and, in
// full_auto_never_stop, skipped with a critical gap naming the input; a
// countVar that stops holding a count while the loop runs leaves it the
// same way.
func TestUnrunnableLoops(t *testing.T) {
	never := workflow.Preferences{Autonomy: workflow.FullAutoNeverStop}
	for _, tc := range []struct {
		name, loop string
		ctx        map[string]any
		want       string
	}{
		{"forEach without its array", `{"kind":"forEach","over":"items","as":"it","itemsRequired":true,"maxIterations":5}`, nil, "context.items, which is not set"},
		{"countVar not set", `{"kind":"for","countVar":"n","maxIterations":5}`, nil, "context.n says, which is not set"},
		{"countVar a fraction", `{"kind":"for","countVar":"n","maxIterations":5}`, map[string]any{"n": json.Number("1.5")}, "which is not a whole number of 0 or more but 1.5"},
		{"countVar negative", `{"kind":"for","countVar":"n","maxIterations":5}`, map[string]any{"n": json.Number("-1")}, "but -1"},
		{"countVar a text", `{"kind":"for","countVar":"n","maxIterations":5}`, map[string]any{"n": "2"}, `but "2"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cw := canonical(t, "", `[{"id":"l","title":"L","loop":`+tc.loop+`,"body":[{"id":"x","title":"X","prompt":"x"}]},{"id":"e","title":"E","prompt":"e"}]`)
			if _, err := run.Start(cw, tc.ctx, workflow.Preferences{Autonomy: workflow.Guided}); !isInput(err, tc.want) {
				t.Fatalf("guided start: %v; want INVALID_INPUT naming %q", err, tc.want)
			}
			m, err := run.Start(cw, tc.ctx, never)
			if err != nil {
				t.Fatalf("never-stop start: %v", err)
			}
			if m.Snapshot.Position.Step != "e" || len(m.Skipped) != 1 || m.Skipped[0].StepID != "l" || len(m.Gaps) != 1 {
				t.Fatalf("never-stop start = at %s, skipped %+v, gaps %+v; want e, the loop skipped and one gap", m.Snapshot.Position.Step, m.Skipped, m.Gaps)
			}
			if g := m.Gaps[0]; g.Severity != event.SeverityCritical || g.RelatedStepID != "l" || !strings.Contains(g.Summary, tc.want) {
				t.Errorf("gap %+v; want a critical one for l saying %q", g, tc.want)
			}
		})
	}
	t.Run("countVar that stops holding a count", func(t *testing.T) {
		cw := canonical(t, "", `[{"id":"l","title":"L","loop":{"kind":"for","countVar":"n","maxIterations":5},"body":[{"id":"x","title":"X","prompt":"x"}]},{"id":"e","title":"E","prompt":"e"}]`)
		m, err := run.Start(cw, map[string]any{"n": json.Number("3")}, never)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := run.Advance(cw, withAutonomy(m.Snapshot, workflow.Guided), map[string]any{"n": "many"}, false); !isInput(err, `but "many"`) {
			t.Fatalf("guided advance: %v", err)
		}
		next, err := run.Advance(cw, m.Snapshot, map[string]any{"n": "many"}, false)
		if err != nil || next.Snapshot.Position.Step != "e" || len(next.Gaps) != 1 || len(next.Skipped) != 0 {
			t.Fatalf("never-stop advance = at %s, gaps %+v, skipped %+v, %v; want e, one gap and no skip (the loop ran)",
				next.Snapshot.Position.Step, next.Gaps, next.Skipped, err)
		}
	})
}

func withAutonomy(s run.Snapshot, a workflow.Autonomy) run.Snapshot {
	s.Preferences.Autonomy = a
	return s
}
