package executetest

import (
	"context"
	"testing"

	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/protocol"
)

// RewoundRun takes wr.long (Long) through n nodes on x as a chat that
// goes back every 50 steps: there it sends the previous step's state
// token again and goes on from it once, leaving a branch behind, then
// goes on from where it was. next is the call answering s, the result
// of step i (BareArgs when nil).
func RewoundRun(tb testing.TB, x *execute.Service, n int, next func(s protocol.StepResult, i int) []byte) {
	tb.Helper()
	if next == nil {
		next = func(s protocol.StepResult, _ int) []byte { return BareArgs(tb, s) }
	}
	ctx := context.Background()
	s := stepOf(tb, x.Start(ctx, []byte(`{"workflowId":"wr.long"}`)))
	var prev protocol.StepResult
	for i := 1; i < n; i++ {
		if i%50 == 0 && prev.StateToken != "" {
			re := stepOf(tb, x.Continue(ctx, []byte(`{"stateToken":"`+prev.StateToken+`"}`)))
			stepOf(tb, x.Continue(ctx, BareArgs(tb, re)))
		}
		prev = s
		s = stepOf(tb, x.Continue(ctx, next(s, i)))
	}
}

// stepOf is answer a as the step it should be, or fails with what came
// back instead.
func stepOf(tb testing.TB, a any) protocol.StepResult {
	tb.Helper()
	s, ok := a.(protocol.StepResult)
	if !ok {
		tb.Fatalf("want the next step, got %#v", a)
	}
	return s
}

// BareArgs is s's next call as given, its output left out: the call of
// an agent that writes nothing.
func BareArgs(tb testing.TB, s protocol.StepResult) []byte {
	tb.Helper()
	a := s.NextCall.Arguments
	a.Output = nil
	return mustJSON(tb, a)
}
