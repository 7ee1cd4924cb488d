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
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/fill"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/token"
	"github.com/workrail/workrail/engine/workflow"
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

// Drive runs workflow id to completion the way a deciding agent does: it
// writes "Did <step>." as its notes and fills every marker of each next
// call (Fill), and returns every result it saw. mode may be empty (the
// default mode).
func Drive(tb testing.TB, a Agent, id engine.WorkflowID, mode outcome.ModeID) []protocol.Result {
	tb.Helper()
	args := map[string]any{"workflowId": id, "context": RequiredInputs(tb, a, id)}
	if mode != "" {
		args["mode"] = mode
	}
	res := a.Start(tb.Context(), mustJSON(tb, args))
	out := []protocol.Result{res}
	blocked := 0
	for i := 0; res.ResultKind() != protocol.KindComplete; i++ {
		if i > 300 {
			tb.Fatalf("%s: no completion within 300 results", id)
		}
		res = a.Continue(tb.Context(), mustJSON(tb, nextArgs(tb, res, blocked)))
		out = append(out, res)
		if res.ResultKind() == protocol.KindBlocked {
			blocked++
		} else {
			blocked = 0
		}
	}
	return out
}

// NextArgs is what a deciding agent sends after res: its nextCall's
// arguments, with "Did <step>." as its notes and every marker filled
// (Fill). Any result but a step or a blocked attempt fails the test.
func NextArgs(tb testing.TB, res protocol.Result) protocol.ContinueArgs {
	tb.Helper()
	return nextArgs(tb, res, 0)
}

func nextArgs(tb testing.TB, res protocol.Result, blocked int) protocol.ContinueArgs {
	tb.Helper()
	switch v := res.(type) {
	case protocol.StepResult:
		return Fill(tb, v.NextCall.Arguments, v.Fills, "Did "+string(v.Pending.StepID)+".", blocked)
	case protocol.BlockedResult:
		return Fill(tb, v.NextCall.Arguments, v.Fills, "Did "+string(v.Pending.StepID)+".", blocked)
	}
	tb.Fatalf("unexpected %s result:\n%s", res.ResultKind(), res.RenderedText())
	return protocol.ContinueArgs{}
}

// Fill is a next call's arguments as a deciding agent fills them: text
// where the call asks for words (write), and where it offers options
// "stop" when it is one (the agent ends a loop at once), else the first
// option, then the next one for each time the step was blocked in a row
// (blocked), so a rating that asks for a follow-up is rated again
// differently. args is not modified.
func Fill(tb testing.TB, args protocol.ContinueArgs, fills []fill.Slot, write string, blocked int) protocol.ContinueArgs {
	tb.Helper()
	if args.Output == nil {
		return args
	}
	out := *args.Output
	out.Artifacts = slices.Clone(out.Artifacts)
	for _, f := range fills {
		if f.Pointer == outcome.NotesPointer {
			out.NotesMarkdown = write
			continue
		}
		rest, ok := strings.CutPrefix(f.Pointer, "/output/artifacts/")
		i, at, _ := strings.Cut(rest, "/")
		n, err := strconv.Atoi(i)
		if !ok || err != nil || n >= len(out.Artifacts) {
			tb.Fatalf("fill %s is not in output.artifacts", f.Pointer)
		}
		var v any
		if err := json.Unmarshal(out.Artifacts[n], &v); err != nil {
			tb.Fatal(err)
		}
		out.Artifacts[n] = mustJSON(tb, setAt(v, strings.Split(at, "/"), choose(f, write, blocked)))
	}
	args.Output = &out
	return args
}

func choose(f fill.Slot, write string, blocked int) any {
	if len(f.Options) == 0 {
		return write
	}
	if slices.Contains(f.Options, "stop") {
		return "stop"
	}
	return f.Options[blocked%len(f.Options)]
}

// setAt sets the member at path (object keys, array indexes) of v to x.
func setAt(v any, path []string, x any) any {
	if len(path) == 0 {
		return x
	}
	switch n := v.(type) {
	case map[string]any:
		n[path[0]] = setAt(n[path[0]], path[1:], x)
	case []any:
		if i, err := strconv.Atoi(path[0]); err == nil && i < len(n) {
			n[i] = setAt(n[i], path[1:], x)
		}
	}
	return v
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
// tests and benchmarks that advance one run many times. It is compiled
// without the limits of a workflow (compile.Limits), as a run pinned
// before them is: a benchmark advances one run b.N times, past the 1,000
// steps a workflow file may have.
func Long(tb testing.TB, n int) Workflows {
	tb.Helper()
	steps := make([]string, n)
	for i := range steps {
		steps[i] = fmt.Sprintf(`{"id":"s%d","title":"Step %d","prompt":"Do step %d of the benchmark workflow.\n\n- Check the result."}`, i, i, i)
	}
	src := []byte(`{"id":"wr.long","name":"Long","description":"benchmark","version":"1","steps":[` + strings.Join(steps, ",") + `]}`)
	w, err := workflow.Parse(src)
	if err != nil {
		tb.Fatal(err)
	}
	c, _, err := compile.CompileWith(w, compile.Options{Limits: compile.Limits{Steps: math.MaxInt, Bytes: math.MaxInt, Prompt: math.MaxInt}})
	if err != nil {
		tb.Fatal(err)
	}
	e := catalog.Entry{Source: catalog.Source{Kind: catalog.Bundled}, File: "wr.long.json", Text: src, Compiled: c,
		IDStatus: workflow.Namespaced, Workflow: w}
	return Workflows{cat: catalog.New([]catalog.Entry{e}, nil)}
}
