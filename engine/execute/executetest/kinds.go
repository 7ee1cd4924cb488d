package executetest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/protocol"
)

// AdvanceKind is one kind of step the advance benchmarks (engine/execute
// over memory, store over bbolt) go through: a workflow wr.bench of n
// such steps, started with KindContext, and the artifact the agent sends
// at each.
type AdvanceKind struct {
	Name     string
	Workflow func(n int) string
	Artifact string
}

// KindSteps is how many steps (or loop iterations) a session of the
// benchmarks goes through before the next one starts (untimed).
const KindSteps = 40

// KindContext is the context every AdvanceKinds run starts with.
var KindContext = map[string]any{"audience": "executives", "depth": "deep", "owner": "Priya"}

// AdvanceKinds: a plain step, one with prompt fragments and {{}} templates
// rendered from context, one that references an assessment (rated at a
// level that fires nothing) and the decision step of an artifact-driven
// while loop (told to continue until the loop ends at its maxIterations).
var AdvanceKinds = []AdvanceKind{
	{Name: "plain", Workflow: func(n int) string {
		return benchWorkflow("", steps(n, func(i int) string { return plainStep(i, "") }))
	}},
	{Name: "fragments", Workflow: func(n int) string {
		frags := `,"promptFragments":[` +
			`{"id":"always","text":"Keep the summary short for {{owner}}."},` +
			`{"id":"execs","when":{"var":"audience","equals":"executives"},"text":"Lead with three numbers for the {{audience}}."},` +
			`{"id":"engineers","when":{"var":"audience","equals":"engineers"},"text":"Explain how each figure was computed."},` +
			`{"id":"deep","when":{"and":[{"var":"depth","in":["deep","exhaustive"]},{"not":{"var":"audience","equals":"engineers"}}]},"text":"Go deep at {{depth}} depth."}]`
		return benchWorkflow(contextInputs, steps(n, func(i int) string { return plainStep(i, frags) }))
	}},
	{Name: "assessment", Workflow: func(n int) string {
		refs := `,"assessmentRefs":["quality"],"assessmentConsequences":[{"when":{"anyEqualsLevel":"low"},"effect":{"kind":"require_followup","guidance":"Check the work again."}}]`
		return benchWorkflow(`"assessments":[{"id":"quality","purpose":"How good the step's work is.","dimensions":[`+
			`{"id":"depth","purpose":"Whether the work went deep enough.","levels":["low","high"]},`+
			`{"id":"evidence","purpose":"Whether claims have evidence.","levels":["low","high"]}]}],`,
			steps(n, func(i int) string { return plainStep(i, refs) }))
	}, Artifact: `{"kind":"wr.assessment","assessmentId":"quality","dimensions":{"depth":"high","evidence":"high"}}`},
	{Name: "loop", Workflow: func(n int) string {
		return benchWorkflow("", fmt.Sprintf(`{"id":"rounds","title":"Rounds","loop":{"kind":"while","maxIterations":%d},"body":[%s]}`,
			n, plainStep(0, `,"output":{"contractRef":"wr.contracts.loop_control"}`)))
	}, Artifact: `{"kind":"wr.contracts.loop_control","decision":"continue","reason":"Another round is needed."}`},
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

// KindArgs is the call a step result asks for next, with notes and the
// artifact, if any.
func KindArgs(tb testing.TB, res protocol.Result, artifact string) []byte {
	tb.Helper()
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
