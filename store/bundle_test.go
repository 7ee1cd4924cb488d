package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/bundle"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/protocol"
)

// longSession records a session of wr.long on r, steps acknowledgements
// long with notes; every 100th step a chat rewound by one step forks a
// branch and a checkpoint is taken, so the run has forks and checkpoints
// all along.
func longSession(tb testing.TB, r *rig, steps int) engine.SessionID {
	tb.Helper()
	s := r.step(tb, r.x.Start, map[string]any{"workflowId": "wr.long"})
	var prev protocol.StepResult
	for i := 0; i < steps; i++ {
		if i > 0 && i%100 == 0 {
			fork := r.step(tb, r.x.Continue, map[string]any{"stateToken": prev.StateToken}).NextCall.Arguments
			fork.Output = &protocol.Output{NotesMarkdown: fmt.Sprintf("A rewound chat redid step %d.", i-1)}
			r.step(tb, r.x.Continue, fork)
			r.step(tb, r.x.Checkpoint, map[string]any{"stateToken": s.StateToken, "checkpointToken": s.CheckpointToken,
				"output": map[string]any{"notesMarkdown": fmt.Sprintf("Checkpoint at step %d: all well so far.", i)}})
		}
		args := s.NextCall.Arguments
		args.Output = &protocol.Output{NotesMarkdown: fmt.Sprintf("Did step %d.\n\n- Checked the result; it holds.", i)}
		prev, s = s, r.step(tb, r.x.Continue, args)
	}
	return s.Session.SessionID
}

// A bundle imported into another real file makes a session that the
// file's own full check finds healthy (chain, references, indexes refolded
// byte for byte, run and node sequences), before and after a reopen, with
// the same overview; it goes on from its preferred tip.
func TestImportIntoAnotherFile(t *testing.T) {
	from := newRig(t, executetest.Long(t, 400))
	id := longSession(t, from, 300)
	b, err := from.x.Export(id, bundle.ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	to := newRig(t, executetest.Long(t, 400))
	to.step(t, to.x.Start, map[string]any{"workflowId": "wr.long"}) // session 1 exists: never merged
	rep, err := to.x.Import(b, false)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Session != 2 || rep.SnapshotsAdded == 0 || rep.WorkflowsPresent != 1 {
		t.Fatalf("report %+v", rep)
	}
	for _, reopen := range []bool{false, true} {
		if reopen {
			to.store.Close()
			to.open(t)
		}
		got, err := to.store.Verify(rep.Session)
		if err != nil || !got.OK() {
			t.Fatalf("the imported session (reopened %v): %+v, %v", reopen, got, err)
		}
	}
	want, _ := from.store.Overview(id)
	got, _ := to.store.Overview(rep.Session)
	// Two rewound chats fork; the call held from before each checkpoint
	// continues the line.
	if want.Runs[0].Forks < 2 || want.Runs[0].Branches < 3 {
		t.Fatalf("the session has %d forks and %d branches; want several", want.Runs[0].Forks, want.Runs[0].Branches)
	}
	if a, b := mustJSONText(t, want), mustJSONText(t, got); a != b {
		t.Fatalf("overviews differ:\n%s\n%s", a, b)
	}
	tip := want.Runs[0].Tip
	res := to.x.Resume(context.Background(), execute.Place{Session: rep.Session, Run: 1, Node: tip})
	s, ok := res.(protocol.StepResult)
	if !ok {
		t.Fatalf("rehydrating the imported tip: %s", res.RenderedText())
	}
	args := s.NextCall.Arguments
	args.Output = &protocol.Output{NotesMarkdown: "Carried on after the import."}
	to.step(t, to.x.Continue, args)
	if got, err := to.store.Verify(rep.Session); err != nil || !got.OK() {
		t.Fatalf("after going on: %+v, %v", got, err)
	}
	if again, err := from.x.Export(id, bundle.ExportOptions{}); err != nil || string(again) != string(b) {
		t.Fatal("exporting the same session again gives other bytes")
	}
}

func mustJSONText(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// benchSession is a session 1,000 steps long with forks and checkpoints
// in a real file, and its bundle.
func benchSession(b *testing.B) (*rig, engine.SessionID, []byte) {
	b.Helper()
	r := newRig(b, executetest.Long(b, 1100))
	id := longSession(b, r, 1000)
	out, err := r.x.Export(id, bundle.ExportOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return r, id, out
}

// BenchmarkExport measures exporting a session 1,000 steps long with
// forks and checkpoints from a real file, and the bundle's size per step.
func BenchmarkExport(b *testing.B) {
	r, id, out := benchSession(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.x.Export(id, bundle.ExportOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(out))/1000, "bundleB/step")
}

// BenchmarkImport measures importing that bundle into a real file (fsync
// on): verification, then one write transaction.
func BenchmarkImport(b *testing.B) {
	_, _, out := benchSession(b)
	to := newRig(b, executetest.Long(b, 1100))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := to.x.Import(out, false); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(out))/1000, "bundleB/step")
}
