package execute_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/golden"
	"github.com/workrail/workrail/engine/protocol"
)

// constructs is testdata/workflows/constructs.json, a canonical workflow
// with one step or loop per construct decided at render or at advance,
// loaded as the daemon loads a file (strict reader, checker, compiler).
func constructs(tb testing.TB) execute.Workflows {
	tb.Helper()
	return executetest.Catalog(tb, os.DirFS(filepath.Join("testdata", "workflows")))
}

// tokensOf returns the arguments that continue from a step or blocked
// result, with output set.
func tokensOf(tb testing.TB, res protocol.Result, output string) map[string]any {
	tb.Helper()
	var state, ack string
	switch r := res.(type) {
	case protocol.StepResult:
		state, ack = r.StateToken, r.AckToken
	case protocol.BlockedResult:
		state, ack = r.StateToken, r.AckToken
	default:
		tb.Fatalf("result is %s", res.ResultKind())
	}
	args := map[string]any{"stateToken": state, "ackToken": ack}
	if output != "" {
		args["output"] = json.RawMessage(output)
	}
	return args
}

const (
	readyScope   = `{"kind":"wr.assessment","dimensions":{"scope":"bounded","risks":"named"}}`
	unclearScope = `{"kind":"wr.assessment","dimensions":{"scope":"Unclear"}}`
)

// A guided run through every construct, its text pinned: the rules and
// references at start and on rehydrate, templates and fragments at the
// chosen context, the criteria before and after they fail, the
// assessment's requirements and its follow-up, loop variables, the
// condition-less loop stopped by a wr.loop_control artifact, and the
// delegations. Every answer, blocked or not, replays byte for byte.
func TestConstructsGolden(t *testing.T) {
	r := newRig(t, constructs(t))
	var got bytes.Buffer
	n := 0
	show := func(label string, res protocol.Result) protocol.Result {
		n++
		fmt.Fprintf(&got, "======== %02d %s: %s\n%s\n", n, label, res.ResultKind(), res.RenderedText())
		return res
	}
	send := func(label string, from protocol.Result, output string) protocol.Result {
		args := tokensOf(t, from, output)
		res, first := r.call(t, "continue", args)
		show(label, res)
		if _, again := r.call(t, "continue", args); !bytes.Equal(first, again) {
			t.Fatalf("%s: the replay differs:\n%s\n%s", label, first, again)
		}
		return res
	}
	res, _ := r.call(t, "start", map[string]any{"workflowId": "wr.constructs",
		"context": map[string]any{"depth": " DEEP ", "risky": "yes", "slices": []any{map[string]any{"name": "auth"}, map[string]any{"name": "api"}}}})
	show("start", res)
	if !res.(protocol.StepResult).Pending.RequireConfirmation {
		t.Fatal(`requireConfirmation {"var":"risky","equals":true} did not hold with risky "yes"`)
	}
	res = send("confirmation not asked", res, `{"notesMarkdown":"Plan: auth first, then api."}`)
	res = send("criteria unmet", res, `{"notesMarkdown":"nothing yet","artifacts":[{"kind":"wr.user_response","response":"Go ahead."}]}`)
	res = send("criteria met", res, `{"notesMarkdown":"Plan: auth first, then api.","artifacts":[{"kind":"wr.user_response","response":"Go ahead."}]}`)
	res = send("assessment missing", res, `{"notesMarkdown":"rated"}`)
	res = send("assessment asks for a follow-up", res, `{"artifacts":[`+unclearScope+`]}`)
	res = send("assessment ready", res, `{"artifacts":[`+readyScope+`]}`)
	res = send("first slice", res, `{"notesMarkdown":"Built auth."}`)
	res = send("second slice", res, `{"notesMarkdown":"Built api."}`)
	res = send("polish pass", res, `{}`)
	res = send("decide to continue", res, `{"artifacts":[{"kind":"wr.loop_control","decision":"continue"}]}`)
	res = send("polish pass again", res, `{}`)
	res = send("decide to stop", res, `{"artifacts":[{"kind":"wr.loop_control","decision":"stop","metadata":{"reason":"Nothing left worth a pass."}}]}`)
	st := res.(protocol.StepResult)
	show("rehydrate", r.step(t, "continue", map[string]any{"stateToken": st.StateToken}))
	send("delegations", res, `{}`)
	golden.Check(t, filepath.Join("testdata", "golden", "constructs.txt"), got.Bytes())
}

// In full_auto_never_stop, unmet criteria, missing notes and a follow-up
// the agent did not do are critical gaps, and the run advances.
func TestConstructsNeverStop(t *testing.T) {
	r := newRig(t, constructs(t))
	res, _ := r.call(t, "start", map[string]any{"workflowId": "wr.constructs", "mode": "wr.modes.full_auto_never_stop",
		"context": map[string]any{"depth": "quick", "slices": []any{map[string]any{"name": "auth"}}}})
	var reasons []string
	for _, out := range []string{`{"notesMarkdown":"no plan header"}`, `{"artifacts":[` + unclearScope + `]}`, `{}`} {
		next, b := r.call(t, "continue", tokensOf(t, res, out))
		st, ok := next.(protocol.StepResult)
		if !ok {
			t.Fatalf("never-stop did not advance: %s", b)
		}
		for _, g := range st.Gaps {
			if g.Severity != event.SeverityCritical {
				t.Fatalf("gap %+v is not critical", g)
			}
			reasons = append(reasons, string(g.Reason))
		}
		res = next
	}
	if got := strings.Join(reasons, ","); got != "notes_criteria_unmet,assessment_followup_required,notes_missing" {
		t.Fatalf("gaps %s", got)
	}
}

// Reaching the forEach loop without its required array is an input error:
// nothing is recorded, and the same ackToken with the array goes on.
func TestConstructsRequiredItems(t *testing.T) {
	r := newRig(t, constructs(t))
	res, _ := r.call(t, "start", map[string]any{"workflowId": "wr.constructs", "context": map[string]any{"depth": "quick"}})
	res, _ = r.call(t, "continue", tokensOf(t, res, `{"notesMarkdown":"Plan: one slice."}`))
	sid := res.(protocol.StepResult).Session.SessionID
	before := len(r.events(t, sid))
	args := tokensOf(t, res, `{"artifacts":[`+readyScope+`]}`)
	bad, b := r.call(t, "continue", args)
	if errCode(t, bad) != "INVALID_INPUT" || !strings.Contains(string(b), "loop build (Build each slice) runs once per item of context.slices, which is not set") {
		t.Fatalf("advance without the array: %s", b)
	}
	if after := len(r.events(t, sid)); after != before {
		t.Fatalf("the refused advance recorded %d events", after-before)
	}
	args["context"] = map[string]any{"slices": []any{map[string]any{"name": "auth"}}}
	if st := r.step(t, "continue", args); st.Pending.StepID != "impl" || st.Pending.Title != "Slice auth" {
		t.Fatalf("with the array: %s %q", st.Pending.StepID, st.Pending.Title)
	}
}
