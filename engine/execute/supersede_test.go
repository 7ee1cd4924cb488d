package execute_test

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/protocol"
)

// outputIndex is the event index an output id ("evt_S_I") names.
func outputIndex(tb testing.TB, id engine.EventID) engine.EventIndex {
	tb.Helper()
	_, i, ok := strings.Cut(strings.TrimPrefix(string(id), "evt_"), "_")
	n, err := strconv.ParseUint(i, 10, 64)
	if !ok || err != nil {
		tb.Fatalf("%q is not an event id", id)
	}
	return engine.EventIndex(n)
}

// correcting is s's next call with notes that replace output id.
func correcting(s protocol.StepResult, notes string, id engine.EventID) protocol.ContinueArgs {
	args := withNotes(s, notes)
	args.Output.SupersedesOutputID = id
	return args
}

// recapOf is the recap a rehydrate of s's stateToken shows.
func (r *rig) recapOf(tb testing.TB, s protocol.StepResult) []project.PathEntry {
	tb.Helper()
	return r.step(tb, "continue", map[string]any{"stateToken": s.StateToken}).Recap.Entries
}

// An agent corrects its notes: the correction names the output it
// replaces (an id from the recap), is recorded with that link and the
// original left as it was, replays byte for byte, and the recap shows
// both; a correction can itself be corrected, from an advance or a
// checkpoint.
func TestSupersedesReplacesAnEarlierOutput(t *testing.T) {
	r := newRig(t, nil)
	s1 := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
	s2 := r.step(t, "continue", withNotes(s1, "Greeted the user in French."))
	greet := r.recapOf(t, s2)[0].Output
	args := correcting(s2, "Listed 4 entries. Correction: the greeting was in English.", greet)
	res, first := r.call(t, "continue", args)
	s3, ok := res.(protocol.StepResult)
	if !ok {
		t.Fatalf("the correction was refused: %s", first)
	}
	id := s3.Session.SessionID
	recap := r.recapOf(t, s3)
	if len(recap) != 2 || recap[0].Output != greet || recap[1].Supersedes != greet {
		t.Fatalf("recap %+v", recap)
	}
	evs := r.events(t, id)
	if d := evs[outputIndex(t, recap[1].Output)-1].Data.(*event.NodeOutputAppendedData); d.Supersedes != greet || d.StepID != "look-around" {
		t.Fatalf("recorded %+v", d)
	}
	if d := evs[outputIndex(t, greet)-1].Data.(*event.NodeOutputAppendedData); d.NotesMarkdown != "Greeted the user in French." || d.Supersedes != "" {
		t.Fatalf("the original changed: %+v", d)
	}
	// The same call again is a replay: nothing is checked again (greet is
	// replaced now) and the answer is the first, byte for byte.
	if _, again := r.call(t, "continue", args); !bytes.Equal(again, first) || len(r.events(t, id)) != len(evs) {
		t.Fatalf("the replay differs or wrote:\n%s\n---\n%s", again, first)
	}
	// Sent with a spent ackToken, another reference is not recorded, and
	// the answer says so.
	other, _ := r.call(t, "continue", correcting(s2, args.Output.NotesMarkdown, ""))
	if w := other.(protocol.StepResult).Warnings; len(w) != 1 || w[0].Code != event.NoticeOutputIgnoredOnReplay {
		t.Fatalf("a replay with another output warns %+v", w)
	}
	// The correction is corrected in turn, by a checkpoint.
	cp := r.step(t, "checkpoint", map[string]any{"stateToken": s3.StateToken, "checkpointToken": s3.CheckpointToken,
		"output": map[string]any{"notesMarkdown": "Listed 5 entries, not 4.", "supersedesOutputId": recap[1].Output}})
	if cp.Checkpoint == nil || !strings.Contains(cp.Text, "(output "+string(cp.Checkpoint.OutputID)+")") {
		t.Fatalf("the checkpoint does not name its output:\n%s", cp.Text)
	}
	if got := r.recapOf(t, cp); len(got) != 3 || got[2].Output != cp.Checkpoint.OutputID || got[2].Supersedes != recap[1].Output ||
		!strings.Contains(r.step(t, "continue", map[string]any{"stateToken": cp.StateToken}).Text,
			"- wrap-up ("+string(cp.Checkpoint.OutputID)+", replaces "+string(recap[1].Output)+"): Listed 5 entries, not 4.") {
		t.Fatalf("recap after the checkpoint %+v", got)
	}
	// The same checkpoint naming another output is its replay, with the
	// warning that this output was not recorded.
	again := r.step(t, "checkpoint", map[string]any{"stateToken": s3.StateToken, "checkpointToken": s3.CheckpointToken,
		"output": map[string]any{"notesMarkdown": "Listed 5 entries, not 4."}})
	if len(again.Warnings) != 1 || again.Warnings[0].Code != event.NoticeOutputIgnoredOnReplay || again.StateToken != cp.StateToken {
		t.Fatalf("the checkpoint's replay with another output: %+v", again.Warnings)
	}
}

// A bad reference is INVALID_INPUT at /output/supersedesOutputId and
// records nothing: an id that is no output, an output of another branch,
// session or run, one already replaced, or a reference with nothing to
// replace it with. The message says what can be replaced instead.
func TestSupersedesRefusesWhatItCannotReplace(t *testing.T) {
	r := newRig(t, nil)
	s1 := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
	s2 := r.step(t, "continue", withNotes(s1, "Greeted the user."))
	greet := r.recapOf(t, s2)[0].Output
	s3 := r.step(t, "continue", correcting(s2, "Listed the files; greeted in English.", greet))
	fix := r.recapOf(t, s3)[1].Output
	// Another branch: the chat rewound to the start, greeting again.
	re := r.step(t, "continue", map[string]any{"stateToken": s1.StateToken})
	b2 := r.step(t, "continue", withNotes(re, "Greeted the user on another branch."))
	other := r.recapOf(t, b2)[0].Output
	// Another run of the session, and another session.
	run2 := r.step(t, "start", map[string]any{"workflowId": "wr.hello", "stateToken": s3.StateToken})
	r2 := r.step(t, "continue", withNotes(run2, "Greeted in the second run."))
	otherRun := r.recapOf(t, r2)[0].Output
	o1 := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
	o2 := r.step(t, "continue", withNotes(o1, "Greeted in another session."))
	otherSession := r.recapOf(t, o2)[0].Output

	choices := "Outputs you can replace here, newest first: " + string(fix) + " (look-around)"
	for _, c := range []struct {
		name string
		id   engine.EventID
		out  map[string]any // the rest of the output
		want string         // in the message
	}{
		{"already replaced", greet, nil, "was already replaced by " + string(fix) + ", so nothing was recorded. To correct it again, name " + string(fix)},
		{"an output of another branch", other, nil, choices},
		{"an output of another run", otherRun, nil, choices},
		{"an output of another session", otherSession, nil, choices},
		{"an event that is no output", engine.NewEventID(s1.Session.SessionID, 1), nil, choices},
		{"no event id", "the greeting", nil, choices},
		{"nothing to replace it with", fix, map[string]any{"notesMarkdown": ""}, "this call sends neither"},
	} {
		t.Run(c.name, func(t *testing.T) {
			id := s3.Session.SessionID
			before := len(r.events(t, id))
			out := map[string]any{"notesMarkdown": "Wrapped up.", "supersedesOutputId": c.id}
			for k, v := range c.out {
				out[k] = v
			}
			res, b := r.call(t, "continue", map[string]any{"stateToken": s3.StateToken, "ackToken": s3.AckToken, "output": out})
			e, ok := res.(protocol.ErrorResult)
			if !ok || e.Error.Code != engine.CodeInvalidInput || e.Error.Details["pointer"] != "/output/supersedesOutputId" ||
				!strings.Contains(e.Error.Message, c.want) {
				t.Fatalf("answered %s; want INVALID_INPUT saying %q", b, c.want)
			}
			if n := len(r.events(t, id)); n != before {
				t.Fatalf("a refused reference recorded %d events", n-before)
			}
			// A checkpoint is held to the same rule.
			if c.out != nil {
				return
			}
			res, b = r.call(t, "checkpoint", map[string]any{"stateToken": s3.StateToken, "checkpointToken": s3.CheckpointToken, "output": out})
			if e, ok := res.(protocol.ErrorResult); !ok || e.Error.Details["pointer"] != "/output/supersedesOutputId" || len(r.events(t, id)) != before {
				t.Fatalf("the checkpoint answered %s", b)
			}
		})
	}
	// The refused call goes through once it names what it may.
	if res, b := r.call(t, "continue", correcting(s3, "Wrapped up.", fix)); res.ResultKind() != protocol.KindComplete {
		t.Fatalf("the corrected call answered %s", b)
	}
	// Where nothing is recorded yet, the refusal says so.
	fresh := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
	res, b := r.call(t, "continue", correcting(fresh, "Greeted.", greet))
	if e, ok := res.(protocol.ErrorResult); !ok || !strings.Contains(e.Error.Message, "Nothing is recorded on it yet to replace") {
		t.Fatalf("at the first step: %s", b)
	}
}
