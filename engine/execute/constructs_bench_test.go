package execute_test

import (
	"testing"

	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
)

// BenchmarkAdvanceThrough measures one continue_workflow advance over the
// in-memory store through a step of each kind decided at render or at
// advance (prompt fragments and references, an assessment and its
// consequence, a loop step with loop variables), against a plain step, on
// workflows of about the same size; a run that completes is started again
// with the timer stopped. Every advance sends the same output (executetest.Payload). The same
// over bbolt: store's BenchmarkAdvanceThrough.
func BenchmarkAdvanceThrough(b *testing.B) {
	for _, k := range []executetest.StepKind{executetest.PlainSteps, executetest.FragmentSteps, executetest.AssessmentSteps, executetest.LoopSteps} {
		b.Run(string(k), func(b *testing.B) {
			x := execute.New(memstore.New(), executetest.Ring(b), executetest.Constructs(b, k), workflow.Preferences{}, executetest.Clock, b.Logf)
			start := mustJSON(b, map[string]any{"workflowId": "wr.long-" + string(k), "context": executetest.Inputs()})
			args := nextCallOf(b, x.Start(start))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res := x.Continue(args)
				if _, done := res.(protocol.CompleteResult); done {
					b.StopTimer()
					res = x.Start(start)
					b.StartTimer()
				}
				args = nextCallOf(b, res)
			}
		})
	}
}

// nextCallOf is the continue_workflow call a step result asks for next,
// sending executetest.Payload.
func nextCallOf(tb testing.TB, res protocol.Result) []byte {
	step, ok := res.(protocol.StepResult)
	if !ok {
		tb.Fatalf("not a step: %s", res.RenderedText())
	}
	return mustJSON(tb, map[string]any{"stateToken": step.StateToken, "ackToken": step.AckToken, "output": executetest.Payload})
}
