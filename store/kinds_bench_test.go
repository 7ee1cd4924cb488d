package store_test

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/protocol"
)

// BenchmarkAdvanceKinds is engine/execute's benchmark of the same name
// over a real bbolt file with fsync: one advance through a plain, a
// prompt-fragment, an assessment and an artifact-loop step; a session that
// completes is started again with the timer stopped. Goal: each within 10%
// of plain.
func BenchmarkAdvanceKinds(b *testing.B) {
	ctx := context.Background()
	for _, k := range executetest.AdvanceKinds {
		b.Run(k.Name, func(b *testing.B) {
			r := newRig(b, executetest.Catalog(b, fstest.MapFS{"wr.bench.json": {Data: []byte(k.Workflow(executetest.KindSteps))}}))
			start := map[string]any{"workflowId": "wr.bench", "context": executetest.KindContext}
			var res protocol.Result = r.step(b, r.x.Start, start)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if res.ResultKind() == protocol.KindComplete {
					b.StopTimer()
					res = r.step(b, r.x.Start, start)
					b.StartTimer()
				}
				res = r.x.Continue(ctx, executetest.KindArgs(b, res, k.Artifact))
			}
			b.StopTimer()
			if k := res.ResultKind(); k != protocol.KindStep && k != protocol.KindComplete {
				b.Fatalf("the last advance answered %s", res.RenderedText())
			}
		})
	}
}
