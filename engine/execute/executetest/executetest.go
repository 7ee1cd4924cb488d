// Package executetest provides what tests of the use cases share: a fixed
// token key ring (so rendered text is the same on every machine), a
// workflow catalog over an fs.FS, a fixed clock, and the contract suite
// every implementation of the store port must pass.
package executetest

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/token"
)

// Ring returns a key ring with one fixed key (id 1): tokens minted with it
// are the same on every run.
func Ring(tb testing.TB) *token.Ring {
	tb.Helper()
	secret := make([]byte, token.MinSecretLen)
	for i := range secret {
		secret[i] = byte(i)
	}
	r, err := token.NewRing([]token.Key{{ID: 1, Secret: secret}}, 1)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// Clock is a fixed clock.
func Clock() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

// Workflows is a fixed catalog: the workflows of an fs.FS, loaded as
// bundled, whatever the workspace.
type Workflows struct{ cat *catalog.Catalog }

// Catalog implements execute.Workflows.
func (w Workflows) Catalog(string) *catalog.Catalog { return w.cat }

// Catalog loads every *.json file of fsys as a bundled workflow; any
// problem fails the test.
func Catalog(tb testing.TB, fsys fs.FS) Workflows {
	tb.Helper()
	entries, problems := catalog.LoadFS(fsys, catalog.Source{Kind: catalog.Bundled})
	if len(problems) > 0 {
		tb.Fatalf("workflow %s: %v", problems[0].File, problems[0].Problems)
	}
	return Workflows{cat: catalog.New(entries, nil)}
}

// Agent is what Drive needs of the use cases.
type Agent interface {
	Start(ctx context.Context, raw []byte) protocol.Result
	Continue(ctx context.Context, raw []byte) protocol.Result
	Inspect(ctx context.Context, raw []byte) protocol.Result
}

// Drive runs workflow id to completion the way an agent that copies
// nextCall does, writing "Did <step>." as its notes, and returns every
// result it saw. mode may be empty (the default mode).
func Drive(tb testing.TB, a Agent, id engine.WorkflowID, mode outcome.ModeID) []protocol.Result {
	tb.Helper()
	args := map[string]any{"workflowId": id, "context": RequiredInputs(tb, a, id)}
	if mode != "" {
		args["mode"] = mode
	}
	res := a.Start(tb.Context(), mustJSON(tb, args))
	out := []protocol.Result{res}
	for i := 0; res.ResultKind() != protocol.KindComplete; i++ {
		if i > 300 {
			tb.Fatalf("%s: no completion within 300 results", id)
		}
		res = a.Continue(tb.Context(), mustJSON(tb, NextArgs(tb, res)))
		out = append(out, res)
	}
	return out
}

// NextArgs is what an agent that copies nextCall sends after res: its
// nextCall's arguments, with "Did <step>." as the notes of a step. Any
// result but a step or a blocked attempt fails the test.
func NextArgs(tb testing.TB, res protocol.Result) protocol.ContinueArgs {
	tb.Helper()
	switch v := res.(type) {
	case protocol.StepResult:
		next := v.NextCall.Arguments
		var o protocol.Output // a copy: res keeps the nextCall it was given
		if next.Output != nil {
			o = *next.Output
		}
		o.NotesMarkdown = "Did " + string(v.Pending.StepID) + "."
		next.Output = &o
		return next
	case protocol.BlockedResult:
		return v.NextCall.Arguments
	}
	tb.Fatalf("unexpected %s result:\n%s", res.ResultKind(), res.RenderedText())
	return protocol.ContinueArgs{}
}

// RequiredInputs gives every required context input of workflow id its
// first allowed value, or a plain value of its type.
func RequiredInputs(tb testing.TB, a Agent, id engine.WorkflowID) map[string]any {
	tb.Helper()
	in, ok := a.Inspect(tb.Context(), mustJSON(tb, map[string]any{"workflowId": id})).(protocol.InspectResult)
	if !ok {
		tb.Fatalf("inspect %s failed", id)
	}
	ctx := map[string]any{}
	for _, c := range in.Context {
		if !c.Required {
			continue
		}
		if len(c.Enum) > 0 {
			var v any
			json.Unmarshal(c.Enum[0], &v)
			ctx[c.Name] = v
			continue
		}
		ctx[c.Name] = map[string]any{"string": "example", "number": 1, "integer": 1, "boolean": true, "array": []any{"a"}}[string(c.Type)]
	}
	return ctx
}

func mustJSON(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// Long is a catalog holding wr.long, a linear workflow of n steps, for
// tests and benchmarks that advance one run many times.
func Long(tb testing.TB, n int) Workflows {
	tb.Helper()
	steps := make([]string, n)
	for i := range steps {
		steps[i] = fmt.Sprintf(`{"id":"s%d","title":"Step %d","prompt":"Do step %d of the benchmark workflow.\n\n- Check the result."}`, i, i, i)
	}
	src := `{"id":"wr.long","name":"Long","description":"benchmark","version":"1","steps":[` + strings.Join(steps, ",") + `]}`
	return Catalog(tb, fstest.MapFS{"wr.long.json": {Data: []byte(src)}})
}
