package execute_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/resume"
	"github.com/workrail/workrail/engine/token"
)

// resumeCall calls resume_session and wants candidates.
func (r *rig) resumeCall(tb testing.TB, args any) protocol.ResumeResult {
	tb.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		tb.Fatal(err)
	}
	res, ok := r.x.ResumeSession(context.Background(), raw).(protocol.ResumeResult)
	if !ok {
		tb.Fatalf("resume_session(%s) = %s", raw, r.x.ResumeSession(context.Background(), raw).RenderedText())
	}
	return res
}

// advance acknowledges step s with notes.
func (r *rig) advance(tb testing.TB, s protocol.StepResult, notes string) protocol.Result {
	tb.Helper()
	args := s.NextCall.Arguments
	args.Output = &protocol.Output{NotesMarkdown: notes}
	res, _ := r.call(tb, "continue", args)
	return res
}

func (r *rig) advanceStep(tb testing.TB, s protocol.StepResult, notes string) protocol.StepResult {
	tb.Helper()
	next, ok := r.advance(tb, s, notes).(protocol.StepResult)
	if !ok {
		tb.Fatalf("advancing %s did not give a step", s.Pending.StepID)
	}
	return next
}

// A rewound chat forks the run; resume offers the preferred tip (the
// latest branch), not a node an old token names, and its call rehydrates
// there. When the old branch is touched again, resume follows it.
func TestResumeReachesThePreferredTipOfAForkedRun(t *testing.T) {
	r := newRig(t, executetest.Long(t, 5))
	root := r.step(t, "start", map[string]any{"workflowId": "wr.long"})
	old := r.advanceStep(t, root, "auth bug: first try, a cache")
	old = r.advanceStep(t, old, "auth bug: the cache did not help")
	// The chat is rewound to the first answer: a fresh ack for the root.
	again := r.step(t, "continue", map[string]any{"stateToken": root.StateToken})
	fork := r.advanceStep(t, again, "auth bug: second try, a queue")

	res := r.resumeCall(t, map[string]any{"query": "auth bug"})
	if len(res.Candidates) != 1 {
		t.Fatalf("candidates %+v", res.Candidates)
	}
	c := res.Candidates[0]
	forkTip := tokenNode(t, fork.StateToken)
	if c.Tier != resume.TierNotes || c.TipNodeID != forkTip || c.Snippet != "auth bug: second try, a queue" ||
		c.NextCall != protocol.Rehydrate(c.StateToken) || c.Workflow.ID != "wr.long" || c.Workflow.Name != "Long" || c.Status != project.InProgress {
		t.Fatalf("candidate %+v; want the fork's tip %s", c, forkTip)
	}
	if c.StateToken != fork.StateToken {
		t.Fatalf("the candidate's stateToken %s is not the fork tip's %s", c.StateToken, fork.StateToken)
	}
	re := r.step(t, "continue", c.NextCall.Arguments)
	if re.Pending.StepID != fork.Pending.StepID || re.Recap == nil || !strings.Contains(re.Text, "second try") || strings.Contains(re.Text, "first try") {
		t.Fatalf("the resumed step is %s with recap %+v", re.Pending.StepID, re.Recap)
	}

	// The old branch is the latest touched again: resume follows it.
	deeper := r.advanceStep(t, old, "auth bug: the cache, tuned")
	c = r.resumeCall(t, map[string]any{"query": "auth bug"}).Candidates[0]
	if c.TipNodeID != tokenNode(t, deeper.StateToken) || c.Snippet != "auth bug: the cache, tuned" {
		t.Fatalf("after the old branch moved on: %+v", c)
	}
}

func tokenNode(t *testing.T, st string) engine.NodeID {
	t.Helper()
	c, err := executetest.Ring(t).Parse(st, token.State)
	if err != nil {
		t.Fatal(err)
	}
	return c.Node
}

// At most five candidates, ranked the locked way (the session written
// last first), each snippet within its budget; the same call answers the
// same bytes.
func TestResumeBudgetsAndOrder(t *testing.T) {
	r := newRig(t, executetest.Long(t, 3))
	long := "needle " + strings.Repeat("é", 2000) // 4007 bytes
	for i := range 12 {
		s := r.step(t, "start", map[string]any{"workflowId": "wr.long"})
		notes := fmt.Sprintf("session %d", i)
		if i == 7 {
			notes = long
		}
		r.advanceStep(t, s, notes)
	}
	res := r.resumeCall(t, map[string]any{})
	var got []string
	for _, c := range res.Candidates {
		got = append(got, c.Session.SessionID.String())
		if len(c.Snippet) > resume.MaxSnippetBytes || !utf8.ValidString(c.Snippet) || c.Tier != resume.TierRecency {
			t.Errorf("%s: tier %s, snippet of %d bytes", c.Session.SessionID, c.Tier, len(c.Snippet))
		}
	}
	// Every log is as long: the session written last comes first.
	if want := "ses_12 ses_11 ses_10 ses_9 ses_8"; strings.Join(got, " ") != want {
		t.Fatalf("candidates %s; want %s", strings.Join(got, " "), want)
	}
	needle := r.resumeCall(t, map[string]any{"query": "needle"}).Candidates
	if len(needle) != 5 || needle[0].Session.SessionID != 8 || needle[0].Tier != resume.TierNotes ||
		len(needle[0].Snippet) > resume.MaxSnippetBytes || !strings.HasSuffix(needle[0].Snippet, "é … [truncated]") {
		t.Fatalf("the session with long notes: %+v", needle[0])
	}
	a, _ := json.Marshal(r.x.ResumeSession(context.Background(), []byte(`{"query":"session 3"}`)))
	b, _ := json.Marshal(r.x.ResumeSession(context.Background(), []byte(`{"query":"session 3"}`)))
	if string(a) != string(b) {
		t.Fatal("the same call answered differently")
	}
}

// Arguments are checked like every tool's: an unknown key is refused
// with the corrected call; a relative workspace is invalid.
func TestResumeRefusesBadArguments(t *testing.T) {
	r := newRig(t, nil)
	res := r.x.ResumeSession(context.Background(), []byte(`{"qurey":"auth bug"}`))
	e, ok := res.(protocol.ErrorResult)
	if !ok || e.Error.Code != engine.CodeUnknownKey || e.NextCall == nil || e.NextCall.Tool != string(protocol.ToolResume) {
		t.Fatalf("unknown key: %s", res.RenderedText())
	}
	if got, _ := json.Marshal(e.NextCall.Arguments); string(got) != `{"query":"auth bug"}` {
		t.Fatalf("the corrected call is %s", got)
	}
	if code := errCode(t, r.x.ResumeSession(context.Background(), []byte(`{"workspacePath":"rel"}`))); code != engine.CodeInvalidInput {
		t.Fatalf("relative workspace: %s", code)
	}
}

func TestResumeWithNothingStored(t *testing.T) {
	r := newRig(t, nil)
	if res := r.resumeCall(t, map[string]any{"query": "anything"}); len(res.Candidates) != 0 || !strings.Contains(res.Text, "start_workflow") {
		t.Fatalf("empty store: %+v", res)
	}
}
