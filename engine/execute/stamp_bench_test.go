package execute_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
)

// BenchmarkAdvanceStamping measures one continue_workflow advance over
// the in-memory store, with every event stamped with its time and origin
// and without: the store's fsync does not hide what stamping costs here.
// Compare the two with benchstat or their medians over -count 8.
func BenchmarkAdvanceStamping(b *testing.B) {
	for _, c := range []struct {
		name    string
		stamped bool
	}{{"stamped", true}, {"unstamped", false}} {
		b.Run(c.name, func(b *testing.B) {
			s := memstore.New()
			x := execute.New(s, executetest.Ring(b), executetest.Long(b, b.N+1), workflow.Preferences{}, executetest.Clock, b.Logf)
			if !c.stamped {
				execute.Unstamped(x)
			}
			first := x.Start(context.Background(), mustJSON(b, map[string]any{"workflowId": "wr.long"}))
			args := advanceArgsOf(b, first)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				args = advanceArgsOf(b, x.Continue(context.Background(), args))
			}
			b.StopTimer()
			// The two differ by the stamp and nothing else.
			evs, _, err := s.Events(first.(protocol.StepResult).Session.SessionID)
			if err != nil {
				b.Fatal(err)
			}
			if last := evs[len(evs)-1]; (last.AppendedAt != 0) != c.stamped {
				b.Fatalf("stamped %v, but the last event records %+v", c.stamped, last.Stamp())
			}
		})
	}
}

func mustJSON(tb testing.TB, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// advanceArgsOf is the continue_workflow call a step result asks for next.
func advanceArgsOf(tb testing.TB, res protocol.Result) []byte {
	step, ok := res.(protocol.StepResult)
	if !ok {
		tb.Fatalf("not a step: %s", res.RenderedText())
	}
	a := step.NextCall.Arguments
	a.Output = nil
	return mustJSON(tb, a)
}
