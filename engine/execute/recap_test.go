package execute_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/protocol"
)

func withNotes(s protocol.StepResult, notes string) protocol.ContinueArgs {
	a := s.NextCall.Arguments
	a.Output = &protocol.Output{NotesMarkdown: notes}
	return a
}

func TestRehydrateRecapsNotesInOrder(t *testing.T) {
	r := newRig(t, nil)
	s1 := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
	s2 := r.step(t, "continue", withNotes(s1, "said hello"))
	s3 := r.step(t, "continue", withNotes(s2, "listed files"))
	re := r.step(t, "continue", map[string]any{"stateToken": s3.StateToken})
	if re.Recap == nil || len(re.Recap.Entries) != 2 || re.Recap.Omitted != 0 {
		t.Fatalf("recap = %+v", re.Recap)
	}
	e := re.Recap.Entries
	if e[0].StepID != "greet" || e[0].NotesMarkdown != "said hello" || e[1].StepID != "look-around" {
		t.Fatalf("recap entries = %+v", e)
	}
	// Each entry names its output: what a correction names in
	// supersedesOutputId.
	evs := r.events(t, s1.Session.SessionID)
	for _, en := range e {
		if en.Output == "" || en.Supersedes != "" || evs[outputIndex(t, en.Output)-1].Kind != event.NodeOutputAppended {
			t.Fatalf("recap entry %+v does not name its output", en)
		}
	}
	if !strings.Contains(re.Text, "## Recap") || !strings.Contains(re.Text, "- greet ("+string(e[0].Output)+"): said hello") {
		t.Fatalf("recap missing from text:\n%s", re.Text)
	}
}

func TestRecapKeepsMostRecentWithinBudget(t *testing.T) {
	r := newRig(t, executetest.Long(t, 40))
	s := r.step(t, "start", map[string]any{"workflowId": "wr.long"})
	for i := 0; i < 30; i++ {
		s = r.step(t, "continue", withNotes(s, fmt.Sprintf("note %d %s", i, strings.Repeat("x", 700))))
	}
	re := r.step(t, "continue", map[string]any{"stateToken": s.StateToken})
	rc := re.Recap
	if rc.Omitted == 0 || rc.Policy != "kept_most_recent" || len(rc.Entries)+rc.Omitted != 30 {
		t.Fatalf("recap kept %d, omitted %d, policy %q", len(rc.Entries), rc.Omitted, rc.Policy)
	}
	if last := rc.Entries[len(rc.Entries)-1].NotesMarkdown; !strings.HasPrefix(last, "note 29 ") {
		t.Fatalf("the newest note was not kept: %.20s", last)
	}
	size := 0
	for _, e := range rc.Entries {
		size += len(e.NotesMarkdown)
	}
	if size > project.RecapBudget {
		t.Fatalf("recap holds %d bytes; budget %d", size, project.RecapBudget)
	}
	if !strings.Contains(re.Text, fmt.Sprintf("truncated: %d older entries omitted", rc.Omitted)) {
		t.Fatalf("truncation not said in text:\n%s", re.Text)
	}
}

func TestForkResponseDescribesEarlierBranches(t *testing.T) {
	r := newRig(t, nil)
	s1 := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
	s2 := r.step(t, "continue", withNotes(s1, "first greeting"))
	r.step(t, "continue", withNotes(s2, "first listing"))
	re := r.step(t, "continue", map[string]any{"stateToken": s1.StateToken})
	if re.Fork == nil || len(re.Fork.Siblings) != 1 {
		t.Fatalf("rehydrating a node with children shows no branches: %+v", re.Fork)
	}
	args := withNotes(re, "second greeting")
	_, first := r.call(t, "continue", args)
	f := r.step(t, "continue", args)
	if f.Fork == nil || f.Fork.Siblings[0].StepID != "wrap-up" || f.Fork.Siblings[0].Depth != 2 {
		t.Fatalf("fork facts = %+v", f.Fork)
	}
	down := f.Fork.Downstream.Entries
	if len(down) != 2 || down[0].NotesMarkdown != "first greeting" || down[1].NotesMarkdown != "first listing" {
		t.Fatalf("downstream recap = %+v", down)
	}
	if _, again := r.call(t, "continue", args); string(again) != string(first) {
		t.Fatal("replaying the forking advance is not byte-identical")
	}
}

// A fork records the earlier branch's notes cut to their budgets; a cut
// through a multi-byte character once made that record unstorable and
// the forking advance an INTERNAL error.
func TestForkAfterLongMultibyteNotes(t *testing.T) {
	r := newRig(t, nil)
	s1 := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
	r.step(t, "continue", withNotes(s1, strings.Repeat("é", 3000)))
	re := r.step(t, "continue", map[string]any{"stateToken": s1.StateToken})
	f := r.step(t, "continue", withNotes(re, "second branch"))
	if f.Fork == nil || !utf8.ValidString(f.Fork.Siblings[0].Summary) || !strings.HasSuffix(f.Fork.Siblings[0].Summary, "[truncated]") {
		t.Fatalf("fork facts = %+v", f.Fork)
	}
}
