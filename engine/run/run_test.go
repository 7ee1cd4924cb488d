package run_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

func compiled(t *testing.T, steps string) compile.Compiled {
	t.Helper()
	src := `{"id":"user.t","name":"T","description":"d","version":"1","context":[
		{"name":"mode","type":"string","enum":["a","b"],"description":"m"},
		{"name":"more","type":"boolean","description":"keep going"},
		{"name":"items","type":"array","description":"things"},
		{"name":"n","type":"integer","description":"n"}],"steps":` + steps + `}`
	w, err := workflow.Parse([]byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	c, err := compile.Compile(w)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// walk runs to completion, sending ctx at start, stopping loops on the
// given step visits, and returns the visited step ids (with loop items)
// and the loop exits.
func walk(t *testing.T, c compile.Compiled, ctx map[string]any, stopAt map[string]bool, perStep map[string]map[string]any) (string, []event.LoopExit) {
	t.Helper()
	m, err := run.Start(c, ctx, workflow.Preferences{})
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	exits := m.LoopExits
	for i := 0; m.Snapshot.Position.Kind == run.Pending; i++ {
		if i > 500 {
			t.Fatal("did not finish in 500 moves")
		}
		p, _ := run.PendingStep(c, m.Snapshot)
		id := string(p.Step.ID)
		if len(p.Loops) > 0 {
			l := p.Loops[len(p.Loops)-1]
			id += fmt.Sprintf("@%d", l.Iteration)
			if l.Item != nil {
				id += fmt.Sprintf("=%v", l.Item)
			}
		}
		seen = append(seen, id)
		m, err = run.Advance(c, m.Snapshot, perStep[id], stopAt[id])
		if err != nil {
			t.Fatal(err)
		}
		exits = append(exits, m.LoopExits...)
	}
	return strings.Join(seen, " "), exits
}

func TestLoopsAndConditions(t *testing.T) {
	body := `[{"id":"x","title":"X","prompt":"x"}]`
	cases := []struct {
		name    string
		steps   string
		ctx     map[string]any
		stop    map[string]bool
		perStep map[string]map[string]any
		want    string
		exit    event.ExitReason
	}{
		{name: "for", steps: `[{"id":"l","title":"L","loop":{"kind":"for","count":3,"maxIterations":5},"body":` + body + `},{"id":"end","title":"E","prompt":"e"}]`,
			want: "x@1 x@2 x@3 end", exit: event.CountDone},
		{name: "forEach", steps: `[{"id":"l","title":"L","loop":{"kind":"forEach","over":"items","as":"it","maxIterations":5},"body":` + body + `}]`,
			ctx: map[string]any{"items": []any{"p", "q"}}, want: "x@1=p x@2=q", exit: event.ItemsDone},
		{name: "forEach over nothing", steps: `[{"id":"l","title":"L","loop":{"kind":"forEach","over":"items","as":"it","maxIterations":5},"body":` + body + `},{"id":"end","title":"E","prompt":"e"}]`,
			want: "end"},
		{name: "while until context says stop", steps: `[{"id":"l","title":"L","loop":{"kind":"while","condition":{"var":"more","equals":true},"maxIterations":9},"body":` + body + `}]`,
			ctx: map[string]any{"more": true}, perStep: map[string]map[string]any{"x@2": {"more": false}}, want: "x@1 x@2", exit: event.ConditionMet},
		{name: "while never set hits max", steps: `[{"id":"l","title":"L","loop":{"kind":"while","condition":{"var":"more","equals":true},"maxIterations":3},"body":` + body + `}]`,
			ctx: map[string]any{"more": true}, want: "x@1 x@2 x@3", exit: event.MaxIterations},
		{name: "until runs once at least", steps: `[{"id":"l","title":"L","loop":{"kind":"until","condition":{"var":"more","equals":false},"maxIterations":4},"body":` + body + `}]`,
			ctx: map[string]any{"more": false}, want: "x@1", exit: event.ConditionMet},
		{name: "loop control stop", steps: `[{"id":"l","title":"L","loop":{"kind":"for","count":9,"maxIterations":9},"body":[{"id":"x","title":"X","prompt":"x"},{"id":"y","title":"Y","prompt":"y"}]}]`,
			stop: map[string]bool{"x@2": true}, want: "x@1 y@1 x@2 y@2", exit: event.StopRequested},
		{name: "nested loops", steps: `[{"id":"o","title":"O","loop":{"kind":"for","count":2,"maxIterations":2},"body":[{"id":"i","title":"I","loop":{"kind":"for","count":2,"maxIterations":2},"body":` + body + `}]}]`,
			want: "x@1 x@2 x@1 x@2", exit: event.CountDone},
		{name: "conditions pick a branch", steps: `[{"id":"a","title":"A","prompt":"a","runCondition":{"var":"mode","equals":"a"}},{"id":"b","title":"B","prompt":"b","runCondition":{"var":"mode","equals":"b"}}]`,
			ctx: map[string]any{"mode": "b"}, want: "b"},
		{name: "every step skipped completes", steps: `[{"id":"a","title":"A","prompt":"a","runCondition":{"var":"n","gt":1}}]`, want: ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, exits := walk(t, compiled(t, c.steps), c.ctx, c.stop, c.perStep)
			if got != c.want {
				t.Fatalf("visited %q; want %q", got, c.want)
			}
			if c.exit != "" && (len(exits) == 0 || exits[len(exits)-1].Reason != c.exit) {
				t.Fatalf("loop exits %+v; want last reason %s", exits, c.exit)
			}
		})
	}
}

func TestSkipsNameUnsetVariables(t *testing.T) {
	c := compiled(t, `[{"id":"a","title":"A","prompt":"a","runCondition":{"and":[{"var":"mode","equals":"a"},{"var":"n","gt":1}]}},{"id":"b","title":"B","prompt":"b"}]`)
	m, _ := run.Start(c, map[string]any{"n": json.Number("5")}, workflow.Preferences{})
	if len(m.Skipped) != 1 || m.Skipped[0].StepID != "a" || strings.Join(m.Skipped[0].Unset, ",") != "mode" {
		t.Fatalf("skips = %+v; want a skipped with mode unset", m.Skipped)
	}
	if m.Snapshot.Position.Step != "b" {
		t.Fatalf("pending %s; want b", m.Snapshot.Position.Step)
	}
}

func TestCheckRejectsForeignSnapshots(t *testing.T) {
	c := compiled(t, `[{"id":"a","title":"A","prompt":"a"}]`)
	other := compiled(t, `[{"id":"b","title":"B","prompt":"b"}]`)
	m, _ := run.Start(c, nil, workflow.Preferences{})
	s := m.Snapshot
	if err := run.Check(other, s); err == nil {
		t.Fatal("a snapshot of one workflow checked against another")
	}
	s.Position.Path = []run.Frame{{Index: 7}}
	if err := run.Check(c, s); err == nil {
		t.Fatal("a cursor outside the workflow was accepted")
	}
}
