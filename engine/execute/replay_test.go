package execute_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/protocol"
)

const (
	files     = `{"kind":"demo.files","items":["a","b"],"count":2}`
	recorded  = `{"notesMarkdown":"hi","artifacts":[` + files + `]}`
	notesOnly = `{"notesMarkdown":"hi"}`
)

// A spent ackToken answers with the recorded answer. Sent with the output
// its attempt recorded (in any key order or number spelling) or
// with nothing to record, the replay is the first answer byte for byte.
// With another output, the answer is the first one plus a warning that the
// output was not recorded, whose nextCall (a rehydrate) leads to
// recording it.
func TestReplayWarnsWhenTheOutputSentWasNotRecorded(t *testing.T) {
	for _, tc := range []struct {
		name          string
		first, replay string // the output sent first and with the replay; "" for none
		warns         bool
	}{
		{"the same output", recorded, recorded, false},
		{"the same output, other key order and number spelling", recorded,
			`{"artifacts":[{"count":2.0,"items":["a","b"],"kind":"demo.files"}],"notesMarkdown":"hi"}`, false},
		{"no output", recorded, "", false},
		{"an empty output", recorded, `{}`, false},
		{"empty notes and no artifacts", recorded, `{"notesMarkdown":"","artifacts":[]}`, false},
		{"nothing recorded, nothing sent", "", "", false},
		{"other notes", recorded, `{"notesMarkdown":"hello","artifacts":[` + files + `]}`, true},
		{"other artifacts", recorded, `{"notesMarkdown":"hi","artifacts":[{"kind":"demo.files","items":["a"],"count":1}]}`, true},
		{"artifacts left out", recorded, notesOnly, true},
		{"notes left out", recorded, `{"artifacts":[` + files + `]}`, true},
		{"nothing recorded, notes sent", "", notesOnly, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, nil)
			s := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
			sid := s.Session.SessionID
			firstRes, first := r.call(t, "continue", ackArgs(s, tc.first))
			n := len(r.events(t, sid))

			res, again := r.call(t, "continue", ackArgs(s, tc.replay))
			if got := len(r.events(t, sid)); got != n {
				t.Fatalf("the replay appended events: %d → %d", n, got)
			}
			if !tc.warns {
				if string(again) != string(first) {
					t.Fatalf("replay differs from the first answer:\n%s\n%s", first, again)
				}
				return
			}
			want := protocol.OutputIgnoredOnReplay(s.StateToken)
			checkAddedWarning(t, firstRes.(protocol.StepResult), res, want)
			conforms(t, schemaFor(t, protocol.ToolContinue), res)

			// Following the warning's nextCall records the output sent:
			// a fresh attempt at the step it was for, on a new branch.
			re := r.step(t, "continue", want.NextCall.Arguments)
			if re.Pending.StepID != s.Pending.StepID || re.AckToken == s.AckToken {
				t.Fatalf("the rehydrate gave %s with ackToken %s; want %s with a fresh one", re.Pending.StepID, re.AckToken, s.Pending.StepID)
			}
			args := ackArgs(re, tc.replay)
			branch, b := r.call(t, "continue", args)
			if st, ok := branch.(protocol.StepResult); !ok || st.Fork == nil || st.StateToken == firstRes.(protocol.StepResult).StateToken {
				t.Fatalf("sending the output with the fresh ackToken did not branch: %s", b)
			}
			if out := lastOutput(t, r.events(t, sid)); !sameJSON(t, out, tc.replay) {
				t.Fatalf("recorded output %s; want %s", out, tc.replay)
			}
			if _, b2 := r.call(t, "continue", args); string(b2) != string(b) {
				t.Fatalf("replaying the recorded branch differs:\n%s\n%s", b, b2)
			}
		})
	}
}

// ackArgs are the arguments acknowledging s's step with output (JSON
// text; none when empty).
func ackArgs(s protocol.StepResult, output string) map[string]any {
	args := map[string]any{"stateToken": s.StateToken, "ackToken": s.AckToken}
	if output != "" {
		args["output"] = json.RawMessage(output)
	}
	return args
}

// checkAddedWarning checks that res is first with warning w added after
// its own warnings, and nothing else changed.
func checkAddedWarning(t *testing.T, first protocol.StepResult, res protocol.Result, w protocol.Warning) {
	t.Helper()
	got, ok := res.(protocol.StepResult)
	if !ok {
		t.Fatalf("replay is %s; want a step", res.ResultKind())
	}
	if n := len(got.Warnings); n == 0 || !reflect.DeepEqual(got.Warnings[n-1], w) || !reflect.DeepEqual(got.Warnings[:n-1], first.Warnings) {
		t.Fatalf("warnings %+v; want %+v then %+v", got.Warnings, first.Warnings, w)
	}
	lines := "- " + string(w.Code) + ": " + w.Message + "\n  Call continue_workflow with exactly these arguments: " +
		`{"stateToken":"` + w.NextCall.Arguments.StateToken + `"}` + "\n"
	if len(first.Warnings) == 0 {
		lines = "\n## Warnings\n" + lines
	}
	if text := strings.Replace(got.Text, lines, "", 1); text != first.Text {
		t.Fatalf("replay text, without the warning:\n%s\nfirst answer:\n%s", text, first.Text)
	}
	got.Warnings, got.Text = first.Warnings, first.Text
	if !reflect.DeepEqual(got, first) {
		t.Fatalf("replay differs beyond the warning:\n%+v\n%+v", got, first)
	}
}

// lastOutput is the last output recorded in evs, as JSON.
func lastOutput(t *testing.T, evs []event.Event) json.RawMessage {
	t.Helper()
	for i := len(evs) - 1; i >= 0; i-- {
		if d, ok := evs[i].Data.(*event.NodeOutputAppendedData); ok {
			b, err := json.Marshal(protocol.Output{NotesMarkdown: d.NotesMarkdown, Artifacts: d.Artifacts})
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	return nil
}

// sameJSON compares two JSON texts as values.
func sameJSON(t *testing.T, a json.RawMessage, b string) bool {
	t.Helper()
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal([]byte(b), &vb) != nil {
		t.Fatalf("not JSON: %s / %s", a, b)
	}
	return reflect.DeepEqual(va, vb)
}

// The warning is added to a complete answer too: the last step's spent
// ackToken resent with other notes.
func TestReplayOfTheLastStepWarns(t *testing.T) {
	r := newRig(t, nil)
	s := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
	for s.Pending.StepID != "wrap-up" {
		s = r.step(t, "continue", ackArgs(s, notesOnly))
	}
	first, b := r.call(t, "continue", ackArgs(s, notesOnly))
	c, ok := first.(protocol.CompleteResult)
	if !ok {
		t.Fatalf("the last step did not complete the run: %s", b)
	}
	res, _ := r.call(t, "continue", ackArgs(s, `{"notesMarkdown":"bye"}`))
	got, ok := res.(protocol.CompleteResult)
	want := protocol.OutputIgnoredOnReplay(s.StateToken)
	if !ok || len(got.Warnings) != 1 || !reflect.DeepEqual(got.Warnings[0], want) || !strings.Contains(got.Text, "## Warnings\n- OUTPUT_IGNORED_ON_REPLAY: ") {
		t.Fatalf("complete replay: %+v", res)
	}
	got.Warnings, got.Text = c.Warnings, c.Text
	if !reflect.DeepEqual(got, c) {
		t.Fatalf("complete replay differs beyond the warning:\n%+v\n%+v", got, c)
	}
}

// A blocked attempt recorded no output, and its answer already says that
// nothing advanced and hands out the next attempt: a replay of it is the
// first answer byte for byte whatever it carries, and its nextCall records
// the output.
func TestReplayOfABlockedAttemptAddsNothing(t *testing.T) {
	r := autonomyRig(t)
	s := r.step(t, "start", map[string]any{"workflowId": "wr.auto", "mode": "wr.modes.guided"})
	res, first := r.call(t, "continue", map[string]any{"stateToken": s.StateToken, "ackToken": s.AckToken})
	bl := blockedOf(t, res, first)
	withOutput := map[string]any{"stateToken": s.StateToken, "ackToken": s.AckToken, "output": bl.NextCall.Arguments.Output}
	if _, again := r.call(t, "continue", withOutput); string(again) != string(first) {
		t.Fatalf("blocked replay with an output differs:\n%s\n%s", first, again)
	}
	if next := r.step(t, "continue", executetest.NextArgs(t, bl)); next.Pending.StepID != "report" {
		t.Fatalf("the blocked answer's nextCall, filled, did not advance: %s", next.Pending.StepID)
	}
}
