package bundle_test

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
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
)

// A branch is summed up by its latest note that still stands: a note
// superseded by a later output is not quoted, in the steps or in the
// branches off them.
func TestMarkdownQuotesNoSupersededNote(t *testing.T) {
	good := sample(t)
	v, err := bundle.Read(good)
	if err != nil {
		t.Fatal(err)
	}
	// The sample's run_1 prefers its checkpoint; the branch it left off
	// ends with this note.
	const note = "Did wr-final-review."
	var last bundle.Output
	for _, o := range v.Bundle.Outputs {
		if o.NotesMarkdown == note {
			last = o
		}
	}
	if last.ID == "" || !strings.Contains(bundle.Markdown(v), "complete: “"+note+"”") {
		t.Fatalf("the sample's other branch does not end with %q:\n%s", note, bundle.Markdown(v))
	}
	// That note is superseded by an output with no notes, and then the
	// checkpoint gets a note, so the run prefers it still: the branch is
	// summed up by the note before the superseded one.
	evs := append([]event.Event(nil), v.Events...)
	sid := v.Bundle.Session.ID
	appendOutput := func(node engine.NodeID, o *event.NodeOutputAppendedData) {
		idx := engine.EventIndex(len(evs) + 1)
		evs = append(evs, event.Event{ID: engine.NewEventID(sid, idx), Index: idx, Session: sid, Kind: event.NodeOutputAppended,
			Run: last.Run, Node: node, Data: o})
	}
	appendOutput(last.Node, &event.NodeOutputAppendedData{StepID: last.StepID,
		Artifacts: []json.RawMessage{json.RawMessage(`{"kind":"x"}`)}, Supersedes: last.ID})
	appendOutput(v.Bundle.Runs[0].PreferredTip, &event.NodeOutputAppendedData{StepID: "triage", NotesMarkdown: "Looked again."})
	wfs := map[engine.WorkflowHash][]byte{}
	for h, raw := range v.Bundle.Workflows {
		wfs[h] = raw
	}
	b, err := bundle.Build(bundle.Source{Events: evs, Snapshots: v.Snapshots, Workflows: wfs}, bundle.ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := bundle.Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	superseded, err := bundle.Read(enc)
	if err != nil {
		t.Fatal(err)
	}
	if md := bundle.Markdown(superseded); strings.Contains(md, note) || !strings.Contains(md, "complete: “Did report.”") {
		t.Fatalf("the Markdown quotes a superseded note, or not the one before it:\n%s", md)
	}
}

// A correction is shown where it stands: on the path the steps follow,
// the corrected output is named, not quoted, and its correction says what
// it replaces; where the run went on from before the correction, the
// output stands on that path, quoted, with a line saying another branch
// replaced it. The bundle's outputs link both ways, and an import keeps
// the link, pointing into the new session.
func TestMarkdownShowsCorrections(t *testing.T) {
	x := execute.New(memstore.New(), executetest.Ring(t), executetest.Long(t, 4), workflow.Preferences{}, executetest.Clock, t.Logf)
	ctx := context.Background()
	send := func(r protocol.Result, notes string, replaces engine.EventID) protocol.StepResult {
		t.Helper()
		args := r.(protocol.StepResult).NextCall.Arguments
		args.Output = &protocol.Output{NotesMarkdown: notes, SupersedesOutputID: replaces}
		raw, _ := json.Marshal(args)
		s, ok := x.Continue(ctx, raw).(protocol.StepResult)
		if !ok {
			t.Fatalf("%q was refused", notes)
		}
		return s
	}
	s1, _ := x.Start(ctx, []byte(`{"workflowId":"wr.long"}`)).(protocol.StepResult)
	s2 := send(s1, "Timed it at 12 ms.", "")
	id := s2.Session.SessionID
	re, _ := json.Marshal(map[string]string{"stateToken": s2.StateToken})
	timed := x.Continue(ctx, re).(protocol.StepResult).Recap.Entries[0].Output
	send(s2, "Timed it again: 21 ms; 12 was a misreading.", timed)
	markdown := func() (string, *bundle.Verified) {
		t.Helper()
		b, err := x.Export(id, bundle.ExportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		v, err := bundle.Read(b)
		if err != nil {
			t.Fatal(err)
		}
		return bundle.Markdown(v), v
	}
	md, v := markdown()
	for _, want := range []string{
		"#### 1. Step 0 (`s0`) (node_2)\n\n_Replaced by entry 2 below (`evt_1_12`); what it recorded is kept in the session's log._\n\n#### 2.",
		"#### 2. Step 1 (`s1`) (node_3)\n\n_Replaces entry 1 above (`evt_1_8`)._\n\n> Timed it again: 21 ms; 12 was a misreading.\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks\n%s\nin\n%s", want, md)
		}
	}
	if strings.Contains(md, "> Timed it at 12 ms.") {
		t.Errorf("the corrected note is quoted:\n%s", md)
	}
	if o := v.Bundle.Outputs; len(o) != 2 || o[0].ID != timed || len(o[0].SupersededBy) != 1 || o[0].SupersededBy[0] != o[1].ID || o[1].Supersedes != timed {
		t.Fatalf("the bundle's outputs %+v", o)
	}
	// A chat rewound to s2 goes on without the correction, twice: that
	// branch is preferred, and the note stands on it.
	send(send(x.Continue(ctx, re), "Moved on.", ""), "Moved on again.", "")
	md, _ = markdown()
	if want := "#### 1. Step 0 (`s0`) (node_2)\n\n_Replaced on another branch by `evt_1_12`._\n\n> Timed it at 12 ms.\n"; !strings.Contains(md, want) {
		t.Errorf("the Markdown lacks\n%s\nin\n%s", want, md)
	}
	// Imported, the link points into the new session.
	b, _ := x.Export(id, bundle.ExportOptions{})
	to := execute.New(memstore.New(), executetest.Ring(t), executetest.Long(t, 4), workflow.Preferences{}, executetest.Clock, t.Logf)
	to.Import(b, false) // session 1 of to
	to.Import(b, false) // session 2
	b2, err := to.Export(2, bundle.ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if o := read(t, b2).Outputs; o[1].Supersedes != "evt_2_8" || o[0].SupersededBy[0] != "evt_2_12" {
		t.Fatalf("the imported outputs %+v", o)
	}
}
