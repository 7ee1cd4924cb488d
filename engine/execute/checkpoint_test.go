package execute_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/golden"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/token"
	"github.com/workrail/workrail/engine/workflow"
)

// checkpointArgs are checkpoint_workflow's arguments for the tokens of s.
func checkpointArgs(stateToken, checkpointToken, notes string) map[string]any {
	return map[string]any{"stateToken": stateToken, "checkpointToken": checkpointToken, "output": map[string]any{"notesMarkdown": notes}}
}

// since lists the events of session id after the first n.
func (r *rig) since(tb testing.TB, id engine.SessionID, n int) []event.Event {
	tb.Helper()
	return r.events(tb, id)[n:]
}

// claims reads a token minted by the test ring.
func claims(tb testing.TB, tok string, k token.Kind) token.Claims {
	tb.Helper()
	c, err := executetest.Ring(tb).Parse(tok, k)
	if err != nil {
		tb.Fatalf("token %s: %v", tok, err)
	}
	return c
}

// tip is the preferred tip of the run s is in.
func (r *rig) tip(tb testing.TB, s protocol.StepResult) engine.NodeID {
	tb.Helper()
	var tip project.Node
	err := r.store.View(s.Session.SessionID, func(tx execute.ReadTx) error {
		run, err := tx.Run(s.Session.RunID)
		if err != nil {
			return err
		}
		root, err := tx.Node(run.Root)
		if err != nil {
			return err
		}
		tip, err = project.PreferredTip(tx, root)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return tip.ID
}

// A checkpoint creates a node with the same snapshot, an edge of kind
// checkpoint from the node the stateToken names, and the notes on the new
// node; it never advances, and its answer is the same pending step at the
// checkpoint node, which is now the run's preferred tip.
func TestCheckpointRecordsWithoutAdvancing(t *testing.T) {
	r := newRig(t, nil)
	s := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
	sid := s.Session.SessionID
	n := len(r.events(t, sid))
	cp := r.step(t, "checkpoint", checkpointArgs(s.StateToken, s.CheckpointToken, "Read the code.\nNext: the tests."))

	root := claims(t, s.StateToken, token.State).Node
	if cp.Pending.StepID != s.Pending.StepID || cp.Checkpoint == nil || cp.Checkpoint.NodeID == root {
		t.Fatalf("checkpoint answered step %s at %+v; want %s at a new node", cp.Pending.StepID, cp.Checkpoint, s.Pending.StepID)
	}
	at := cp.Checkpoint.NodeID
	for name, tok := range map[string]string{"state": cp.StateToken, "ack": cp.AckToken, "checkpoint": cp.CheckpointToken} {
		k := map[string]token.Kind{"state": token.State, "ack": token.Ack, "checkpoint": token.Checkpoint}[name]
		if c := claims(t, tok, k); c.Node != at || c.Attempt != 0 {
			t.Errorf("%s token names %s attempt %d; want %s attempt 0", name, c.Node, c.Attempt, at)
		}
	}
	added := r.since(t, sid, n)
	var got []string
	for _, e := range added {
		got = append(got, string(e.Kind))
	}
	if want := []string{"node_created", "edge_created", "node_output_appended"}; !slices.Equal(got, want) {
		t.Fatalf("events %v; want %v", got, want)
	}
	node, edge, out := added[0].Data.(*event.NodeCreatedData), added[1].Data.(*event.EdgeCreatedData), added[2].Data.(*event.NodeOutputAppendedData)
	if node.NodeKind != event.NodeCheckpoint || added[0].Node != at {
		t.Errorf("node_created %+v on %s", node, added[0].Node)
	}
	if edge.EdgeKind != event.EdgeCheckpoint || edge.From != root || edge.To != at || edge.Attempt != 0 || edge.KeyID != 1 {
		t.Errorf("edge %+v", edge)
	}
	if out.StepID != s.Pending.StepID || out.NotesMarkdown != "Read the code.\nNext: the tests." || added[2].Node != at {
		t.Errorf("output %+v on %s", out, added[2].Node)
	}
	var parent engine.SnapshotRef
	for _, e := range r.events(t, sid) {
		if d, ok := e.Data.(*event.NodeCreatedData); ok && e.Node == root {
			parent = d.Snapshot
		}
	}
	if node.Snapshot != parent {
		t.Errorf("the checkpoint's snapshot %s differs from its parent's", node.Snapshot)
	}
	if tip := r.tip(t, s); tip != at {
		t.Errorf("preferred tip %s; want the checkpoint %s", tip, at)
	}
	if !strings.Contains(cp.Text, "## Checkpoint\nYour notes are recorded as checkpoint "+at.String()) {
		t.Errorf("the answer does not say the notes are kept:\n%s", cp.Text)
	}
}

// The same (stateToken, checkpointToken) again creates nothing and
// answers byte for byte as the first time; with other notes it says they
// were not recorded, and still creates nothing.
func TestCheckpointReplay(t *testing.T) {
	r := newRig(t, nil)
	s := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
	args := checkpointArgs(s.StateToken, s.CheckpointToken, "Did a thing.")
	_, first := r.call(t, "checkpoint", args)
	n := len(r.events(t, s.Session.SessionID))
	for i := range 3 {
		if _, again := r.call(t, "checkpoint", args); string(again) != string(first) {
			t.Fatalf("replay %d differs:\n%s\n%s", i, first, again)
		}
	}
	other := r.step(t, "checkpoint", checkpointArgs(s.StateToken, s.CheckpointToken, "Did another thing."))
	var f protocol.StepResult
	json.Unmarshal(first, &f)
	if len(other.Warnings) != 1 || other.Warnings[0].Code != event.NoticeOutputIgnoredOnReplay || other.StateToken != f.StateToken {
		t.Errorf("replay with other notes: warnings %+v, state %s; want the first answer and one warning", other.Warnings, other.StateToken)
	}
	if got := len(r.events(t, s.Session.SessionID)); got != n {
		t.Fatalf("replays appended events: %d → %d", n, got)
	}
}

// Checkpointing and then acknowledging continues from the checkpoint: the
// next step's node hangs under the checkpoint node, the recap carries the
// checkpoint's notes, and the run completes as usual.
func TestCheckpointThenAckContinuesFromTheCheckpoint(t *testing.T) {
	r := newRig(t, nil)
	s := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
	cp := r.step(t, "checkpoint", checkpointArgs(s.StateToken, s.CheckpointToken, "Greeted half-way."))
	cp2 := r.step(t, "checkpoint", checkpointArgs(cp.StateToken, cp.CheckpointToken, "Greeted fully."))
	args := cp2.NextCall.Arguments
	args.Output = &protocol.Output{NotesMarkdown: "Said hello."}
	next := r.step(t, "continue", args)
	if next.Pending.StepID != "look-around" {
		t.Fatalf("after the checkpoint the run went to %s", next.Pending.StepID)
	}
	var edge *event.EdgeCreatedData
	for _, e := range r.events(t, s.Session.SessionID) {
		if d, ok := e.Data.(*event.EdgeCreatedData); ok && d.To == claims(t, next.StateToken, token.State).Node {
			edge = d
		}
	}
	if edge == nil || edge.EdgeKind != event.EdgeAckedStep || edge.From != cp2.Checkpoint.NodeID {
		t.Fatalf("the step's edge is %+v; want acked_step from the checkpoint %s", edge, cp2.Checkpoint.NodeID)
	}
	re := r.step(t, "continue", map[string]any{"stateToken": next.StateToken})
	var notes []string
	for _, e := range re.Recap.Entries {
		notes = append(notes, e.NotesMarkdown)
	}
	if want := []string{"Greeted half-way.", "Greeted fully.", "Said hello."}; !slices.Equal(notes, want) {
		t.Errorf("recap %q; want %q", notes, want)
	}
	for i := 0; i < 5; i++ {
		res, b := r.call(t, "continue", next.NextCall.Arguments)
		if _, done := res.(protocol.CompleteResult); done {
			return
		}
		if next, _ = res.(protocol.StepResult); next.Kind != protocol.KindStep {
			t.Fatalf("%s", b)
		}
	}
	t.Fatal("the run did not complete")
}

// Each checkpointToken is its own checkpoint: after an ack, the spent
// response's checkpointToken and a rehydrate's fresh one each add a
// checkpoint beside the acknowledged step (a rewound chat's branch), and
// each replays only itself.
func TestCheckpointTokensAfterAnAck(t *testing.T) {
	r := newRig(t, nil)
	s := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
	acked := r.step(t, "continue", s.NextCall.Arguments)
	re := r.step(t, "continue", map[string]any{"stateToken": s.StateToken})
	if re.CheckpointToken == s.CheckpointToken {
		t.Fatal("the rehydrate of an acknowledged node handed out the spent attempt's checkpointToken")
	}
	old := r.step(t, "checkpoint", checkpointArgs(s.StateToken, s.CheckpointToken, "From the old answer."))
	fresh := r.step(t, "checkpoint", checkpointArgs(re.StateToken, re.CheckpointToken, "From the rehydrate."))
	nodes := []engine.NodeID{claims(t, acked.StateToken, token.State).Node, old.Checkpoint.NodeID, fresh.Checkpoint.NodeID}
	if nodes[1] == nodes[2] || nodes[0] == nodes[1] || nodes[0] == nodes[2] {
		t.Fatalf("nodes %v; want three children of the root", nodes)
	}
	root := claims(t, s.StateToken, token.State).Node
	err := r.store.View(s.Session.SessionID, func(tx execute.ReadTx) error {
		n, err := tx.Node(root)
		if !slices.Equal(n.Children, nodes) {
			t.Errorf("root's children %v; want %v", n.Children, nodes)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if tip := r.tip(t, s); tip != fresh.Checkpoint.NodeID {
		t.Errorf("preferred tip %s; want the latest checkpoint %s", tip, fresh.Checkpoint.NodeID)
	}
	again := r.step(t, "checkpoint", checkpointArgs(s.StateToken, s.CheckpointToken, "From the old answer."))
	if again.Checkpoint.NodeID != old.Checkpoint.NodeID || len(again.Warnings) != 0 {
		t.Errorf("the old token replayed %+v, warnings %+v; want %s", again.Checkpoint, again.Warnings, old.Checkpoint.NodeID)
	}
}

// damaged reports every session as failing verification.
type damaged struct{ *memstore.Store }

func (damaged) Health(engine.SessionID) (execute.Health, error) {
	return execute.Health{Status: execute.CorruptTail, FirstBad: 3, LastGood: 2, Reason: "bad chain"}, nil
}

// Bad calls are errors as data and write nothing: tokens that do not
// fit, a checkpointToken of another node (a scope error, fixed by the
// rehydrate that hands out the right one), empty or oversize notes, keys
// a checkpoint does not take, a complete run, a damaged session.
func TestCheckpointErrors(t *testing.T) {
	r := newRig(t, nil)
	s := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
	other := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
	next := r.step(t, "continue", s.NextCall.Arguments)
	done := r.step(t, "continue", map[string]any{"stateToken": next.StateToken, "ackToken": next.AckToken, "context": map[string]any{}})
	last, _ := r.call(t, "continue", done.NextCall.Arguments)
	complete := last.(protocol.CompleteResult)
	cs := claims(t, complete.StateToken, token.State)
	cs.Kind = token.Checkpoint
	chkComplete, err := executetest.Ring(t).Mint(cs)
	if err != nil {
		t.Fatal(err)
	}
	ok := "Did it."
	tests := []struct {
		name    string
		args    map[string]any
		code    engine.Code
		pointer string
		fix     bool // nextCall is the rehydrate of the stateToken sent
	}{
		{"checkpoint of another run", checkpointArgs(s.StateToken, other.CheckpointToken, ok), engine.CodeTokenScopeMismatch, "", true},
		{"checkpoint of another node", checkpointArgs(s.StateToken, next.CheckpointToken, ok), engine.CodeTokenScopeMismatch, "", true},
		{"ack as checkpoint", checkpointArgs(s.StateToken, s.AckToken, ok), engine.CodeTokenWrongKind, "/checkpointToken", true},
		{"tampered checkpoint", checkpointArgs(s.StateToken, flipLast(s.CheckpointToken), ok), engine.CodeTokenBadSignature, "/checkpointToken", true},
		{"checkpoint as state", checkpointArgs(s.CheckpointToken, s.CheckpointToken, ok), engine.CodeTokenWrongKind, "/stateToken", false},
		{"no checkpointToken", map[string]any{"stateToken": s.StateToken, "output": map[string]any{"notesMarkdown": ok}}, engine.CodeInvalidInput, "/checkpointToken", false},
		{"no output", map[string]any{"stateToken": s.StateToken, "checkpointToken": s.CheckpointToken}, engine.CodeInvalidInput, "/output", false},
		{"empty notes", checkpointArgs(s.StateToken, s.CheckpointToken, ""), engine.CodeInvalidInput, "/output/notesMarkdown", false},
		{"blank notes", checkpointArgs(s.StateToken, s.CheckpointToken, " \n\t"), engine.CodeInvalidInput, "/output/notesMarkdown", false},
		{"oversize notes", checkpointArgs(s.StateToken, s.CheckpointToken, strings.Repeat("x", protocol.MaxNotesBytes+1)), engine.CodePayloadTooLarge, "/output/notesMarkdown", false},
		{"artifacts", map[string]any{"stateToken": s.StateToken, "checkpointToken": s.CheckpointToken,
			"output": map[string]any{"notesMarkdown": ok, "artifacts": []any{}}}, engine.CodeUnknownKey, "", false},
		{"ackToken", map[string]any{"stateToken": s.StateToken, "checkpointToken": s.CheckpointToken, "ackToken": s.AckToken,
			"output": map[string]any{"notesMarkdown": ok}}, engine.CodeUnknownKey, "", false},
		{"complete run", checkpointArgs(complete.StateToken, chkComplete, ok), engine.CodeInvalidInput, "", false},
	}
	counts := map[engine.SessionID]int{s.Session.SessionID: len(r.events(t, s.Session.SessionID)), other.Session.SessionID: len(r.events(t, other.Session.SessionID))}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, b := r.call(t, "checkpoint", tt.args)
			if got := errCode(t, res); got != tt.code {
				t.Fatalf("code %s; want %s\n%s", got, tt.code, b)
			}
			e := res.(protocol.ErrorResult)
			if tt.pointer != "" && e.Error.Details["pointer"] != tt.pointer {
				t.Errorf("pointer %v; want %s", e.Error.Details["pointer"], tt.pointer)
			}
			if tt.fix && (e.NextCall == nil || e.NextCall.Tool != string(protocol.ToolContinue) || !strings.Contains(string(mustMarshal(t, e.NextCall.Arguments)), s.StateToken)) {
				t.Errorf("nextCall %+v; want the rehydrate of the stateToken sent", e.NextCall)
			}
		})
	}
	for sid, n := range counts {
		if got := len(r.events(t, sid)); got != n {
			t.Errorf("session %s: bad checkpoints appended events: %d → %d", sid, n, got)
		}
	}

	sick := execute.New(damaged{r.store}, executetest.Ring(t), bundled(t), workflow.Preferences{}, executetest.Clock, t.Logf)
	raw, _ := json.Marshal(checkpointArgs(s.StateToken, s.CheckpointToken, ok))
	if res := sick.Checkpoint(context.Background(), raw); errCode(t, res) != engine.CodeSessionCorrupt {
		t.Errorf("a damaged session was checkpointed: %s", res.RenderedText())
	}
}

// The text offers checkpoint_workflow, tokens filled in, only when it is
// served; the call it shows is one the tool takes once its notes are
// written.
func TestStepTextOffersCheckpointOnlyWhenServed(t *testing.T) {
	for _, on := range []bool{false, true} {
		s := memstore.New()
		x := execute.New(s, executetest.Ring(t), bundled(t), workflow.Preferences{}, executetest.Clock, t.Logf,
			execute.WithFeatures(protocol.Features{CheckpointWorkflow: on}))
		res := x.Start(context.Background(), []byte(`{"workflowId":"wr.hello"}`)).(protocol.StepResult)
		_, line, offered := strings.Cut(res.Text, "call checkpoint_workflow with: ")
		if offered != on {
			t.Fatalf("served %v, offered %v:\n%s", on, offered, res.Text)
		}
		if !on {
			continue
		}
		line, _, _ = strings.Cut(line, "\n")
		var args map[string]any
		if err := json.Unmarshal([]byte(line), &args); err != nil || args["checkpointToken"] != res.CheckpointToken || args["stateToken"] != res.StateToken {
			t.Fatalf("offered call %s (%v)", line, err)
		}
		// Copied as it is, the call records nothing: its notes are a
		// marker. Filled, the tool takes it.
		if cp := x.Checkpoint(context.Background(), []byte(line)); errCode(t, cp) != engine.CodeInvalidInput {
			t.Fatalf("the offered call copied as it is was taken: %s", cp.RenderedText())
		}
		args["output"] = map[string]any{"notesMarkdown": "Read the code."}
		filled, _ := json.Marshal(args)
		if cp := x.Checkpoint(context.Background(), filled); cp.ResultKind() != protocol.KindStep {
			t.Fatalf("the offered call filled failed: %s", cp.RenderedText())
		}
	}
}

// The answer a checkpoint gives, as text, is pinned.
func TestCheckpointTextGolden(t *testing.T) {
	x := execute.New(memstore.New(), executetest.Ring(t), bundled(t), workflow.Preferences{}, executetest.Clock, t.Logf,
		execute.WithFeatures(protocol.Features{CheckpointWorkflow: true}))
	s := x.Start(context.Background(), []byte(`{"workflowId":"wr.hello"}`)).(protocol.StepResult)
	raw, _ := json.Marshal(checkpointArgs(s.StateToken, s.CheckpointToken, "Greeted the user.\nNext: look around."))
	cp := x.Checkpoint(context.Background(), raw)
	golden.Check(t, filepath.Join("testdata", "golden", "checkpoint.txt"), []byte(cp.RenderedText()))
}

// The same checkpoint sent many times at once records one checkpoint,
// and every answer is the same.
func TestConcurrentIdenticalCheckpointsRecordOnce(t *testing.T) {
	r := newRig(t, nil)
	s := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
	args := checkpointArgs(s.StateToken, s.CheckpointToken, "Once.")
	out := make([][]byte, 16)
	var wg sync.WaitGroup
	for i := range out {
		wg.Go(func() { _, out[i] = r.call(t, "checkpoint", args) })
	}
	wg.Wait()
	for i := range out {
		if string(out[i]) != string(out[0]) {
			t.Fatalf("answer %d differs from answer 0:\n%s\n%s", i, out[i], out[0])
		}
	}
	if k := kinds(r.events(t, s.Session.SessionID)); k[event.NodeCreated] != 2 || k[event.NodeOutputAppended] != 1 {
		t.Fatalf("event kinds %v; want one checkpoint", k)
	}
}

// An agent that checkpoints and then sends the call it held from before
// the checkpoint goes on on the same line: the step is acknowledged with
// no fork in the log (no fork edge, no trace) and no branches in the
// answer, which replays byte for byte; a rehydrate of the node below
// which only checkpoints stood shows no branches either. Once the run has
// gone on, the same node's older call does fork.
func TestHeldCallAfterACheckpointIsNoFork(t *testing.T) {
	r := newRig(t, nil)
	s := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
	id := s.Session.SessionID
	r.step(t, "checkpoint", checkpointArgs(s.StateToken, s.CheckpointToken, "Halfway through."))
	if again := r.step(t, "continue", map[string]any{"stateToken": s.StateToken}); again.Fork != nil {
		t.Fatalf("a rehydrate below which only a checkpoint stands shows branches: %+v", again.Fork)
	}
	n := len(r.events(t, id))
	args := s.NextCall.Arguments
	args.Output = &protocol.Output{NotesMarkdown: "Said hello."}
	next, b := r.call(t, "continue", args)
	if st, ok := next.(protocol.StepResult); !ok || st.Fork != nil || strings.Contains(st.Text, "Branches") {
		t.Fatalf("the held call after a checkpoint: %s", b)
	}
	for _, e := range r.since(t, id, n) {
		if d, ok := e.Data.(*event.EdgeCreatedData); ok && d.EdgeKind != event.EdgeAckedStep {
			t.Fatalf("edge %s; want %s", d.EdgeKind, event.EdgeAckedStep)
		}
		if e.Kind == event.DecisionTraceAppended {
			t.Fatal("a fork was traced")
		}
	}
	if _, again := r.call(t, "continue", args); string(again) != string(b) {
		t.Fatal("the replay differs")
	}
	// The rehydrated call of the same node is a rewound chat's now.
	re := r.step(t, "continue", map[string]any{"stateToken": s.StateToken})
	re.NextCall.Arguments.Output = &protocol.Output{NotesMarkdown: "Said hello again."}
	if forked := r.step(t, "continue", re.NextCall.Arguments); forked.Fork == nil {
		t.Fatal("an advance from a node the run went on from is no fork")
	}
}
