package execute_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
)

// FuzzArguments sends arbitrary arguments to every tool of the use cases
// over a store that encodes, chains and reads back events as the bbolt one
// does. Whatever arrives, the answer is a rendered result, and an error is
// never INTERNAL: bad input is the caller's to fix and must say so. The
// fixed key ring and a fresh store make the seeds' tokens valid in every
// fuzzing process.
func FuzzArguments(f *testing.F) {
	r := newRig(f, nil)
	// The use cases must not log through f inside the fuzz target; an
	// INTERNAL result fails the target whatever the log says.
	r.x = execute.New(r.store, executetest.Ring(f), bundled(f), workflow.Preferences{}, executetest.Clock, func(string, ...any) {})
	s := r.step(f, "start", map[string]any{"workflowId": "wr.code_review"})
	fresh := r.step(f, "start", map[string]any{"workflowId": "wr.hello"})
	next, err := json.Marshal(s.NextCall.Arguments)
	if err != nil {
		f.Fatal(err)
	}
	seeds := map[byte][]string{
		0: {`{"workflowId":"wr.hello"}`, `{"workflowId":"wr.hello","context":{"n":-1e999}}`, `{"workflowId":"wr.code_review","context":{"reviewDepth":"quick","changedFiles":["a.go"]},"mode":"wr.modes.full_auto_never_stop"}`,
			`{"workflowId":"wr.hello","preferences":{"autonomy":"guided"},"workspacePath":"/tmp"}`},
		1: {string(next), `{"stateToken":"` + s.StateToken + `"}`,
			`{"stateToken":"` + s.StateToken + `","ackToken":"` + s.AckToken + `","output":{"notesMarkdown":"n","artifacts":[{"kind":"wr.user_response","answer":1}],"resolvesGaps":[{"gapId":"evt_1_9","summary":"s"}]},"context":{"reviewDepth":"thorough"},"preferences":{"riskPolicy":"aggressive"}}`,
			// Values the canonical form cannot store once reached the
			// recorder and came back INTERNAL; fresh is never advanced by
			// a valid seed, so these are always evaluated.
			`{"stateToken":"` + fresh.StateToken + `","ackToken":"` + fresh.AckToken + `","output":{"notesMarkdown":"n","artifacts":[{"kind":"x","n":1e400}]}}`,
			`{"stateToken":"` + fresh.StateToken + `","ackToken":"` + fresh.AckToken + `","output":{"notesMarkdown":"n \ud800"}}`,
			`{"stateToken":"` + fresh.StateToken + `","ackToken":"` + fresh.AckToken + `","context":{"n":9007199254740993}}`},
		2: {`{"workflowId":"wr.bug_investigation","mode":"preview"}`, `{"workflowId":"wr.hello"}`},
		3: {`{}`, `{"workspacePath":"."}`},
		4: {`{"stateToken":"` + fresh.StateToken + `","checkpointToken":"` + fresh.CheckpointToken + `","output":{"notesMarkdown":"n"}}`,
			`{"stateToken":"` + fresh.StateToken + `","checkpointToken":"` + fresh.CheckpointToken + `","output":{"notesMarkdown":"n \ud800"}}`,
			`{"stateToken":"` + s.StateToken + `","checkpointToken":"` + fresh.CheckpointToken + `","output":{"notesMarkdown":""}}`},
		5: {`{}`, `{"workspacePath":"/tmp"}`},
	}
	for tool, args := range seeds {
		for _, a := range args {
			f.Add(tool, []byte(a))
		}
	}
	tools := []func(context.Context, []byte) protocol.Result{r.x.Start, r.x.Continue, r.x.Inspect, r.x.List, r.x.Checkpoint, r.x.StartSession}
	f.Fuzz(func(t *testing.T, tool byte, raw []byte) {
		res := tools[int(tool)%len(tools)](context.Background(), raw)
		if res.RenderedText() == "" {
			t.Fatalf("empty rendering for %q", raw)
		}
		if e, ok := res.(protocol.ErrorResult); ok {
			if e.Error.Code == engine.CodeInternal || e.Error.Message == "" || e.Error.Retry.Kind == "" {
				t.Fatalf("tool %d, arguments %q: %s", tool, raw, res.RenderedText())
			}
		}
	})
}
