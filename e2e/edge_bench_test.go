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

// BenchmarkResourcesRead reads a session of 1,000 advanced steps, whole
// and one run of it, through a warm shim with a real client (goal: 20 ms
// or less).
func BenchmarkResourcesRead(b *testing.B) {
	home := newHome(b)
	const steps = 1000
	writeLongWorkflow(b, home, steps+1)
	c := startShim(b, home)
	r := call(b, c, "start_workflow", map[string]any{"workflowId": "user.long"})
	for i := 1; i <= steps; i++ {
		r = advance(b, c, r, fmt.Sprintf("Step %d done: looked at the thing and wrote down what it said.", i))
	}
	ctx := context.Background()
	for _, uri := range []string{"workrail://sessions/ses_1", "workrail://sessions/ses_1/runs/run_1"} {
		b.Run(map[bool]string{true: "session", false: "run"}[uri == "workrail://sessions/ses_1"], func(b *testing.B) {
			req := mcp.ReadResourceRequest{}
			req.Params.URI = uri
			medianOf(b, 20, func() time.Duration {
				t0 := time.Now()
				res, err := c.ReadResource(ctx, req)
				if err != nil || len(res.Contents) != 1 {
					b.Fatalf("resources/read %s: %v", uri, err)
				}
				return time.Since(t0)
			})
		})
	}
}
