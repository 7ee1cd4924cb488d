package store_test

import (
	"encoding/json"
	"testing"

	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/protocol"
)

// BenchmarkAdvanceThrough is engine/execute's benchmark of the same name
// over a real bbolt file with fsync: one advance through a prompt-fragment,
// an assessment or a loop step against a plain one, runs that complete
// started again with the timer stopped.
func BenchmarkAdvanceThrough(b *testing.B) {
	for _, k := range []executetest.StepKind{executetest.PlainSteps, executetest.FragmentSteps, executetest.AssessmentSteps, executetest.LoopSteps} {
		b.Run(string(k), func(b *testing.B) {
			r := newRig(b, executetest.Constructs(b, k))
			start := map[string]any{"workflowId": "wr.long-" + string(k), "context": executetest.Inputs()}
			args := nextCall(b, r.step(b, r.x.Start, start))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				switch res := r.x.Continue(args).(type) {
				case protocol.StepResult:
					args = nextCall(b, res)
				case protocol.CompleteResult:
					b.StopTimer()
					args = nextCall(b, r.step(b, r.x.Start, start))
					b.StartTimer()
				default:
					b.Fatalf("advance %d: %s", i, res.RenderedText())
				}
			}
		})
	}
}

// nextCall continues from s sending executetest.Payload.
func nextCall(tb testing.TB, s protocol.StepResult) []byte {
	b, err := json.Marshal(map[string]any{"stateToken": s.StateToken, "ackToken": s.AckToken, "output": executetest.Payload})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
