package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// BenchmarkPromptsList is prompts/list through a warm shim with a real
// client: what an IDE's prompt picker waits for (goal: 5 ms or less).
func BenchmarkPromptsList(b *testing.B) {
	home := newHome(b)
	c := startShim(b, home)
	ctx := context.Background()
	medianOf(b, 50, func() time.Duration {
		t0 := time.Now()
		res, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
		if err != nil || len(res.Prompts) == 0 {
			b.Fatalf("prompts/list: %v", err)
		}
		return time.Since(t0)
	})
}

// BenchmarkResourcesRead reads a session of 999 advanced steps (of a
// workflow of 1,000, the most a workflow file may have, its last left
// pending), whole and one run of it, through a warm shim with a real
// client (goal: 20 ms or less): right after a write to the session (a
// checkpoint, not timed), and again with the session unchanged, which
// the daemon answers from what it rendered at that head of the log.
func BenchmarkResourcesRead(b *testing.B) {
	home := newHome(b)
	const steps = 999
	writeLongWorkflow(b, home, steps+1)
	c := startShim(b, home)
	r := call(b, c, "start_workflow", map[string]any{"workflowId": "user.long"})
	for i := 1; i <= steps; i++ {
		r = advance(b, c, r, fmt.Sprintf("Step %d done: looked at the thing and wrote down what it said.", i))
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name, uri string
		written   bool
	}{
		{"session/after-a-write", "workrail://sessions/ses_1", true},
		{"session/unchanged", "workrail://sessions/ses_1", false},
		{"run/after-a-write", "workrail://sessions/ses_1/runs/run_1", true},
		{"run/unchanged", "workrail://sessions/ses_1/runs/run_1", false},
	} {
		b.Run(tc.name, func(b *testing.B) {
			req := mcp.ReadResourceRequest{}
			req.Params.URI = tc.uri
			medianOf(b, 20, func() time.Duration {
				if tc.written {
					r = call(b, c, "checkpoint_workflow", map[string]any{"stateToken": str(r.S, "stateToken"),
						"checkpointToken": str(r.S, "checkpointToken"), "output": map[string]any{"notesMarkdown": "A checkpoint."}})
					mustKind(b, r, "step")
				}
				t0 := time.Now()
				res, err := c.ReadResource(ctx, req)
				if err != nil || len(res.Contents) != 1 {
					b.Fatalf("resources/read %s: %v", tc.uri, err)
				}
				return time.Since(t0)
			})
		})
	}
}
