package e2e

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mark3labs/mcp-go/client"
)

// bundledIDs lists the wr.* workflows the daemon offers.
func bundledIDs(t *testing.T, c *client.Client) []string {
	t.Helper()
	s, _ := callTool(t, c, "list_workflows", map[string]any{})
	var ids []string
	for _, w := range dig(s, "workflows").([]any) {
		m := w.(map[string]any)
		if str(m, "source", "kind") == "bundled" {
			ids = append(ids, str(m, "id"))
		}
	}
	if len(ids) < 7 {
		t.Fatalf("only %d bundled workflows: %v", len(ids), ids)
	}
	return ids
}

// requiredContext builds a value for every required context input, from
// inspect_workflow: the first enum value, or a plain value of the type.
func requiredContext(t *testing.T, c *client.Client, id string) map[string]any {
	t.Helper()
	s, _ := callTool(t, c, "inspect_workflow", map[string]any{"workflowId": id})
	ctx := map[string]any{}
	for _, x := range dig(s, "context").([]any) {
		in := x.(map[string]any)
		if in["required"] != true {
			continue
		}
		if enum, ok := in["enum"].([]any); ok && len(enum) > 0 {
			ctx[str(in, "name")] = enum[0]
			continue
		}
		ctx[str(in, "name")] = map[string]any{"string": "example", "number": 1, "integer": 1, "boolean": true, "array": []any{"a"}}[str(in, "type")]
	}
	return ctx
}

// follow drives a run as a deciding agent: each answer's nextCall with
// its markers filled (plainAnswer), through steps and blocks, to
// completion.
func follow(t *testing.T, c *client.Client, r result, limit int) (steps, blocks int) {
	t.Helper()
	for i := 0; i < limit; i++ {
		switch r.kind() {
		case "complete":
			return steps, blocks
		case "step":
			steps++
		case "blocked":
			blocks++
		default:
			t.Fatalf("kind %s:\n%s", r.kind(), r.Text)
		}
		step := str(r.S, "pending", "stepId")
		r = call(t, c, "continue_workflow", fillCall(t, r, func(f map[string]any) any { return plainAnswer(f, "Did "+step+".") }))
	}
	t.Fatalf("no completion within %d calls", limit)
	return
}

// smallTour reports the bundled workflows that ask for no output and no
// user: the tour (wr.hello) and start_session's one notes step
// (wr.session). The others all declare an output contract and a
// user-only dependency.
func smallTour(id string) bool { return id == "wr.hello" || id == "wr.session" }

// Guided: every bundled workflow completes for an agent that fills each
// call it is given (TestBundledWorkflowsLiteralAgent holds the one that
// copies it to the rails).
func TestBundledWorkflowsRunGuided(t *testing.T) {
	c := startShim(t, newHome(t))
	for _, id := range bundledIDs(t, c) {
		t.Run(id, func(t *testing.T) {
			r := call(t, c, "start_workflow", map[string]any{"workflowId": id, "mode": "wr.modes.guided", "context": requiredContext(t, c, id)})
			steps, blocks := follow(t, c, r, 400)
			t.Logf("%s: %d steps, %d blocks", id, steps, blocks)
		})
	}
}

// Never-stop: an agent that sends no output, no context, and even broken
// artifacts still reaches complete without a single blocked result, and
// the gaps are recorded.
func TestBundledWorkflowsNeverStop(t *testing.T) {
	home := newHome(t)
	c := startShim(t, home)
	broken := []any{
		map[string]any{"kind": "wr.contracts.gaps"},
		map[string]any{"kind": "wr.contracts.loop_control", "decision": "maybe"},
		map[string]any{"kind": "wr.contracts.capability_observation", "capability": "telepathy"},
		map[string]any{"kind": "wr.user_response"},
	}
	for _, id := range bundledIDs(t, c) {
		for _, adversarial := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/broken=%v", id, adversarial), func(t *testing.T) {
				r := call(t, c, "start_workflow", map[string]any{"workflowId": id, "mode": "wr.modes.full_auto_never_stop", "context": requiredContext(t, c, id)})
				gaps := 0
				for i := 0; r.kind() != "complete"; i++ {
					if r.kind() != "step" || i > 400 {
						t.Fatalf("call %d returned %s:\n%s", i, r.kind(), r.Text)
					}
					args := map[string]any{"stateToken": str(r.S, "stateToken"), "ackToken": str(r.S, "ackToken")}
					if adversarial {
						args["output"] = map[string]any{"artifacts": broken}
					}
					r = call(t, c, "continue_workflow", args)
					if g, ok := r.S["gapsRecorded"].([]any); ok {
						gaps += len(g)
					}
				}
				if !smallTour(id) && gaps == 0 {
					t.Errorf("no gaps recorded for an agent that sent nothing")
				}
			})
		}
	}
}

// Guided, the same silent agent is blocked at the first step that needs an
// output; the blocked answer's call copied as it is is blocked again, and
// filled it unblocks.
func TestGuidedBlockedCallFilledUnblocks(t *testing.T) {
	c := startShim(t, newHome(t))
	for _, id := range bundledIDs(t, c) {
		if smallTour(id) {
			continue
		}
		t.Run(id, func(t *testing.T) {
			r := call(t, c, "start_workflow", map[string]any{"workflowId": id, "context": requiredContext(t, c, id)})
			for i := 0; r.kind() == "step"; i++ {
				if i > 200 {
					t.Fatal("never blocked")
				}
				r = call(t, c, "continue_workflow", map[string]any{"stateToken": str(r.S, "stateToken"), "ackToken": str(r.S, "ackToken")})
			}
			if r.kind() != "blocked" {
				t.Fatalf("silent guided agent reached %s without a block", r.kind())
			}
			blockedAt := str(r.S, "pending", "stepId")
			copied := call(t, c, "continue_workflow", dig(r.S, "nextCall", "arguments").(map[string]any))
			if copied.kind() != "blocked" || str(copied.S, "pending", "stepId") != blockedAt {
				t.Fatalf("the blocked call copied as it is passed %s: %s", blockedAt, copied.Raw)
			}
			next := call(t, c, "continue_workflow", fillCall(t, copied, func(f map[string]any) any { return plainAnswer(f, "Did it.") }))
			if next.kind() == "blocked" || (next.kind() == "step" && str(next.S, "pending", "stepId") == blockedAt) {
				b, _ := json.Marshal(next.S["blockers"])
				t.Fatalf("the filled call did not unblock %s: %s", blockedAt, b)
			}
		})
	}
}
