package execute_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/bundle"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/token"
)

// twoFlows holds wr.a (three steps) and wr.b (two), for a session that
// runs one workflow and then the next for the same work.
func twoFlows(t *testing.T) *rig {
	flow := func(id string, steps ...string) string {
		var s []string
		for _, st := range steps {
			s = append(s, `{"id":"`+st+`","title":"`+strings.ToUpper(st)+`","prompt":"do `+st+`"}`)
		}
		return `{"id":"` + id + `","name":"` + id + `","description":"d","version":"1","steps":[` + strings.Join(s, ",") + `]}`
	}
	return newRig(t, catalogOf(t, map[string]string{
		"wr.a.json": flow("wr.a", "a1", "a2", "a3"),
		"wr.b.json": flow("wr.b", "b1", "b2"),
		"wr.f.json": forkFlow("1", "c"),
	}))
}

// A start with a run's stateToken starts its run in that run's session:
// a run_started there, with its own root node and baseline preferences,
// and no second session_created. Both runs then advance, rehydrate and
// fork on their own; each start with the token is one more run.
func TestStartInTheSessionOfARun(t *testing.T) {
	r := twoFlows(t)
	first := r.step(t, "start", map[string]any{"workflowId": "wr.a", "workspacePath": "/work/proj"})
	first = r.advanceStep(t, first, "a1 done")
	sid := first.Session.SessionID
	before := len(r.events(t, sid))

	second := r.step(t, "start", map[string]any{"workflowId": "wr.b", "stateToken": first.StateToken, "mode": "wr.modes.full_auto_never_stop"})
	if second.Session.SessionID != sid || second.Session.RunID == first.Session.RunID || second.Pending.StepID != "b1" {
		t.Fatalf("second start = session %s run %s pending %s; want a new run of session %s at b1",
			second.Session.SessionID, second.Session.RunID, second.Pending.StepID, sid)
	}
	added := r.since(t, sid, before)
	if added[0].Kind != event.RunStarted || added[0].Run != second.Session.RunID {
		t.Fatalf("the new run's first event is %s of run %s", added[0].Kind, added[0].Run)
	}
	for _, e := range added {
		if e.Kind == event.SessionCreated {
			t.Fatal("a start in a session wrote a second session_created")
		}
	}
	if root := tokenNode(t, second.StateToken); root == tokenNode(t, first.StateToken) || graphOf(t, r.store, sid).Runs()[1].Root != root {
		t.Fatalf("the second run's root is not a node of its own: %s", root)
	}
	// The mode is the new run's own; the first keeps its own.
	if second.Preferences.Autonomy == first.Preferences.Autonomy {
		t.Fatalf("the second run's preferences %+v are the first's", second.Preferences)
	}

	// Both advance, and each rehydrates to its own pending step.
	first = r.advanceStep(t, first, "a2 done")
	second = r.advanceStep(t, second, "b1 done")
	for _, tc := range []struct {
		s    protocol.StepResult
		want string
	}{{first, "a3"}, {second, "b2"}} {
		re := r.step(t, "continue", map[string]any{"stateToken": tc.s.StateToken})
		if string(re.Pending.StepID) != tc.want || re.Session != tc.s.Session {
			t.Fatalf("rehydrate of run %s pending %s; want %s", tc.s.Session.RunID, re.Pending.StepID, tc.want)
		}
	}

	// A Console fork of the second run stays in it.
	res, at := r.x.Fork(context.Background(), placeOf(t, second), nil)
	if _, ok := res.(protocol.StepResult); !ok || at.Run != second.Session.RunID {
		b, _ := json.Marshal(res)
		t.Fatalf("fork of the second run = %s at %+v", b, at)
	}

	// Not idempotent, like any start: the same call again is a third run.
	third := r.step(t, "start", map[string]any{"workflowId": "wr.b", "stateToken": first.StateToken, "mode": "wr.modes.full_auto_never_stop"})
	if third.Session.SessionID != sid || third.Session.RunID == second.Session.RunID {
		t.Fatalf("the same start again = %+v; want a third run of %s", third.Session, sid)
	}
	if n := len(graphOf(t, r.store, sid).Runs()); n != 3 {
		t.Fatalf("the session has %d runs; want 3", n)
	}
}

// resume_session offers, of a session's runs, the one touched last; and
// an export → import of a session with two started runs projects alike.
func TestSecondRunResumesAndTravels(t *testing.T) {
	r := twoFlows(t)
	first := r.step(t, "start", map[string]any{"workflowId": "wr.a"})
	first = r.advanceStep(t, first, "shared topic: a1")
	second := r.step(t, "start", map[string]any{"workflowId": "wr.b", "stateToken": first.StateToken})
	second = r.advanceStep(t, second, "shared topic: b1")
	sid := first.Session.SessionID

	res := r.resumeCall(t, map[string]any{"query": "shared topic"})
	if len(res.Candidates) != 1 || res.Candidates[0].StateToken != second.StateToken {
		t.Fatalf("candidates %+v; want the second run's tip", res.Candidates)
	}
	r.advanceStep(t, first, "shared topic: a2")
	res = r.resumeCall(t, map[string]any{"query": "shared topic"})
	if len(res.Candidates) != 1 || res.Candidates[0].Workflow.ID != "wr.a" {
		t.Fatalf("candidates %+v; want the first run, touched last", res.Candidates)
	}

	b := export(t, r.x, sid, bundle.ExportOptions{})
	to := twoFlows(t)
	rep := importInto(t, to, b)
	if rep.Runs != 2 {
		t.Fatalf("import report %+v; want 2 runs", rep)
	}
	if got, want := projection(t, to.store, rep.Session), projection(t, r.store, sid); got != want {
		t.Fatalf("the imported session projects otherwise:\n%s", lineDiff(want, got))
	}
}

// A stateToken that does not verify is refused where it was sent, with
// the same call without it (a new session) as the fix; a token of
// another kind is refused too. A workspacePath other than the session's
// is refused: the run starts where its session was started.
func TestStartInASessionRefusals(t *testing.T) {
	r := twoFlows(t)
	first := r.step(t, "start", map[string]any{"workflowId": "wr.a", "workspacePath": "/work/proj"})
	ring := executetest.Ring(t)
	elsewhere, err := ring.Mint(token.Claims{Kind: token.State, Key: ring.Active(), Session: first.Session.SessionID + 1, Run: 1, Node: 1})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    map[string]any
		code    engine.Code
		pointer string
		fix     bool
		// topic is the fix's example topic, for a fix that keeps the
		// stateToken and completes the context.
		topic string
	}{
		{"forged", map[string]any{"workflowId": "wr.b", "stateToken": "st1.forged"}, engine.CodeTokenInvalidFormat, "/stateToken", true, ""},
		{"tampered", map[string]any{"workflowId": "wr.b", "stateToken": first.StateToken[:len(first.StateToken)-2] + "AA"}, engine.CodeTokenBadSignature, "/stateToken", true, ""},
		{"ack token", map[string]any{"workflowId": "wr.b", "stateToken": first.AckToken}, engine.CodeTokenWrongKind, "/stateToken", true, ""},
		{"no such session here", map[string]any{"workflowId": "wr.b", "stateToken": elsewhere}, engine.CodeTokenUnknownNode, "/stateToken", true, ""},
		{"other workspace", map[string]any{"workflowId": "wr.b", "stateToken": first.StateToken, "workspacePath": "/elsewhere"}, engine.CodeInvalidInput, "/workspacePath", false, ""},
		{"unknown workflow", map[string]any{"workflowId": "wr.zzz", "stateToken": first.StateToken}, engine.CodeWorkflowNotFound, "", false, ""},
		{"missing context", map[string]any{"workflowId": "wr.f", "stateToken": first.StateToken}, engine.CodeInvalidInput, "/context", false, "<<fill: topic (string): the topic>>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(r.events(t, first.Session.SessionID))
			res, b := r.call(t, "start", tt.args)
			e, ok := res.(protocol.ErrorResult)
			if !ok || e.Error.Code != tt.code {
				t.Fatalf("start = %s; want %s", b, tt.code)
			}
			if tt.pointer != "" && e.Error.Details["pointer"] != tt.pointer {
				t.Errorf("pointer %v; want %s", e.Error.Details["pointer"], tt.pointer)
			}
			if tt.fix {
				if e.NextCall == nil {
					t.Fatalf("no nextCall: %s", b)
				}
				args := e.NextCall.Arguments
				if e.NextCall.Tool != string(protocol.ToolStart) || strings.Contains(string(args), "stateToken") ||
					!strings.Contains(string(args), `"workflowId":"wr.b"`) {
					t.Fatalf("nextCall %s; want the same start without stateToken", b)
				}
			}
			if tt.topic != "" {
				var args struct {
					StateToken string            `json:"stateToken"`
					Context    map[string]string `json:"context"`
				}
				if e.NextCall == nil || json.Unmarshal(e.NextCall.Arguments, &args) != nil || args.StateToken != first.StateToken || args.Context["topic"] != tt.topic {
					t.Fatalf("nextCall %s; want the same start with context.topic %s", b, tt.topic)
				}
			}
			if n := len(r.events(t, first.Session.SessionID)); n != before {
				t.Fatalf("a refused start wrote %d events", n-before)
			}
		})
	}
}

// placeOf is where step s left its run.
func placeOf(t *testing.T, s protocol.StepResult) execute.Place {
	return execute.Place{Session: s.Session.SessionID, Run: s.Session.RunID, Node: tokenNode(t, s.StateToken)}
}
