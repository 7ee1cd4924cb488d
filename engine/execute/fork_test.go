package execute_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// forkFlow asks the user first, then has three plain steps; its context
// has a required topic and an optional depth from a closed set.
func forkFlow(version, lastPrompt string) string {
	return `{"id":"wr.f","name":"F","description":"d","version":"` + version + `",
	"context":[{"name":"topic","type":"string","required":true,"description":"the topic"},
		{"name":"depth","type":"string","enum":["quick","deep"],"description":"how deep"}],
	"steps":[{"id":"ask","title":"Ask","prompt":"ask","userDependency":{"reason":"needs_user_approval","summary":"approve","requestedFromUser":"Approve?"}},
		{"id":"a","title":"A","prompt":"a"},{"id":"b","title":"B","prompt":"b"},{"id":"c","title":"C","prompt":"` + lastPrompt + `"}]}`
}

const approval = `{"kind":"wr.user_response","response":"approved"}`

// forkRig is a run of wr.f two steps in: node_1 (ask) → node_2 (a) →
// node_3 (b); the user's approval and depth "quick" were sent with ask,
// "did a" with a.
type forkRig struct {
	*rig
	start, atA, atB protocol.StepResult
	// acks are the continue calls that made node_2 and node_3, as sent.
	acks [][]byte
}

func newForkRig(t *testing.T) *forkRig {
	f := &forkRig{rig: newRig(t, catalogOf(t, map[string]string{"wr.f.json": forkFlow("1", "c")}))}
	f.start = f.step(t, "start", map[string]any{"workflowId": "wr.f", "context": map[string]any{"topic": "x"}})
	ask := f.start.NextCall.Arguments
	ask.Output = &protocol.Output{NotesMarkdown: "asked", Artifacts: []json.RawMessage{json.RawMessage(approval)}}
	f.atA = f.stepRaw(t, map[string]any{"stateToken": ask.StateToken, "ackToken": ask.AckToken, "output": ask.Output, "context": map[string]any{"depth": "quick"}})
	a := f.atA.NextCall.Arguments
	a.Output = &protocol.Output{NotesMarkdown: "did a"}
	f.atB = f.stepRaw(t, a)
	return f
}

// stepRaw sends continue arguments and keeps them for a replay.
func (f *forkRig) stepRaw(t *testing.T, args any) protocol.StepResult {
	t.Helper()
	b, _ := json.Marshal(args)
	f.acks = append(f.acks, b)
	return f.step(t, "continue", args)
}

func (f *forkRig) session() engine.SessionID { return f.start.Session.SessionID }

func (f *forkRig) at(n engine.NodeID) execute.Place {
	return execute.Place{Session: f.session(), Run: f.start.Session.RunID, Node: n}
}

// graph folds the session's log.
func (f *forkRig) graph(t *testing.T) *project.Graph {
	t.Helper()
	snap := func(ref engine.SnapshotRef) (s run.Snapshot, err error) {
		err = f.store.View(f.session(), func(tx execute.ReadTx) error { s, err = tx.Snapshot(ref); return err })
		return s, err
	}
	g, err := project.Fold(f.session(), f.events(t, f.session()), snap)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func (f *forkRig) node(t *testing.T, g *project.Graph, id engine.NodeID) (project.Node, run.Snapshot) {
	t.Helper()
	n, err := g.Node(id)
	if err != nil {
		t.Fatal(err)
	}
	s, err := g.Snapshot(n.Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	return n, s
}

// replays answers every acknowledgement of the run so far again.
func (f *forkRig) replays(t *testing.T) []string {
	var out []string
	for _, b := range f.acks {
		r, _ := json.Marshal(f.x.Continue(context.Background(), b))
		out = append(out, string(r))
	}
	return out
}

// TestForkHereFromANode: forking node_3 with an edited context records an
// ordinary fork from node_2, through continue_workflow: a sibling of
// node_3 with the same pending step, the edited context, the output
// node_3 was made with, and a stateToken an agent can go on from. The
// old branch replays as before.
func TestForkHereFromANode(t *testing.T) {
	f := newForkRig(t)
	before := f.replays(t)
	// A chat rewound to node_2 holds the ackToken of attempt 1, unused.
	held := f.step(t, "continue", map[string]any{"stateToken": f.atA.StateToken}).NextCall.Arguments

	res, at := f.x.Fork(context.Background(), f.at(3), []byte(`{"topic": "y", "depth": "quick", "extra": [1, 2.50]}`))
	s, ok := res.(protocol.StepResult)
	if !ok {
		b, _ := json.Marshal(res)
		t.Fatalf("fork = %s; want a step", b)
	}
	if s.Pending.StepID != "b" || at != f.at(4) || s.Session != f.start.Session {
		t.Fatalf("fork left the run at %+v pending %s; want node_4 pending b", at, s.Pending.StepID)
	}
	if s.Fork == nil || len(s.Fork.Siblings) != 1 || s.Fork.Siblings[0].Node != 3 {
		t.Fatalf("the answer does not picture the branch it forked from: %+v", s.Fork)
	}
	if len(s.Warnings) != 1 || s.Warnings[0].Code != event.NoticeContextKeyUndeclared {
		t.Fatalf("warnings %+v; want one for the undeclared key alone (unchanged keys are not sent)", s.Warnings)
	}

	g := f.graph(t)
	n4, snap := f.node(t, g, 4)
	if n4.Parent != 2 || g.ForkedFrom(n4) != 2 {
		t.Fatalf("node_4 = %+v; want a fork from node_2", n4)
	}
	want := map[string]any{"topic": "y", "depth": "quick", "extra": []any{1.0, 2.5}}
	if !reflect.DeepEqual(snap.Context, want) || snap.Position.Step != "b" {
		t.Fatalf("node_4 context %v at %s; want %v at b", snap.Context, snap.Position.Step, want)
	}
	if at, ok := g.Attempt(2, 1+10_000); !ok {
		t.Fatal("the fork is not recorded as attempt 10001 at node_2")
	} else if e, _ := g.Event(at); e.Data.(*event.AdvanceRecordedData).ToNode != 4 {
		t.Fatalf("attempt 10001 at node_2 made %v", e.Data)
	}
	var notes []string
	for _, i := range n4.Outputs {
		e, _ := g.Event(i)
		d := e.Data.(*event.NodeOutputAppendedData)
		notes = append(notes, string(d.StepID)+": "+d.NotesMarkdown)
	}
	if !reflect.DeepEqual(notes, []string{"a: did a"}) {
		t.Fatalf("node_4's output %v; want the output node_3 was made with", notes)
	}

	// The old branch is untouched: its acknowledgements replay as before.
	if after := f.replays(t); !reflect.DeepEqual(after, before) {
		t.Fatal("a replay of the old branch changed after the fork")
	}
	// The ackToken the rewound chat holds is still its own: it records a
	// new branch with its own output, not the fork's answer.
	held.Output = &protocol.Output{NotesMarkdown: "the chat's own"}
	mine := f.step(t, "continue", held)
	if mine.StateToken == s.StateToken {
		t.Fatal("the chat's ackToken was answered with the fork's record")
	}
	// A rehydrate of node_2 now hands out the attempt after the fork's.
	if re := f.step(t, "continue", map[string]any{"stateToken": f.atA.StateToken}); re.AckToken == held.AckToken {
		t.Fatal("a rehydrate after the fork hands out an attempt already used")
	}

	// The stateToken the Console shows is one continue_workflow accepts.
	again := f.step(t, "continue", map[string]any{"stateToken": s.StateToken})
	if again.Pending.StepID != "b" || again.StateToken != s.StateToken {
		t.Fatalf("a rehydrate of the fork's token is at %s", again.Pending.StepID)
	}
	if r := f.x.Resume(context.Background(), at); r.(protocol.StepResult).StateToken != s.StateToken {
		t.Fatal("Resume hands out another stateToken for the new node")
	}
	args := again.NextCall.Arguments
	args.Output = &protocol.Output{NotesMarkdown: "did b on the fork"}
	if next := f.step(t, "continue", args); next.Pending.StepID != "c" {
		t.Fatalf("advancing the fork reached %s; want c", next.Pending.StepID)
	}
}

// TestForkHereAtTheRoot starts a new run in the same session on the
// pinned version, even when the workflow changed since; restart takes
// the current version. Both name the run they restart.
func TestForkHereAtTheRoot(t *testing.T) {
	f := newForkRig(t)
	pinned := f.start.Workflow.Hash
	// The workflow is edited: the same store, a catalog with version 2.
	f.x = execute.New(f.store, executetest.Ring(t), catalogOf(t, map[string]string{"wr.f.json": forkFlow("2", "c, and say so")}), workflow.Preferences{Autonomy: workflow.FullAutoNeverStop}, executetest.Clock, t.Logf)
	for _, c := range []struct {
		name string
		act  func(context.Context, execute.Place, []byte) (protocol.Result, execute.Place)
		hash func(protocol.StepResult) bool
	}{
		{"fork at the root", f.x.Fork, func(s protocol.StepResult) bool { return s.Workflow.Hash == pinned }},
		{"restart", f.x.Restart, func(s protocol.StepResult) bool { return s.Workflow.Hash != pinned }},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, at := c.act(context.Background(), f.at(1), []byte(`{"topic": "z"}`))
			s, ok := res.(protocol.StepResult)
			if !ok || !c.hash(s) || s.Pending.StepID != "ask" {
				b, _ := json.Marshal(res)
				t.Fatalf("%s = %s", c.name, b)
			}
			g := f.graph(t)
			r, err := g.Run(at.Run)
			if err != nil || at.Session != f.session() || r.RestartOf != f.start.Session.RunID || r.Root != at.Node || r.WorkflowHash != s.Workflow.Hash {
				t.Fatalf("new run %+v at %+v, %v; want a run of %s restarting %s", r, at, err, f.session(), f.start.Session.RunID)
			}
			_, snap := f.node(t, g, at.Node)
			// The session's baseline stays: the run started guided, so
			// the new one does, whatever the defaults are now.
			if !reflect.DeepEqual(snap.Context, map[string]any{"topic": "z"}) || snap.Preferences.Autonomy != workflow.Guided {
				t.Fatalf("the new run starts with %v, %+v", snap.Context, snap.Preferences)
			}
			if k := kinds(f.events(t, f.session())); k[event.SessionCreated] != 1 {
				t.Fatalf("%d session_created events; want the one", k[event.SessionCreated])
			}
		})
	}
}

// TestForkHereBlocked: the acknowledgement that made node_2 switched to a
// mode that never stops and went past the user's approval; a fork runs
// under the parent's guided preferences, so it is blocked, and says so.
func TestForkHereBlocked(t *testing.T) {
	r := newRig(t, catalogOf(t, map[string]string{"wr.f.json": forkFlow("1", "c")}))
	start := r.step(t, "start", map[string]any{"workflowId": "wr.f", "context": map[string]any{"topic": "x"}})
	args := start.NextCall.Arguments
	r.step(t, "continue", map[string]any{"stateToken": args.StateToken, "ackToken": args.AckToken,
		"output": map[string]any{"notesMarkdown": "went on"}, "preferences": map[string]any{"autonomy": "full_auto_never_stop"}})
	res, at := r.x.Fork(context.Background(), execute.Place{Session: start.Session.SessionID, Run: start.Session.RunID, Node: 2}, []byte(`{"topic":"x"}`))
	b, ok := res.(protocol.BlockedResult)
	if !ok || len(b.Blockers) == 0 || b.Blockers[0].Code != event.BlockUserOnlyDependency || at.Node != 1 {
		j, _ := json.Marshal(res)
		t.Fatalf("fork = %s at %+v; want blocked on the user's approval at node_1", j, at)
	}
}

// TestForkHereRefusesWhatTheToolsRefuse: a context that is not a JSON
// object, breaks a declared input's type or closed set, sends a key
// twice, cuts a key the parent had or misses a required input at a
// restart is a structured error, and nothing is written.
func TestForkHereRefusesWhatTheToolsRefuse(t *testing.T) {
	f := newForkRig(t)
	for _, c := range []struct {
		name    string
		node    engine.NodeID
		restart bool
		context string
		code    engine.Code
		pointer string
	}{
		{"not JSON", 3, false, "{\n  \"topic\": \"y\",\n  depth\n}", engine.CodeInvalidInput, "/context"},
		{"not an object", 3, false, `["topic"]`, engine.CodeInvalidInput, "/context"},
		{"wrong type", 3, false, `{"topic": 5, "depth": "quick"}`, engine.CodeInvalidInput, "/context/topic"},
		{"outside the closed set", 3, false, `{"topic": "y", "depth": "shallow"}`, engine.CodeInvalidInput, "/context/depth"},
		{"a key twice", 3, false, `{"topic": "y", "topic": "z", "depth": "quick"}`, engine.CodeInvalidInput, "/context/topic"},
		{"a parent's key cut", 3, false, `{"depth": "quick"}`, engine.CodeInvalidInput, "/context/topic"},
		{"a number JSON cannot store", 3, false, `{"topic": "y", "depth": "quick", "n": 1e400}`, engine.CodeInvalidInput, "/context/n"},
		{"a required input missing at the root", 1, false, `{"depth": "quick"}`, engine.CodeInvalidInput, ""},
		{"a required input missing at a restart", 1, true, `{}`, engine.CodeInvalidInput, ""},
		{"no such node", 9, false, `{"topic": "y"}`, engine.CodeTokenUnknownNode, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			head := len(f.events(t, f.session()))
			act := f.x.Fork
			if c.restart {
				act = f.x.Restart
			}
			res, at := act(context.Background(), f.at(c.node), []byte(c.context))
			if code := errCode(t, res); code != c.code || at != (execute.Place{}) {
				t.Fatalf("code %s at %+v; want %s", code, at, c.code)
			}
			if p, _ := res.(protocol.ErrorResult).Error.Details["pointer"].(string); c.pointer != "" && p != c.pointer {
				t.Fatalf("pointer %q; want %q (%s)", p, c.pointer, res.RenderedText())
			}
			if n := len(f.events(t, f.session())); n != head {
				t.Fatalf("%d events written", n-head)
			}
		})
	}
}

// TestForkHereAtTheEnd forks the node a run completed at: the new branch
// completes too.
func TestForkHereAtTheEnd(t *testing.T) {
	f := newForkRig(t)
	args := f.atB.NextCall.Arguments
	last := f.step(t, "continue", args).NextCall.Arguments
	if _, ok := f.x.Continue(context.Background(), mustMarshal(t, last)).(protocol.CompleteResult); !ok {
		t.Fatal("the run did not complete")
	}
	res, at := f.x.Fork(context.Background(), f.at(5), []byte(`{"topic": "end", "depth": "deep"}`))
	if c, ok := res.(protocol.CompleteResult); !ok || at.Node != 6 || c.StateToken == "" {
		j, _ := json.Marshal(res)
		t.Fatalf("fork of the last node = %s at %+v; want complete at node_6", j, at)
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
