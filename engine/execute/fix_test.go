package execute_test

import (
	"encoding/json"
	"io/fs"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/fill"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/workflows"
)

// An agent that only copies nextCall makes progress even from errors it
// can fix: the suggested call succeeds.
func TestFixableErrorsCarryTheFix(t *testing.T) {
	r := newRig(t, catalogOf(t, map[string]string{
		"wr.hello.json": string(mustRead(t, "wr.hello.json")),
		"wr.ctx.json": `{"id":"wr.ctx","name":"Ctx","description":"d","version":"1",
		 "context":[{"name":"ticket","type":"string","required":true,"description":"the ticket id"},
		            {"name":"depth","type":"string","enum":["quick","deep"],"required":true,"description":"how deep"}],
		 "steps":[{"id":"a","title":"A","prompt":"a"}]}`,
	}))
	a := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
	b := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
	cases := []struct {
		name string
		tool string
		args map[string]any
	}{
		{"the trigger incident", "start", map[string]any{"workflowId": "wr.hello", "variables": map[string]any{"x": 1}, "completedSteps": []string{"greet"}}},
		{"misspelt workflow id", "start", map[string]any{"workflowId": "wr.helo"}},
		{"missing required context", "start", map[string]any{"workflowId": "wr.ctx", "context": map[string]any{"ticket": "T-1"}}},
		{"notes at the top level", "continue", map[string]any{"stateToken": a.StateToken, "ackToken": a.AckToken, "notes": "did it"}},
		{"ack of another run", "continue", map[string]any{"stateToken": a.StateToken, "ackToken": b.AckToken}},
		{"state token as ack", "continue", map[string]any{"stateToken": a.StateToken, "ackToken": a.StateToken}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, raw := r.call(t, c.tool, c.args)
			e, ok := res.(protocol.ErrorResult)
			if !ok || e.NextCall == nil {
				t.Fatalf("want an error with nextCall, got %s", raw)
			}
			// A value only the user gives is a marker: copied as it is the
			// call is refused, filled it goes.
			args := string(e.NextCall.Arguments)
			if fill.IsTemplate(args) {
				if again, b := r.call(t, "start", json.RawMessage(args)); again.ResultKind() != protocol.KindError {
					t.Fatalf("the fix copied with its markers was taken: %s", b)
				}
				args = strings.Replace(args, `"<<fill: depth: one of \"quick\" | \"deep\">>"`, `"deep"`, 1)
			}
			var next map[string]any
			json.Unmarshal([]byte(args), &next)
			tool := map[string]string{"start_workflow": "start", "continue_workflow": "continue"}[e.NextCall.Tool]
			if fixed, b := r.call(t, tool, next); fixed.ResultKind() != protocol.KindStep {
				t.Fatalf("following nextCall %s gave %s", args, b)
			}
		})
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := fs.ReadFile(workflows.FS, name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A suggested call carries the numbers the agent sent as it wrote them.
func TestFixKeepsNumbersAsSent(t *testing.T) {
	r := newRig(t, nil)
	res, _ := r.call(t, "start", map[string]any{"workflowId": "wr.helo", "context": json.RawMessage(`{"n":1e20,"f":0.30000000000000004}`)})
	e, ok := res.(protocol.ErrorResult)
	if !ok || e.NextCall == nil || !strings.Contains(string(e.NextCall.Arguments), `"f":0.30000000000000004,"n":1e20`) {
		t.Fatalf("nextCall = %+v", e.NextCall)
	}
}
