package e2e

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// A spent ackToken resent with other notes answers with the recorded
// answer plus a warning that the notes were not recorded; following the
// warning's nextCall and then sending the notes with the fresh ackToken
// records them, on a new branch.
func TestReplayWithOtherOutputWarnsAndItsNextCallRecordsIt(t *testing.T) {
	home := newHome(t)
	c := startShim(t, home)
	r0 := startHello(t, c)
	session, st0 := str(r0.S, "session", "sessionId"), str(r0.S, "stateToken")
	r1 := call(t, c, "continue_workflow", nextArgs(t, r0, "first notes"))
	mustKind(t, r1, "step")
	n := sessionEvents(t, home, session)

	// The same notes again: the first answer, byte for byte.
	if again := call(t, c, "continue_workflow", nextArgs(t, r0, "first notes")); !bytes.Equal(again.Raw, r1.Raw) {
		t.Fatalf("replay with the same notes differs:\n%s\n%s", again.Raw, r1.Raw)
	}

	// Other notes: the first answer, plus the warning.
	other := call(t, c, "continue_workflow", nextArgs(t, r0, "second thoughts"))
	if got := sessionEvents(t, home, session); got != n {
		t.Fatalf("a replay grew the log from %d to %d events", n, got)
	}
	w := lastWarning(t, other)
	if str(w, "code") != "OUTPUT_IGNORED_ON_REPLAY" || !strings.Contains(str(w, "message"), "NOT recorded") {
		t.Fatalf("last warning %v; want OUTPUT_IGNORED_ON_REPLAY", w)
	}
	wantCall := map[string]any{"tool": "continue_workflow", "arguments": map[string]any{"stateToken": st0}}
	if !reflect.DeepEqual(w["nextCall"], wantCall) {
		t.Fatalf("the warning's nextCall is %v; want the rehydrate %v", w["nextCall"], wantCall)
	}
	if !strings.Contains(other.Text, `Call continue_workflow with exactly these arguments: {"stateToken":"`+st0+`"}`) {
		t.Errorf("the text does not show the warning's call:\n%s", other.Text)
	}
	if a, b := withoutReplayWarning(t, other), withoutReplayWarning(t, r1); !reflect.DeepEqual(a, b) {
		t.Errorf("the warned replay differs from the first answer beyond the warning:\n%v\n%v", a, b)
	}

	// Follow the warning's nextCall, then send the notes with the fresh
	// ackToken it hands out.
	re := call(t, c, str(w, "nextCall", "tool"), dig(w, "nextCall", "arguments").(map[string]any))
	mustKind(t, re, "step")
	if str(re.S, "pending", "stepId") != "greet" || str(re.S, "ackToken") == str(r0.S, "ackToken") {
		t.Fatalf("the rehydrate gave %s with ackToken %s; want greet with a fresh one", str(re.S, "pending", "stepId"), str(re.S, "ackToken"))
	}
	args := nextArgs(t, re, "second thoughts")
	branch := call(t, c, "continue_workflow", args)
	mustKind(t, branch, "step")
	if branch.S["fork"] == nil || str(branch.S, "stateToken") == str(r1.S, "stateToken") {
		t.Fatalf("the notes were not recorded on a new branch: %s", branch.Raw)
	}
	if got := sessionEvents(t, home, session); got <= n {
		t.Fatalf("recording the notes did not grow the log (%d → %d)", n, got)
	}
	recap := dig(rehydrate(t, c, str(branch.S, "stateToken")).S, "recap", "entries").([]any)
	if len(recap) != 1 || str(recap[0].(map[string]any), "notesMarkdown") != "second thoughts" {
		t.Fatalf("the new branch's recap is %v; want the second thoughts", recap)
	}
	if again := call(t, c, "continue_workflow", args); !bytes.Equal(again.Raw, branch.Raw) {
		t.Fatalf("replaying the recorded notes differs:\n%s\n%s", again.Raw, branch.Raw)
	}
	healthyDoctor(t, home)
}

func lastWarning(t *testing.T, r result) map[string]any {
	t.Helper()
	ws, _ := r.S["warnings"].([]any)
	if len(ws) == 0 {
		t.Fatalf("no warnings: %s", r.Raw)
	}
	return ws[len(ws)-1].(map[string]any)
}

// withoutReplayWarning is a result's structured content with its
// OUTPUT_IGNORED_ON_REPLAY warning, and that warning's lines in its text,
// taken out.
func withoutReplayWarning(t *testing.T, r result) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Raw, &m); err != nil {
		t.Fatal(err)
	}
	var kept []any
	for _, w := range m["warnings"].([]any) {
		if str(w.(map[string]any), "code") != "OUTPUT_IGNORED_ON_REPLAY" {
			kept = append(kept, w)
		}
	}
	m["warnings"] = kept
	var lines []string
	skip := false
	for _, l := range strings.Split(str(m, "text"), "\n") {
		if strings.HasPrefix(l, "- OUTPUT_IGNORED_ON_REPLAY: ") {
			skip = true
			continue
		}
		if skip && strings.HasPrefix(l, "  Call ") {
			continue
		}
		skip = false
		lines = append(lines, l)
	}
	m["text"] = strings.ReplaceAll(strings.Join(lines, "\n"), "\n## Warnings\n\n", "\n")
	return m
}
