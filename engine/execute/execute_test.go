package execute_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/workflows"
)

// rig is the use cases over an in-memory store, with the fixed test key
// ring and clock.
type rig struct {
	store *memstore.Store
	x     *execute.Service
}

func newRig(tb testing.TB, wf execute.Workflows) *rig {
	tb.Helper()
	if wf == nil {
		wf = bundled(tb)
	}
	s := memstore.New()
	return &rig{store: s, x: execute.New(s, executetest.Ring(tb), wf, workflow.Preferences{}, executetest.Clock, tb.Logf)}
}

func bundled(tb testing.TB) execute.Workflows { return executetest.Catalog(tb, workflows.FS) }

// catalogOf is a catalog of workflow sources given as file name → JSON.
func catalogOf(tb testing.TB, files map[string]string) execute.Workflows {
	fsys := fstest.MapFS{}
	for name, src := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(src)}
	}
	return executetest.Catalog(tb, fsys)
}

// call runs a tool with arguments given as a Go value and returns the
// result and its JSON bytes.
func (r *rig) call(tb testing.TB, tool string, args any) (protocol.Result, []byte) {
	tb.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		tb.Fatal(err)
	}
	var res protocol.Result
	switch tool {
	case "start":
		res = r.x.Start(context.Background(), raw)
	case "continue":
		res = r.x.Continue(context.Background(), raw)
	case "checkpoint":
		res = r.x.Checkpoint(context.Background(), raw)
	case "start_session":
		res = r.x.StartSession(context.Background(), raw)
	default:
		tb.Fatalf("unknown tool %s", tool)
	}
	b, err := json.Marshal(res)
	if err != nil {
		tb.Fatal(err)
	}
	return res, b
}

func (r *rig) step(tb testing.TB, tool string, args any) protocol.StepResult {
	tb.Helper()
	res, b := r.call(tb, tool, args)
	s, ok := res.(protocol.StepResult)
	if !ok {
		tb.Fatalf("%s(%v) = %s; want a step", tool, args, b)
	}
	return s
}

func (r *rig) events(tb testing.TB, id engine.SessionID) []event.Event {
	tb.Helper()
	evs, h, err := r.store.Events(id)
	if err != nil || h.Status != execute.Healthy {
		tb.Fatalf("Events(%s) = %v, %+v", id, err, h)
	}
	return evs
}

func kinds(evs []event.Event) map[event.Kind]int {
	m := map[event.Kind]int{}
	for _, e := range evs {
		m[e.Kind]++
	}
	return m
}

func errCode(tb testing.TB, res protocol.Result) engine.Code {
	tb.Helper()
	e, ok := res.(protocol.ErrorResult)
	if !ok {
		tb.Fatalf("result is %s; want an error", res.ResultKind())
	}
	return e.Error.Code
}

func TestFullRunToComplete(t *testing.T) {
	r := newRig(t, nil)
	s := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
	var seen []string
	for i := 0; i < 10; i++ {
		seen = append(seen, string(s.Pending.StepID))
		args := s.NextCall.Arguments
		args.Output = &protocol.Output{NotesMarkdown: "did " + string(s.Pending.StepID)}
		res, b := r.call(t, "continue", args)
		if c, ok := res.(protocol.CompleteResult); ok {
			if !c.IsComplete || !strings.Contains(c.Text, "complete") {
				t.Fatalf("complete result %s", b)
			}
			if got := strings.Join(seen, ","); got != "greet,look-around,wrap-up" {
				t.Fatalf("steps = %s", got)
			}
			evs := r.events(t, s.Session.SessionID)
			k := kinds(evs)
			if k[event.AdvanceRecorded] != 3 || k[event.NodeCreated] != 4 || k[event.EdgeCreated] != 3 || k[event.NodeOutputAppended] != 3 {
				t.Fatalf("event kinds = %v", k)
			}
			return
		}
		s = res.(protocol.StepResult)
	}
	t.Fatal("run did not complete")
}

func TestReplayIsByteIdenticalAndWritesNothing(t *testing.T) {
	r := newRig(t, nil)
	s := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
	args := map[string]any{"stateToken": s.StateToken, "ackToken": s.AckToken, "output": map[string]any{"notesMarkdown": "hi"}}
	_, first := r.call(t, "continue", args)
	n := len(r.events(t, s.Session.SessionID))
	for i := 0; i < 3; i++ {
		_, again := r.call(t, "continue", args)
		if string(again) != string(first) {
			t.Fatalf("replay %d differs:\n%s\n%s", i, first, again)
		}
	}
	if got := len(r.events(t, s.Session.SessionID)); got != n {
		t.Fatalf("replays appended events: %d → %d", n, got)
	}
}

func TestRehydrateWritesNothing(t *testing.T) {
	r := newRig(t, nil)
	s := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
	before := len(r.events(t, s.Session.SessionID))
	re := r.step(t, "continue", map[string]any{"stateToken": s.StateToken, "context": map[string]any{"x": 1}, "output": map[string]any{"notesMarkdown": "lost"}})
	if re.Pending.StepID != s.Pending.StepID || re.AckToken != s.AckToken {
		t.Fatalf("rehydrate of an unacked node: step %s ack %s; want %s and the same ack", re.Pending.StepID, re.AckToken, s.Pending.StepID)
	}
	if len(re.Warnings) != 2 {
		t.Fatalf("warnings = %+v; want context and output ignored", re.Warnings)
	}
	if after := len(r.events(t, s.Session.SessionID)); after != before {
		t.Fatalf("rehydrate appended events: %d → %d", before, after)
	}
}

func TestConcurrentIdenticalAcksAdvanceOnce(t *testing.T) {
	r := newRig(t, nil)
	s := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
	args := map[string]any{"stateToken": s.StateToken, "ackToken": s.AckToken}
	var wg sync.WaitGroup
	out := make([][]byte, 16)
	for i := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, out[i] = r.call(t, "continue", args)
		}()
	}
	wg.Wait()
	for i := range out {
		if string(out[i]) != string(out[0]) {
			t.Fatalf("response %d differs from response 0", i)
		}
	}
	if k := kinds(r.events(t, s.Session.SessionID)); k[event.AdvanceRecorded] != 1 || k[event.NodeCreated] != 2 {
		t.Fatalf("event kinds = %v; want exactly one advance", k)
	}
}

func TestRewindForksABranch(t *testing.T) {
	r := newRig(t, nil)
	s1 := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
	s2 := r.step(t, "continue", s1.NextCall.Arguments)
	// The chat is rewound to s1: its node now has a child, so rehydrating it
	// hands out a fresh attempt.
	re := r.step(t, "continue", map[string]any{"stateToken": s1.StateToken})
	if re.AckToken == s1.AckToken {
		t.Fatal("rehydrating a node with children returned the spent ackToken")
	}
	b2 := r.step(t, "continue", re.NextCall.Arguments)
	if b2.StateToken == s2.StateToken || b2.Pending.StepID != s2.Pending.StepID {
		t.Fatalf("fork: state %s step %s; want a new node at step %s", b2.StateToken, b2.Pending.StepID, s2.Pending.StepID)
	}
	evs := r.events(t, s1.Session.SessionID)
	var forked, traced bool
	for _, e := range evs {
		if d, ok := e.Data.(*event.EdgeCreatedData); ok && d.EdgeKind == event.EdgeForkedFromNonTip {
			forked = true
		}
		if d, ok := e.Data.(*event.DecisionTraceAppendedData); ok && d.TraceKind == event.TraceDetectedNonTipAdvance {
			traced = true
		}
	}
	if !forked || !traced {
		t.Fatalf("fork recorded: edge %v trace %v", forked, traced)
	}
	// Both branches continue independently.
	for _, tip := range []protocol.StepResult{s2, b2} {
		next := r.step(t, "continue", tip.NextCall.Arguments)
		if next.Pending.StepID != "wrap-up" {
			t.Fatalf("branch continued to %s", next.Pending.StepID)
		}
	}
	// The original attempt still replays; it never advances twice.
	if again := r.step(t, "continue", s1.NextCall.Arguments); again.StateToken != s2.StateToken {
		t.Fatal("the spent attempt did not replay its recorded answer")
	}
}

func TestBadTokensAreErrorsAsData(t *testing.T) {
	r := newRig(t, nil)
	a := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
	b := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
	cases := []struct {
		name string
		args map[string]any
		want engine.Code
	}{
		{"ack from another run", map[string]any{"stateToken": a.StateToken, "ackToken": b.AckToken}, engine.CodeTokenScopeMismatch},
		{"ack as state", map[string]any{"stateToken": a.AckToken}, engine.CodeTokenWrongKind},
		{"state as ack", map[string]any{"stateToken": a.StateToken, "ackToken": a.StateToken}, engine.CodeTokenWrongKind},
		{"truncated", map[string]any{"stateToken": a.StateToken[:len(a.StateToken)-4]}, engine.CodeTokenInvalidFormat},
		{"wrong prefix", map[string]any{"stateToken": "st.v2." + a.StateToken[6:]}, engine.CodeTokenInvalidFormat},
		{"tampered tag", map[string]any{"stateToken": flipLast(a.StateToken)}, engine.CodeTokenBadSignature},
		{"missing state", map[string]any{"ackToken": a.AckToken}, engine.CodeInvalidInput},
		{"variables", map[string]any{"stateToken": a.StateToken, "variables": map[string]any{}}, engine.CodeUnknownKey},
		{"completedSteps", map[string]any{"stateToken": a.StateToken, "completedSteps": []string{"greet"}}, engine.CodeUnknownKey},
		{"notes at top level", map[string]any{"stateToken": a.StateToken, "notes": "x"}, engine.CodeUnknownKey},
		{"output key typo", map[string]any{"stateToken": a.StateToken, "output": map[string]any{"notesMarkdwn": "x"}}, engine.CodeUnknownKey},
		{"context not an object", map[string]any{"stateToken": a.StateToken, "context": "x"}, engine.CodeInvalidInput},
		{"oversize notes", map[string]any{"stateToken": a.StateToken, "ackToken": a.AckToken, "output": map[string]any{"notesMarkdown": strings.Repeat("x", protocol.MaxNotesBytes+1)}}, engine.CodePayloadTooLarge},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, b := r.call(t, "continue", c.args)
			if got := errCode(t, res); got != c.want {
				t.Fatalf("code %s; want %s\n%s", got, c.want, b)
			}
			if e := res.(protocol.ErrorResult).Error; e.Message == "" || e.Retry.Kind == "" {
				t.Fatalf("error lacks message or retry: %s", b)
			}
			// The log names the session only a verified stateToken names.
			want := engine.SessionID(0)
			if c.args["stateToken"] == a.StateToken {
				want = a.Session.SessionID
			}
			if got := res.(protocol.ErrorResult).About; got != want {
				t.Errorf("the error is about session %d; want %d", got, want)
			}
		})
	}
	// Nothing was advanced by any of them.
	if k := kinds(r.events(t, a.Session.SessionID)); k[event.AdvanceRecorded] != 0 {
		t.Fatalf("bad calls advanced the run: %v", k)
	}
}

func TestTriggerIncidentGetsActionableError(t *testing.T) {
	r := newRig(t, nil)
	res, b := r.call(t, "start", map[string]any{"workflowId": "wr.hello", "completedSteps": []string{"a"}, "variables": map[string]any{"complexity": "High"}})
	if errCode(t, res) != engine.CodeUnknownKey {
		t.Fatalf("%s", b)
	}
	e := res.(protocol.ErrorResult).Error
	got := map[string]engine.Suggestion{}
	for _, s := range e.Suggestions {
		got[s.Path] = s
	}
	if got["variables"].DidYouMean != "context" || !strings.Contains(got["completedSteps"].Note, "tokens") {
		t.Fatalf("suggestions = %+v", e.Suggestions)
	}
}

func flipLast(tok string) string {
	last := tok[len(tok)-1]
	repl := byte('A')
	if last == 'A' {
		repl = 'B'
	}
	return tok[:len(tok)-1] + string(repl)
}

func TestUnknownWorkflowSuggests(t *testing.T) {
	r := newRig(t, nil)
	res, b := r.call(t, "start", map[string]any{"workflowId": "wr.helo"})
	if errCode(t, res) != engine.CodeWorkflowNotFound || len(res.(protocol.ErrorResult).Error.Suggestions) != 1 ||
		res.(protocol.ErrorResult).Error.Suggestions[0].DidYouMean != "wr.hello" {
		t.Fatalf("%s", b)
	}
}

// A run keeps executing the workflow it was pinned to, even after the
// source changes.
func TestRunsStayPinned(t *testing.T) {
	wf := func(prompt string) execute.Workflows {
		return catalogOf(t, map[string]string{"wr.pin.json": fmt.Sprintf(`{"id":"wr.pin","name":"Pin","description":"d","version":"1","steps":[
			{"id":"one","title":"One","prompt":"first"},{"id":"two","title":"Two","prompt":%q}]}`, prompt)})
	}
	r := newRig(t, wf("original"))
	s := r.step(t, "start", map[string]any{"workflowId": "wr.pin"})
	// A new service over the same store (a restarted daemon) sees the
	// edited source.
	r.x = execute.New(r.store, executetest.Ring(t), wf("edited"), workflow.Preferences{}, executetest.Clock, t.Logf)
	next := r.step(t, "continue", s.NextCall.Arguments)
	if next.Pending.Prompt != "original" || next.Workflow.Hash != s.Workflow.Hash {
		t.Fatalf("after the source changed the run got %q (hash %s → %s)", next.Pending.Prompt, s.Workflow.Hash, next.Workflow.Hash)
	}
}

// Numbers the canonical form cannot keep as sent are refused with a
// pointer, before anything is stored; every other number is accepted.
func TestNumbersOutsideDoublesAreRefused(t *testing.T) {
	cases := []struct {
		context string
		pointer string // "" when the number must be accepted
	}{
		{`{"x":1e400}`, "/context/x"},
		{`{"x":-1e309}`, "/context/x"},
		{`{"files":["a",{"n":[1,2e999]}]}`, "/context/files/1/n/1"},
		{`{"a/b":9007199254740993}`, "/context/a~1b"},
		{`{"x":-9007199254740993}`, "/context/x"},
		{`{"x":9007199254740992}`, ""},
		{`{"x":1e20}`, ""},
		{`{"x":-0}`, ""},
		{`{"x":1.7976931348623157e308}`, ""},
		{`{"x":0.1}`, ""},
	}
	r := newRig(t, nil)
	for _, c := range cases {
		t.Run(c.context, func(t *testing.T) {
			res, b := r.call(t, "start", map[string]any{"workflowId": "wr.hello", "context": json.RawMessage(c.context)})
			if c.pointer == "" {
				if _, ok := res.(protocol.StepResult); !ok {
					t.Fatalf("refused: %s", b)
				}
				return
			}
			if errCode(t, res) != engine.CodeInvalidInput || res.(protocol.ErrorResult).Error.Details["pointer"] != c.pointer {
				t.Fatalf("want INVALID_INPUT at %s; got %s", c.pointer, b)
			}
		})
	}
	// An artifact is checked the same way, and the attempt is not recorded.
	s := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
	args := s.NextCall.Arguments
	res, b := r.call(t, "continue", map[string]any{"stateToken": args.StateToken, "ackToken": args.AckToken,
		"output": map[string]any{"notesMarkdown": "done", "artifacts": []any{json.RawMessage(`{"kind":"x","n":1e400}`)}}})
	if errCode(t, res) != engine.CodeInvalidInput || res.(protocol.ErrorResult).Error.Details["pointer"] != "/output/artifacts/0/n" {
		t.Fatalf("artifact with 1e400: %s", b)
	}
	if k := kinds(r.events(t, s.Session.SessionID)); k[event.AdvanceRecorded] != 0 {
		t.Fatalf("the refused call was recorded: %v", k)
	}
}

// Text the canonical form cannot hold is refused at the boundary, not
// discovered while recording.
func TestUnpairedSurrogatesAreRefused(t *testing.T) {
	r := newRig(t, nil)
	s := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
	args := s.NextCall.Arguments
	for _, out := range []string{
		`{"notesMarkdown":"done \ud800"}`,
		`{"notesMarkdown":"done","artifacts":[{"kind":"x","text":"a\udc00b"}]}`,
	} {
		raw := `{"stateToken":"` + args.StateToken + `","ackToken":"` + args.AckToken + `","output":` + out + `}`
		res := r.x.Continue(context.Background(), json.RawMessage(raw))
		if errCode(t, res) != engine.CodeInvalidInput || !strings.Contains(res.RenderedText(), "surrogate") {
			t.Fatalf("%s: %s", out, res.RenderedText())
		}
	}
	if k := kinds(r.events(t, s.Session.SessionID)); k[event.AdvanceRecorded] != 0 {
		t.Fatalf("a refused call was recorded: %v", k)
	}
}

// A relative workspacePath would be resolved against the daemon's working
// directory, not the agent's: every tool refuses it, and says why.
func TestRelativeWorkspacePathIsRefused(t *testing.T) {
	r := newRig(t, nil)
	s := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
	cases := []struct {
		tool string
		call func(context.Context, []byte) protocol.Result
		args string
	}{
		{"start", r.x.Start, `{"workflowId":"wr.hello","workspacePath":"src/app"}`},
		{"continue", r.x.Continue, `{"stateToken":"` + s.StateToken + `","workspacePath":"./"}`},
		{"inspect", r.x.Inspect, `{"workflowId":"wr.hello","workspacePath":"app"}`},
		{"list", r.x.List, `{"workspacePath":"~/code/app"}`},
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			res := c.call(context.Background(), []byte(c.args))
			if errCode(t, res) != engine.CodeInvalidInput || res.(protocol.ErrorResult).Error.Details["pointer"] != "/workspacePath" ||
				!strings.Contains(res.RenderedText(), "absolute path") {
				t.Fatalf("%s", res.RenderedText())
			}
		})
	}
	if _, ok := r.x.List(context.Background(), []byte(`{"workspacePath":"/tmp/app"}`)).(protocol.ListResult); !ok {
		t.Fatal("an absolute workspacePath was refused")
	}
}

// An unknown key with no near match is still explained, not listed bare.
func TestUnknownKeyWithoutNearMatchSaysLeaveItOut(t *testing.T) {
	r := newRig(t, nil)
	res := r.x.List(context.Background(), []byte(`{"workflowId":"wr.hello"}`))
	if errCode(t, res) != engine.CodeUnknownKey {
		t.Fatalf("%s", res.RenderedText())
	}
	sg := res.(protocol.ErrorResult).Error.Suggestions
	if len(sg) != 1 || sg[0].Path != "workflowId" || !strings.Contains(sg[0].Note, "leave it out") {
		t.Fatalf("suggestions = %+v", sg)
	}
}
