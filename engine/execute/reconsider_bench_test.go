package execute_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
)

// BenchmarkAdvanceReconsideredSkip measures one continue_workflow advance
// with notes over the in-memory store in a workflow of the TypeScript
// format (its metaGuidance marks it so), in two shapes: plain, whose steps
// all run, and reconsidered-skip, whose first three steps are skipped by a
// runCondition no answer satisfies, so every advance reconsiders them, as
// that format asks, before going on. Goal: reconsidered-skip within 10% of
// plain. It reports the median of the ops beside ns/op.
func BenchmarkAdvanceReconsideredSkip(b *testing.B) {
	for _, shape := range []struct {
		name    string
		skipped int
	}{{"plain", 0}, {"reconsidered-skip", 3}} {
		b.Run(shape.name, func(b *testing.B) {
			cat := executetest.Catalog(b, fstest.MapFS{"wr.bench.json": {Data: []byte(tsFormatBench(shape.skipped, executetest.KindSteps))}})
			x := execute.New(memstore.New(), executetest.Ring(b), cat, workflow.Preferences{}, executetest.Clock, b.Logf)
			ctx := context.Background()
			start := mustJSON(b, map[string]any{"workflowId": "wr.bench"})
			res := x.Start(ctx, start)
			if shape.skipped > 0 && !strings.Contains(res.RenderedText(), "- deep-0 (condition_false)") {
				b.Fatalf("the first steps were not skipped:\n%s", res.RenderedText())
			}
			ds := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if res.ResultKind() == protocol.KindComplete {
					b.StopTimer()
					res = x.Start(ctx, start)
					b.StartTimer()
				}
				args := executetest.KindArgs(b, res, "")
				t0 := time.Now()
				res = x.Continue(ctx, args)
				ds = append(ds, time.Since(t0))
			}
			b.StopTimer()
			if k := res.ResultKind(); k != protocol.KindStep && k != protocol.KindComplete {
				b.Fatalf("the last advance answered %s", res.RenderedText())
			}
			b.ReportMetric(float64(medianDuration(ds).Nanoseconds())/1000, "median-µs")
		})
	}
}

// tsFormatBench is a workflow of the TypeScript format: skipped steps
// whose condition never holds, then n plain steps.
func tsFormatBench(skipped, n int) string {
	var steps []string
	for i := range skipped {
		steps = append(steps, fmt.Sprintf(`{"id":"deep-%d","title":"Deep pass %d","prompt":"Profile the page again, pass %d.",`+
			`"runCondition":{"var":"needsProfiling","equals":true}}`, i, i, i))
	}
	for i := range n {
		steps = append(steps, fmt.Sprintf(`{"id":"s%d","title":"Step %d","prompt":"Do step %d of the benchmark workflow.\n\n- Check the result."}`, i, i, i))
	}
	return `{"id":"wr.bench","name":"Bench","description":"benchmark","version":"1.0.0","metaGuidance":["Keep the notes factual."],"steps":[` +
		strings.Join(steps, ",") + `]}`
}
