package execute_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/token"
	"github.com/workrail/workrail/engine/workflow"
)

// olderBuild compiles src as a build before the limits did: without them.
func olderBuild(t *testing.T, src string) compile.Compiled {
	t.Helper()
	w, err := workflow.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := compile.CompileWith(w, compile.Options{Limits: compile.Limits{Steps: math.MaxInt, Bytes: math.MaxInt, Prompt: math.MaxInt}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// recordedEarlier records, as an older build would have, a session whose run
// of c waits at step with ctx, and mints its stateToken.
func recordedEarlier(t *testing.T, r *rig, c compile.Compiled, step workflow.StepID, path []run.Frame, ctx map[string]any) string {
	t.Helper()
	var rid engine.RunID
	var nid engine.NodeID
	sid, err := r.store.Create(func(tx execute.Tx) error {
		if err := tx.PinWorkflow(c); err != nil {
			return err
		}
		if _, err := tx.Append(0, 0, &event.SessionCreatedData{CreatedAt: "2026-01-01T00:00:00Z"}); err != nil {
			return err
		}
		var err error
		if rid, err = tx.NewRunID(); err != nil {
			return err
		}
		if _, err := tx.Append(rid, 0, &event.RunStartedData{WorkflowID: c.ID, WorkflowHash: c.Hash}); err != nil {
			return err
		}
		snap := run.Snapshot{V: run.SnapshotVersion, WorkflowHash: c.Hash, Context: ctx,
			Position: run.Position{Kind: run.Pending, Step: step, Path: path}}
		if nid, err = tx.NewNodeID(); err != nil {
			return err
		}
		ref, err := tx.PutSnapshot(snap)
		if err != nil {
			return err
		}
		_, err = tx.Append(rid, nid, &event.NodeCreatedData{NodeKind: event.NodeStep, Snapshot: ref})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := executetest.Ring(t).Mint(token.Claims{Kind: token.State, Key: 1, Session: sid, Run: rid, Node: nid})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestRunsPinnedBeforeTheLimits: a run pinned to a workflow compiled
// before the limits existed rehydrates and goes on wherever its steps can
// be shown; where one cannot, rehydrating it answers PAYLOAD_TOO_LARGE
// saying what to do, and writes nothing.
func TestRunsPinnedBeforeTheLimits(t *testing.T) {
	var steps []string
	for i := range compile.MaxSteps + 1 { // over today's limit of steps
		steps = append(steps, fmt.Sprintf(`{"id":"s%d","title":"S","prompt":"Report {{t}}."}`, i))
	}
	steps = append(steps, `{"id":"after","title":"After","prompt":"Go on."}`,
		`{"id":"long","title":"Long","prompt":"`+strings.Repeat("p", compile.MaxPromptBytes)+`"}`)
	c := olderBuild(t, `{"id":"user.old","name":"Old","description":"d","version":"1",
		"context":[{"name":"t","type":"string","description":"d"}],"steps":[`+strings.Join(steps, ",")+`]}`)
	last := compile.MaxSteps
	cases := []struct {
		name    string
		step    workflow.StepID
		index   int
		t       string
		message string // "" when it renders
	}{
		{"a step past today's limit of steps", workflow.StepID(fmt.Sprintf("s%d", last)), last, "the logs", ""},
		{"its context fills it past the limit", workflow.StepID(fmt.Sprintf("s%d", last)), last, strings.Repeat("x", compile.MaxPromptBytes),
			"fork from the step before it with smaller values"},
		{"its own text is past the limit", "long", last + 2, "", "no context makes it fit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, fixedCatalog{catalog.New(nil, nil)})
			st := recordedEarlier(t, r, c, tc.step, []run.Frame{{Index: tc.index}}, map[string]any{"t": tc.t})
			sid, _ := executetest.Ring(t).Parse(st, token.State)
			before := len(r.events(t, sid.Session))
			res, b := r.call(t, "continue", map[string]any{"stateToken": st})
			if tc.message == "" {
				s, ok := res.(protocol.StepResult)
				if !ok || s.Pending.StepID != tc.step || s.Pending.Prompt != "Report the logs." {
					t.Fatalf("rehydrate = %s", b)
				}
				next := r.step(t, "continue", map[string]any{"stateToken": s.StateToken, "ackToken": s.AckToken,
					"output": map[string]any{"notesMarkdown": "Reported the logs."}})
				if next.Pending.StepID != "after" {
					t.Fatalf("advanced to %s; want after", next.Pending.StepID)
				}
				return
			}
			e, ok := res.(protocol.ErrorResult)
			if !ok || e.Error.Code != engine.CodePayloadTooLarge || !strings.Contains(e.Error.Message, tc.message) {
				t.Fatalf("rehydrate = %s; want PAYLOAD_TOO_LARGE saying %q", b, tc.message)
			}
			if after := len(r.events(t, sid.Session)); after != before {
				t.Errorf("the refused rehydrate appended %d events", after-before)
			}
		})
	}
}

// TestStartsAndAdvancesOverTheRenderLimitRecordNothing: a start, or an
// advance, whose step would render past the limit is refused before it
// is recorded; the same call with a smaller context goes on.
func TestStartsAndAdvancesOverTheRenderLimitRecordNothing(t *testing.T) {
	r := newRig(t, catalogOf(t, map[string]string{"wr.echo.json": `{"id":"wr.echo","name":"Echo","description":"d","version":"1",
		"context":[{"name":"t","type":"string","description":"d"}],
		"steps":[{"id":"one","title":"One","prompt":"Read {{t}}."},{"id":"two","title":"Two","prompt":"Write {{t}} back."}]}`}))
	big := strings.Repeat("x", compile.MaxPromptBytes)
	res, b := r.call(t, "start", map[string]any{"workflowId": "wr.echo", "context": map[string]any{"t": big}})
	if errCode(t, res) != engine.CodePayloadTooLarge {
		t.Fatalf("start = %s", b)
	}
	if ids, _ := r.store.SessionIDs(); len(ids) != 0 {
		t.Fatalf("the refused start recorded %d sessions", len(ids))
	}
	s := r.step(t, "start", map[string]any{"workflowId": "wr.echo", "context": map[string]any{"t": "a note"}})
	ack := map[string]any{"stateToken": s.StateToken, "ackToken": s.AckToken, "context": map[string]any{"t": big},
		"output": map[string]any{"notesMarkdown": "Read it."}}
	before := len(r.events(t, s.Session.SessionID))
	res, b = r.call(t, "continue", ack)
	if errCode(t, res) != engine.CodePayloadTooLarge {
		t.Fatalf("advance = %s", b)
	}
	if after := len(r.events(t, s.Session.SessionID)); after != before {
		t.Fatalf("the refused advance appended %d events", after-before)
	}
	ack["context"] = map[string]any{"t": "a shorter note"}
	if two := r.step(t, "continue", ack); two.Pending.Prompt != "Write a shorter note back." {
		raw, _ := json.Marshal(two)
		t.Fatalf("the same ackToken with a smaller context: %s", raw)
	}
}

// TestStartOfAWorkflowOverItsLimits: starting a workflow whose file is
// over the limits says why it does not load.
func TestStartOfAWorkflowOverItsLimits(t *testing.T) {
	steps := make([]string, compile.MaxSteps+1)
	for i := range steps {
		steps[i] = fmt.Sprintf(`{"id":"s%d","title":"S","prompt":"p"}`, i)
	}
	files := []catalog.File{{Name: "big.json", Data: []byte(`{"id":"user.big","name":"Big","description":"d","version":"1","steps":[` + strings.Join(steps, ",") + `]}`)}}
	entries, problems := catalog.LoadSet(files, catalog.Source{Kind: catalog.User, Path: "/home/dev/workflows"}, nil)
	r := newRig(t, fixedCatalog{catalog.New(entries, problems)})
	res, b := r.call(t, "start", map[string]any{"workflowId": "user.big"})
	e, ok := res.(protocol.ErrorResult)
	if !ok || e.Error.Code != engine.CodeWorkflowNotFound || !strings.Contains(e.Error.Message, `workflow "user.big" does not load: big.json: `) ||
		!strings.Contains(e.Error.Message, "/steps/1000: expands to 1,001 steps once its routine calls are expanded, over the limit of 1,000") {
		t.Fatalf("start = %s", b)
	}
}
