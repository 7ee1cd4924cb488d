package execute_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
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

// BenchmarkAdvanceKinds measures one continue_workflow advance with notes
// over the in-memory store through four kinds of step: a plain one, one
// with prompt fragments and {{}} templates rendered from context, one that
// references an assessment (the agent rates it at a level that fires
// nothing) and the decision step of an artifact-driven while loop (the
// agent says continue until the loop ends at its maxIterations). A
// session goes through kindSteps of them, then the next one starts,
// untimed. Goal: each within 10% of plain. It reports the median of the
// ops beside ns/op.
func BenchmarkAdvanceKinds(b *testing.B) {
	for _, k := range advanceKinds {
		b.Run(k.name, func(b *testing.B) {
			cat := executetest.Catalog(b, fstest.MapFS{"wr.bench.json": {Data: []byte(k.workflow(kindSteps))}})
			x := execute.New(memstore.New(), executetest.Ring(b), cat, workflow.Preferences{}, executetest.Clock, b.Logf)
			ctx := context.Background()
			start := mustJSON(b, map[string]any{"workflowId": "wr.bench", "context": map[string]any{"audience": "executives", "depth": "deep", "owner": "Priya"}})
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
				args := kindArgs(b, res, k.artifact)
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

// kindSteps is how many steps (or loop iterations) a session of the
// benchmark goes through before the next one starts (untimed).
const kindSteps = 40

// advanceKind is one kind of step BenchmarkAdvanceKinds advances through:
// a workflow of n such steps, and the artifact the agent sends at each.
type advanceKind struct {
	name     string
	workflow func(n int) string
	artifact string
}

var advanceKinds = []advanceKind{
	{name: "plain", workflow: func(n int) string {
		return benchWorkflow("", steps(n, func(i int) string { return plainStep(i, "") }))
	}},
	{name: "fragments", workflow: func(n int) string {
		frags := `,"promptFragments":[` +
			`{"id":"always","text":"Keep the summary short for {{owner}}."},` +
			`{"id":"execs","when":{"var":"audience","equals":"executives"},"text":"Lead with three numbers for the {{audience}}."},` +
			`{"id":"engineers","when":{"var":"audience","equals":"engineers"},"text":"Explain how each figure was computed."},` +
			`{"id":"deep","when":{"and":[{"var":"depth","in":["deep","exhaustive"]},{"not":{"var":"audience","equals":"engineers"}}]},"text":"Go deep at {{depth}} depth."}]`
		return benchWorkflow(contextInputs, steps(n, func(i int) string { return plainStep(i, frags) }))
	}},
	{name: "assessment", workflow: func(n int) string {
		refs := `,"assessmentRefs":["quality"],"assessmentConsequences":[{"when":{"anyEqualsLevel":"low"},"effect":{"kind":"require_followup","guidance":"Check the work again."}}]`
		return benchWorkflow(`"assessments":[{"id":"quality","purpose":"How good the step's work is.","dimensions":[`+
			`{"id":"depth","purpose":"Whether the work went deep enough.","levels":["low","high"]},`+
			`{"id":"evidence","purpose":"Whether claims have evidence.","levels":["low","high"]}]}],`,
			steps(n, func(i int) string { return plainStep(i, refs) }))
	}, artifact: `{"kind":"wr.assessment","assessmentId":"quality","dimensions":{"depth":"high","evidence":"high"}}`},
	{name: "loop", workflow: func(n int) string {
		return benchWorkflow("", fmt.Sprintf(`{"id":"rounds","title":"Rounds","loop":{"kind":"while","maxIterations":%d},"body":[%s]}`,
			n, plainStep(0, `,"output":{"contractRef":"wr.contracts.loop_control"}`)))
	}, artifact: `{"kind":"wr.contracts.loop_control","decision":"continue","reason":"Another round is needed."}`},
}

const contextInputs = `"context":[{"name":"audience","type":"string","description":"who reads it"},` +
	`{"name":"depth","type":"string","description":"how deep to go"},{"name":"owner","type":"string","description":"who owns it"}],`

func benchWorkflow(extra, steps string) string {
	return `{"id":"wr.bench","name":"Bench","description":"benchmark","version":"1.0.0",` + extra + `"steps":[` + steps + `]}`
}

func steps(n int, step func(i int) string) string {
	out := make([]string, n)
	for i := range out {
		out[i] = step(i)
	}
	return strings.Join(out, ",")
}

func plainStep(i int, extra string) string {
	return fmt.Sprintf(`{"id":"s%d","title":"Step %d","prompt":"Do step %d of the benchmark workflow.\n\n- Check the result."%s}`, i, i, i, extra)
}

// kindArgs is the call a step result asks for next, with notes and the
// artifact, if any.
func kindArgs(tb testing.TB, res protocol.Result, artifact string) []byte {
	step, ok := res.(protocol.StepResult)
	if !ok {
		tb.Fatalf("not a step: %s", res.RenderedText())
	}
	a := step.NextCall.Arguments
	a.Output = &protocol.Output{NotesMarkdown: "Did the step; the outcome is recorded here."}
	if artifact != "" {
		a.Output.Artifacts = []json.RawMessage{json.RawMessage(artifact)}
	}
	return mustJSON(tb, a)
}

func medianDuration(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
