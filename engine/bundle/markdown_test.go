package bundle_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/bundle"
	"github.com/workrail/workrail/engine/event"
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
