package console_test

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/golden"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
)

// checkpoint appends what checkpoint_workflow records, straight through
// the store: a checkpoint node holding at.Node's own snapshot, the
// checkpoint edge into it, and its notes.
func checkpoint(t *testing.T, st execute.Store, at execute.Place, notes string) engine.NodeID {
	t.Helper()
	var id engine.NodeID
	err := st.Update(at.Session, func(tx execute.Tx) error {
		n, err := tx.Node(at.Node)
		if err != nil {
			return err
		}
		snap, err := tx.Snapshot(n.Snapshot)
		if err != nil {
			return err
		}
		if id, err = tx.NewNodeID(); err != nil {
			return err
		}
		for _, p := range []event.Payload{
			&event.NodeCreatedData{NodeKind: event.NodeCheckpoint, Snapshot: n.Snapshot},
			&event.EdgeCreatedData{EdgeKind: event.EdgeCheckpoint, From: at.Node, To: id},
			&event.NodeOutputAppendedData{StepID: snap.Position.Step, NotesMarkdown: notes},
		} {
			if _, err := tx.Append(at.Run, id, p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// A run checkpointed twice over a real store: after b, then the agent
// goes on from the checkpoint to c and checkpoints that, which is the
// run's tip. The run page, the checkpoint's panel and the session's
// timeline and notes show each checkpoint as its own kind of node.
func TestCheckpointsAreTheirOwnKindOfNode(t *testing.T) {
	st := openStore(t, filepath.Join(t.TempDir(), "workrail.db"))
	wf := executetest.Catalog(t, fstest.MapFS{"wr.steps.json": {Data: []byte(`{"id":"wr.steps","name":"Steps","description":"d","version":"1",
		"steps":[{"id":"a","title":"A","prompt":"do a"},{"id":"b","title":"B","prompt":"do b"},{"id":"c","title":"C","prompt":"do c"}]}`)}})
	h := serve(t, st, wf)
	x := execute.New(st, executetest.Ring(t), wf, workflow.Preferences{}, executetest.Clock, t.Logf)
	first := x.Start(context.Background(), []byte(`{"workflowId":"wr.steps"}`)).(protocol.StepResult)
	args := first.NextCall.Arguments
	args.Output.NotesMarkdown = "Did a."
	raw, _ := json.Marshal(args)
	if _, ok := x.Continue(context.Background(), raw).(protocol.StepResult); !ok {
		t.Fatal("advance to b failed")
	}
	k1 := checkpoint(t, st, execute.Place{Session: 1, Run: 1, Node: 2}, "Looked around **before** b.")
	// The agent goes on from the checkpoint, as the checkpoint's answer
	// lets it.
	at := x.Resume(context.Background(), execute.Place{Session: 1, Run: 1, Node: k1}).(protocol.StepResult)
	args = at.NextCall.Arguments
	args.Output.NotesMarkdown = "Did b."
	raw, _ = json.Marshal(args)
	c, ok := x.Continue(context.Background(), raw).(protocol.StepResult)
	if !ok {
		t.Fatal("advance from the checkpoint failed")
	}
	if c.Pending.StepID != "c" {
		t.Fatalf("the advance from the checkpoint reached %s; want c", c.Pending.StepID)
	}
	checkpoint(t, st, execute.Place{Session: 1, Run: 1, Node: 4}, "Half way through c.")
	if h, err := st.Health(1); err != nil || h.Status != execute.Healthy {
		t.Fatalf("health %+v, %v: the store did not take the checkpoints as written", h, err)
	}

	base := "/sessions/ses_1/runs/run_1"
	for _, p := range []struct{ path, golden string }{
		{base, "run_checkpoint.html"},
		{base + "?node=node_3", "run_checkpoint_node.html"},
		{"/sessions/ses_1", "session_checkpoint.html"},
	} {
		code, body := getPath(t, h, p.path)
		if code != http.StatusOK {
			t.Fatalf("GET %s = %d", p.path, code)
		}
		golden.Check(t, filepath.Join("testdata", p.golden), []byte(body))
	}
	_, run := getPath(t, h, base)
	for _, want := range []string{
		`data-node="node_2" data-kind="node" data-step="b"`, // b's row holds its checkpoint
		`data-testid="checkpoint">⚑ 1 checkpoint</span>`,
		`data-node="node_4" data-kind="node" data-step="c"`, // c's too: the run's tip is its checkpoint
		`<span class="badge tip" data-testid="tip">◆ now</span>`,
	} {
		if !strings.Contains(run, want) {
			t.Errorf("the run page lacks %s", want)
		}
	}
	if strings.Count(run, `data-testid="checkpoint"`) != 2 || strings.Contains(run, `data-node="node_3"`) || strings.Contains(run, `data-node="node_5"`) {
		t.Errorf("the run page marks %d rows with checkpoints, or gives a checkpoint a row of its own", strings.Count(run, `data-testid="checkpoint"`))
	}
	_, panel := getPath(t, h, base+"?node=node_3")
	if !strings.Contains(panel, `data-testid="checkpoint-notes"`) || !strings.Contains(panel, "<strong>before</strong> b") ||
		!strings.Contains(panel, `at checkpoint <code>node_3</code>`) || !strings.Contains(panel, `data-testid="fork-here"`) {
		t.Error("the checkpoint opens its step's row without its notes, the attempt made from it, or Fork here")
	}
	_, svg := getPath(t, h, base+"/graph.svg")
	if strings.Count(svg, `<path class="checkpoint"`) != 1 || strings.Count(svg, `<path class="tip checkpoint"`) != 1 || strings.Contains(svg, `stroke-dasharray="3 3"`) {
		t.Errorf("the drawing does not draw both rows with checkpoints as such:\n%s", svg)
	}
}
