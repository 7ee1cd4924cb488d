package execute_test

import (
	"context"
	"slices"
	"testing"
	"testing/fstest"
	"time"

	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
)

// BenchmarkAdvanceKinds measures one continue_workflow advance with notes
// over the in-memory store through four kinds of step: a plain one, one
// with prompt fragments and {{}} templates rendered from context, one that
// references an assessment (the agent rates it at a level that fires
// nothing) and the decision step of an artifact-driven while loop (the
// agent says continue until the loop ends at its maxIterations). A
// session goes through executetest.KindSteps of them, then the next one starts,
// untimed. Goal: each within 10% of plain. It reports the median of the
// ops beside ns/op. store's BenchmarkAdvanceKinds is the same over bbolt.
func BenchmarkAdvanceKinds(b *testing.B) {
	for _, k := range executetest.AdvanceKinds {
		b.Run(k.Name, func(b *testing.B) {
			cat := executetest.Catalog(b, fstest.MapFS{"wr.bench.json": {Data: []byte(k.Workflow(executetest.KindSteps))}})
			x := execute.New(memstore.New(), executetest.Ring(b), cat, workflow.Preferences{}, executetest.Clock, b.Logf)
			ctx := context.Background()
			start := mustJSON(b, map[string]any{"workflowId": "wr.bench", "context": executetest.KindContext})
			res := x.Start(ctx, start)
			ds := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if res.ResultKind() == protocol.KindComplete {
					b.StopTimer()
					res = x.Start(ctx, start)
					b.StartTimer()
				}
				args := executetest.KindArgs(b, res, k.Artifact)
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

func medianDuration(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
