package run_test

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// renderFile compiles testdata/render/name within limits.
func renderFile(t *testing.T, name string, limits compile.Limits) compile.Compiled {
	t.Helper()
	b, err := os.ReadFile("testdata/render/" + name)
	if err != nil {
		t.Fatal(err)
	}
	w, err := workflow.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := compile.CompileWith(w, compile.Options{Limits: limits})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// tooLarge is err's envelope when it is PAYLOAD_TOO_LARGE.
func tooLarge(err error) (*engine.Error, bool) {
	var e *engine.Error
	return e, errors.As(err, &e) && e.Code == engine.CodePayloadTooLarge
}

// TestRenderLimitAtItsBoundary: a step whose title and prompt render to
// exactly compile.MaxPromptBytes with the run's context renders; one
// byte more of context is refused, by Render and by the Start or Advance
// that would move to it, saying how large it would be.
func TestRenderLimitAtItsBoundary(t *testing.T) {
	cases := []struct {
		file    string
		ctx     map[string]any // besides t
		advance bool           // t arrives with the first step's advance
	}{
		{file: "prompt.json"},
		{file: "title.json"},
		{file: "fragment.json", ctx: map[string]any{"deep": true}},
		{file: "delegation.json"},
		{file: "advance.json", advance: true},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			c := renderFile(t, tc.file, compile.Limits{})
			// move reaches the step that shows t, with t n bytes long.
			move := func(n int) (run.Move, error) {
				ctx := map[string]any{"t": strings.Repeat("x", n)}
				for k, v := range tc.ctx {
					ctx[k] = v
				}
				if !tc.advance {
					return run.Start(c, ctx, workflow.Preferences{})
				}
				m, err := run.Start(c, nil, workflow.Preferences{})
				if err != nil {
					t.Fatal(err)
				}
				return run.Advance(c, m.Snapshot, ctx, false)
			}
			size := func(m run.Move) int {
				p, _ := run.PendingStep(c, m.Snapshot)
				r := mustRender(t, c, m.Snapshot, p)
				return len(r.Title) + len(r.Prompt)
			}
			empty, err := move(0)
			if err != nil {
				t.Fatal(err)
			}
			fill := compile.MaxPromptBytes - size(empty)
			at, err := move(fill)
			if err != nil {
				t.Fatalf("at the limit: %v", err)
			}
			if n := size(at); n != compile.MaxPromptBytes {
				t.Fatalf("rendered %d bytes; want exactly the limit, %d", n, compile.MaxPromptBytes)
			}
			_, err = move(fill + 1)
			e, over := tooLarge(err)
			if !over {
				t.Fatalf("one byte over: err = %v; want PAYLOAD_TOO_LARGE", err)
			}
			if e.Details["renderedBytes"] != compile.MaxPromptBytes+1 || e.Details["limitBytes"] != compile.MaxPromptBytes ||
				!strings.Contains(e.Message, "would render to 262,145 bytes") || !strings.Contains(e.Message, "Send smaller context values") {
				t.Errorf("error %+v", e)
			}
			// A snapshot already there (recorded before this limit) renders
			// to the same error, not to the prompt.
			over1 := at.Snapshot
			over1.Context = map[string]any{"t": strings.Repeat("x", fill+1)}
			for k, v := range tc.ctx {
				over1.Context[k] = v
			}
			p, _ := run.PendingStep(c, over1)
			if _, err := run.Render(c, over1, p); err == nil {
				t.Error("Render of a snapshot one byte over rendered it")
			} else if _, over := tooLarge(err); !over {
				t.Errorf("Render of a snapshot one byte over: %v", err)
			}
		})
	}
}

// TestRenderRefusesBeforeBuilding: a prompt of 50,000 references to a
// 10,000-byte value (500 MB rendered) is refused having allocated a small
// part of it.
func TestRenderRefusesBeforeBuilding(t *testing.T) {
	c := canonical(t, `"context":[{"name":"t","type":"string","description":"d"}],`,
		`[{"id":"a","title":"A","prompt":`+quote(strings.Repeat("{{t}}", 50_000))+`,"notesOptional":true}]`)
	snap := run.Snapshot{V: run.SnapshotVersion, WorkflowHash: c.Hash, Context: map[string]any{"t": strings.Repeat("x", 10_000)},
		Position: run.Position{Kind: run.Pending, Step: "a", Path: []run.Frame{{}}}}
	p, _ := run.PendingStep(c, snap)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := run.Render(c, snap, p)
	runtime.ReadMemStats(&after)
	e, over := tooLarge(err)
	if !over || e.Details["renderedBytes"] != 1+50_000*10_000 {
		t.Fatalf("err = %v; want PAYLOAD_TOO_LARGE for 500,000,001 bytes", err)
	}
	if built := after.TotalAlloc - before.TotalAlloc; built > 16<<20 {
		t.Errorf("refused after allocating %d MiB", built>>20)
	}
}

// TestPinnedBeforeTheLimitsStillRuns: a workflow compiled before the
// limits existed (here: without them), longer than they allow, still
// starts and renders where its steps fit; a step whose own text is over
// the prompt limit answers PAYLOAD_TOO_LARGE saying no context can help.
func TestPinnedBeforeTheLimitsStillRuns(t *testing.T) {
	var steps []string
	for i := range compile.MaxSteps + 1 {
		steps = append(steps, `{"id":"s`+itoa(i)+`","title":"S","prompt":"Do it.","notesOptional":true}`)
	}
	steps = append(steps, `{"id":"long","title":"Long","prompt":`+quote(strings.Repeat("p", compile.MaxPromptBytes+1))+`,"notesOptional":true}`)
	src := `{"id":"user.old","name":"Old","description":"d","version":"1","steps":[` + strings.Join(steps, ",") + `]}`
	w, err := workflow.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := compile.Compile(w); err == nil {
		t.Fatal("compiles under today's limits")
	}
	c, _, err := compile.CompileWith(w, compile.Options{Limits: compile.Limits{Steps: math.MaxInt, Bytes: math.MaxInt, Prompt: math.MaxInt}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := run.Start(c, nil, workflow.Preferences{})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	for range compile.MaxSteps {
		if m, err = run.Advance(c, m.Snapshot, nil, false); err != nil {
			t.Fatalf("advance to %s: %v", m.Snapshot.Position.Step, err)
		}
	}
	p, _ := run.PendingStep(c, m.Snapshot)
	mustRender(t, c, m.Snapshot, p) // the 1,001st step
	_, err = run.Advance(c, m.Snapshot, nil, false)
	e, over := tooLarge(err)
	if !over || !strings.Contains(e.Message, "own text for this step is 262,149 bytes") || !strings.Contains(e.Message, "start the workflow again") {
		t.Fatalf("advance to the long step: %v", err)
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
