package executetest

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/resume"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/token"
	"github.com/workrail/workrail/engine/workflow"
)

// Store is what the contract exercises: the port plus the reads every
// implementation offers the Console and tests.
type Store interface {
	execute.Store
	SessionIDs() ([]engine.SessionID, error)
	Events(engine.SessionID) ([]event.Event, execute.Health, error)
	Digest(engine.SessionID) (engine.Digest, error)
	// Overview is the session's overview, kept by every append.
	Overview(engine.SessionID) (project.Overview, error)
	// Overviews walks the sessions newest first, below before when it is
	// not 0, until fn returns false.
	Overviews(before engine.SessionID, fn func(engine.SessionID, project.Overview, error) bool) error
	// Recent walks the sessions the most recently written first, those
	// written before below when it is not 0, until fn returns false.
	Recent(below execute.Write, fn func(engine.SessionID, execute.Write, project.Overview, error) bool) error
	// Projection is a run's projection, kept by every append.
	Projection(engine.SessionID, engine.RunID) (*project.Projection, error)
}

// Contract runs the assertions every implementation of the store port
// must pass; open returns a new, empty store.
func Contract(t *testing.T, open func(t *testing.T) Store) {
	for _, c := range []struct {
		name string
		test func(*testing.T, Store)
	}{
		{"appends are read back as stored and chained", appendsAreChained},
		{"a failed write leaves nothing behind", failedWritesLeaveNothing},
		{"a cancelled request leaves nothing behind", cancelledWritesLeaveNothing},
		{"a read transaction has no way to append", readsCannotAppend},
		{"content-addressed records", contentAddressed},
		{"missing records are not found", missingRecords},
		{"indexes equal a refold of the log", indexesEqualRefold},
		{"replays are byte-identical and write nothing", replaysWriteNothing},
		{"a replay says when the output sent was not recorded", replaysCompareOutput},
		{"concurrent identical acks advance once", concurrentAcks},
		{"the overview is the fold of the log", overviewIsTheFold},
		{"the projection is the fold of the log", projectionIsTheFold},
		{"overviews are walked newest first", overviewsNewestFirst},
		{"sessions are walked the latest written first", recentWrittenFirst},
		{"forks and restarts from the Console are folded like any run", consoleForksFolded},
		{"resume ranks what a refold of every log ranks", resumeIsTheFold},
		{"a start sent again under its retry key is made once", startsOnceUnderARetryKey},
		{"the latest starts are kept", latestStartsKept},
		{"resume offers the session written last first, whatever its log's length", resumeWrittenLastFirst},
		{"a correction is stored with the output it replaces, a bad one not at all", supersedesStored},
	} {
		t.Run(c.name, func(t *testing.T) { c.test(t, open(t)) })
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func snapshotOf(step workflow.StepID) run.Snapshot {
	return run.Snapshot{V: run.SnapshotVersion, Position: run.Position{Kind: run.Pending, Step: step, Path: []run.Frame{{}}},
		Context: map[string]any{"n": 1.5, "s": "é"}, Preferences: workflow.Preferences{Autonomy: workflow.Guided, RiskPolicy: workflow.Conservative}}
}

// seed creates a session with a run, a root node and one child.
func seed(t *testing.T, s Store) engine.SessionID {
	t.Helper()
	id, err := s.Create(func(tx execute.Tx) error {
		if _, err := tx.Append(0, 0, &event.SessionCreatedData{CreatedAt: "2026-01-01T00:00:00Z"}); err != nil {
			return err
		}
		r, err := tx.NewRunID()
		if err != nil {
			return err
		}
		if _, err := tx.Append(r, 0, &event.RunStartedData{WorkflowID: "wr.x"}); err != nil {
			return err
		}
		var prev engine.NodeID
		for _, step := range []workflow.StepID{"a", "b"} {
			n, err := tx.NewNodeID()
			if err != nil {
				return err
			}
			ref, err := tx.PutSnapshot(snapshotOf(step))
			if err != nil {
				return err
			}
			if _, err := tx.Append(r, n, &event.NodeCreatedData{NodeKind: event.NodeStep, Snapshot: ref}); err != nil {
				return err
			}
			if prev != 0 {
				if _, err := tx.Append(r, n, &event.EdgeCreatedData{EdgeKind: event.EdgeAckedStep, From: prev, To: n}); err != nil {
					return err
				}
			}
			prev = n
		}
		return nil
	})
	must(t, err)
	return id
}

func appendsAreChained(t *testing.T, s Store) {
	a, b := seed(t, s), seed(t, s)
	if a == b || a == 0 {
		t.Fatalf("session ids %s and %s", a, b)
	}
	ids, err := s.SessionIDs()
	if err != nil || !reflect.DeepEqual(ids, []engine.SessionID{a, b}) {
		t.Fatalf("SessionIDs = %v, %v; want [%s %s]", ids, err, a, b)
	}
	evs, h, err := s.Events(a)
	if err != nil || h.Status != execute.Healthy || h.LastGood != 5 || len(evs) != 5 {
		t.Fatalf("Events = %d events, %+v, %v; want 5, healthy", len(evs), h, err)
	}
	var chain engine.Digest
	for i, e := range evs {
		if e.Index != engine.EventIndex(i+1) || e.Session != a || e.ID != engine.NewEventID(a, e.Index) {
			t.Fatalf("event %d has envelope %+v", i+1, e)
		}
		b, err := event.Encode(e)
		must(t, err)
		chain = event.Chain(chain, b)
	}
	if d, err := s.Digest(a); err != nil || d != chain {
		t.Fatalf("Digest = %v, %v; want the chain over the events as stored", d, err)
	}
	must(t, s.View(a, func(tx execute.ReadTx) error {
		if tx.Session() != a || tx.Head() != 5 {
			t.Errorf("Session %s, Head %d", tx.Session(), tx.Head())
		}
		runs, err := tx.Runs()
		if err != nil || len(runs) != 1 || runs[0].Root != 1 || runs[0].WorkflowID != "wr.x" {
			t.Errorf("Runs = %+v, %v", runs, err)
		}
		snap, err := tx.Snapshot(mustNode(t, tx, 2).Snapshot)
		if err != nil || !reflect.DeepEqual(snap, snapshotOf("b")) {
			t.Errorf("Snapshot = %+v, %v", snap, err)
		}
		return nil
	}))
}

func mustNode(t *testing.T, tx execute.ReadTx, id engine.NodeID) project.Node {
	t.Helper()
	n, err := tx.Node(id)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func failedWritesLeaveNothing(t *testing.T, s Store) {
	id := seed(t, s)
	before, _ := s.Digest(id)
	boom := errors.New("boom")
	err := s.Update(id, func(tx execute.Tx) error {
		n, err := tx.NewNodeID()
		if err != nil {
			return err
		}
		ref, err := tx.PutSnapshot(snapshotOf("c"))
		if err != nil {
			return err
		}
		if _, err := tx.Append(1, n, &event.NodeCreatedData{NodeKind: event.NodeStep, Snapshot: ref}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update = %v; want the callback's error", err)
	}
	if after, _ := s.Digest(id); after != before {
		t.Fatal("a failed write changed the log")
	}
	must(t, s.Update(id, func(tx execute.Tx) error {
		if tx.Head() != 5 {
			t.Errorf("Head = %d after a failed write; want 5", tx.Head())
		}
		if n, err := tx.NewNodeID(); err != nil || n != 3 {
			t.Errorf("NewNodeID = %d, %v; the failed write's id must be handed out again", n, err)
		}
		if _, err := tx.Node(3); !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("the failed write's node is visible: %v", err)
		}
		return nil
	}))
	ids, _ := s.SessionIDs()
	if _, err := s.Create(func(tx execute.Tx) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("Create = %v; want the callback's error", err)
	}
	if again, _ := s.SessionIDs(); len(again) != len(ids) {
		t.Fatalf("a failed Create left a session: %v", again)
	}
}

func contentAddressed(t *testing.T, s Store) {
	id := seed(t, s)
	c, err := compile.Seal(compile.Workflow{ID: "wr.x", Name: "x", Description: "x", Version: "1"})
	must(t, err)
	must(t, s.Update(id, func(tx execute.Tx) error {
		r1, err := tx.PutSnapshot(snapshotOf("z"))
		if err != nil {
			return err
		}
		r2, err := tx.PutSnapshot(snapshotOf("z"))
		if err != nil || r1 != r2 {
			t.Errorf("the same snapshot got refs %s and %s", r1, r2)
		}
		return tx.PinWorkflow(c)
	}))
	must(t, s.View(id, func(tx execute.ReadTx) error {
		got, err := tx.Workflow(c.Hash)
		if err != nil || got.Hash != c.Hash || string(got.Canonical) != string(c.Canonical) || got.ID != "wr.x" {
			t.Errorf("Workflow = %+v, %v", got.Workflow, err)
		}
		ol, err := tx.WorkflowOutline(c.Hash)
		if err != nil || ol.Hash != c.Hash || ol.ID != "wr.x" || ol.Version != "1" {
			t.Errorf("WorkflowOutline = %+v, %v", ol.Workflow, err)
		}
		return nil
	}))
}

func missingRecords(t *testing.T, s Store) {
	id := seed(t, s)
	must(t, s.View(id, func(tx execute.ReadTx) error {
		_, e1 := tx.Node(99)
		_, e2 := tx.Run(9)
		_, e3 := tx.Event(99)
		_, e4 := tx.RecordedAttempt(1, 0)
		_, e5 := tx.Snapshot(engine.SnapshotRef{1})
		_, e6 := tx.Workflow(engine.WorkflowHash{1})
		_, e7 := tx.WorkflowOutline(engine.WorkflowHash{1})
		for i, err := range []error{e1, e2, e3, e4, e5, e6, e7} {
			if !errors.Is(err, engine.ErrNotFound) {
				t.Errorf("lookup %d = %v; want engine.ErrNotFound", i+1, err)
			}
		}
		return nil
	}))
	nobody := engine.SessionID(999)
	_, errH := s.Health(nobody)
	read, write := func(execute.ReadTx) error { return nil }, func(execute.Tx) error { return nil }
	for i, err := range []error{s.View(nobody, read), s.Update(nobody, write), errH} {
		if !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("unknown session, call %d = %v; want engine.ErrNotFound", i+1, err)
		}
	}
}

// forkedRuns drives every bundled-style shape through the use cases: a
// blocked attempt, a complete run, forks from a rewound chat.
func forkedRuns(t *testing.T, s Store) (*execute.Service, engine.SessionID) {
	x := execute.New(s, Ring(t), Catalog(t, fstest.MapFS{"wr.t.json": {Data: []byte(`{"id":"wr.t","name":"T","description":"d","version":"1",
		"steps":[{"id":"ask","title":"Ask","prompt":"ask","userDependency":{"reason":"needs_user_approval","summary":"approve","requestedFromUser":"Approve?"}},
		{"id":"do","title":"Do","prompt":"do"},{"id":"end","title":"End","prompt":"end"}]}`)}}), workflow.Preferences{}, Clock, t.Logf)
	call := func(fn func(context.Context, []byte) protocol.Result, args any) protocol.Result {
		b, err := json.Marshal(args)
		must(t, err)
		return fn(context.Background(), b)
	}
	first, ok := call(x.Start, map[string]any{"workflowId": "wr.t"}).(protocol.StepResult)
	if !ok {
		t.Fatal("start failed")
	}
	// Copied as it is, the call leaves the user's answer unfilled.
	blocked, ok := call(x.Continue, first.NextCall.Arguments).(protocol.BlockedResult)
	if !ok {
		t.Fatal("the user-only dependency did not block")
	}
	var res protocol.Result = call(x.Continue, NextArgs(t, blocked))
	for res.ResultKind() == protocol.KindStep {
		res = call(x.Continue, NextArgs(t, res))
	}
	for i := 0; i < 2; i++ {
		re := call(x.Continue, map[string]any{"stateToken": blocked.StateToken}).(protocol.StepResult)
		if _, ok := call(x.Continue, NextArgs(t, re)).(protocol.StepResult); !ok {
			t.Fatal("a fork from the rewound chat did not advance")
		}
	}
	return x, first.Session.SessionID
}

func indexesEqualRefold(t *testing.T, s Store) {
	_, id := forkedRuns(t, s)
	evs, _, err := s.Events(id)
	must(t, err)
	g, err := project.Fold(id, evs, nil)
	must(t, err)
	must(t, s.View(id, func(tx execute.ReadTx) error {
		for _, r := range g.Runs() {
			stored, err := tx.Run(r.ID)
			if err != nil || stored != r {
				t.Errorf("run %s: stored %+v, refold %+v (%v)", r.ID, stored, r, err)
			}
			for _, n := range g.Nodes(r.ID) {
				if stored, err := tx.Node(n.ID); err != nil || !reflect.DeepEqual(stored, n) {
					t.Errorf("node %s: stored %+v, refold %+v (%v)", n.ID, stored, n, err)
				}
				for a := engine.Attempt(0); a < n.Attempts; a++ {
					at, _ := g.Attempt(n.ID, a)
					if ev, err := tx.RecordedAttempt(n.ID, a); err != nil || ev.Index != at {
						t.Errorf("attempt %d at %s: %v, %v; refold says event %d", a, n.ID, ev.Index, err, at)
					}
				}
			}
		}
		return nil
	}))
	if len(g.BlockedAttempts()) != 1 || len(g.Runs()) != 1 || g.ForksOf(mustNodeOf(t, g, 1)) != 2 {
		t.Fatalf("the script did not make what it says: %d blocked, %d runs", len(g.BlockedAttempts()), len(g.Runs()))
	}
}

func mustNodeOf(t *testing.T, g *project.Graph, id engine.NodeID) project.Node {
	t.Helper()
	n, err := g.Node(id)
	must(t, err)
	return n
}

func replaysWriteNothing(t *testing.T, s Store) {
	x, id := forkedRuns(t, s)
	evs, _, _ := s.Events(id)
	before, _ := s.Digest(id)
	// Replay every recorded attempt: the same tokens the agent had.
	g, _ := project.Fold(id, evs, nil)
	for _, n := range g.Nodes(1) {
		for a := engine.Attempt(0); a < n.Attempts; a++ {
			args := replayArgs(t, id, n, a)
			first, again := x.Continue(context.Background(), args), x.Continue(context.Background(), args)
			b1, _ := json.Marshal(first)
			b2, _ := json.Marshal(again)
			if string(b1) != string(b2) || first.ResultKind() == protocol.KindError {
				t.Fatalf("replay of attempt %d at %s:\n%s\n%s", a, n.ID, b1, b2)
			}
		}
	}
	if after, _ := s.Digest(id); after != before {
		t.Fatal("replays appended events")
	}
}

// replayArgs are the continue arguments of attempt a at node n, as the
// fixed ring signs them.
func replayArgs(t *testing.T, id engine.SessionID, n project.Node, a engine.Attempt) []byte {
	ring := Ring(t)
	st, err := ring.Mint(tokenClaims(id, n, 0, false))
	must(t, err)
	ack, err := ring.Mint(tokenClaims(id, n, a, true))
	must(t, err)
	b, err := json.Marshal(map[string]string{"stateToken": st, "ackToken": ack})
	must(t, err)
	return b
}

// replaysCompareOutput resends a spent ackToken whose attempt recorded
// notes, an artifact and a gap resolution, all read back through the
// store's indexes: with that output (spelt otherwise), the replay is the
// first answer; with another, it warns that the output was not recorded.
func replaysCompareOutput(t *testing.T, s Store) {
	x, at := gapRecorded(t, s)
	if len(at.Gaps) != 1 {
		t.Fatalf("gaps recorded: %+v; want one", at.Gaps)
	}
	ack := func(output string) []byte {
		return mustJSON(t, map[string]any{"stateToken": at.StateToken, "ackToken": at.AckToken, "output": json.RawMessage(output)})
	}
	resolves := `"resolvesGaps":[{"gapId":"` + string(at.Gaps[0].GapID) + `","summary":"approved later"}]`
	firstRes := x.Continue(context.Background(), ack(`{"notesMarkdown":"did it","artifacts":[{"kind":"demo.n","n":1}],`+resolves+`}`))
	first, err := json.Marshal(firstRes)
	must(t, err)
	// What the attempt recorded (here: that nothing reads demo.n) comes
	// back with every replay; a replay adds its own warning after it.
	recorded := firstRes.(protocol.StepResult).Warnings
	before, err := s.Digest(at.Session.SessionID)
	must(t, err)
	for _, tc := range []struct {
		output string
		warns  bool
	}{
		{`{` + resolves + `,"artifacts":[{"n":1.0,"kind":"demo.n"}],"notesMarkdown":"did it"}`, false},
		{`{"notesMarkdown":"did it","artifacts":[{"kind":"demo.n","n":1}]}`, true},
		{`{"notesMarkdown":"did it","artifacts":[{"kind":"demo.n","n":2}],` + resolves + `}`, true},
	} {
		res := x.Continue(context.Background(), ack(tc.output))
		again, err := json.Marshal(res)
		must(t, err)
		var ws []protocol.Warning
		if st, ok := res.(protocol.StepResult); ok {
			ws = st.Warnings
		}
		switch {
		case !tc.warns && string(again) != string(first):
			t.Errorf("replay with %s differs from the first answer:\n%s\n%s", tc.output, first, again)
		case tc.warns && !reflect.DeepEqual(ws, append(slices.Clone(recorded), protocol.OutputIgnoredOnReplay(at.StateToken))):
			t.Errorf("replay with %s: warnings %+v; want the recorded ones and OUTPUT_IGNORED_ON_REPLAY", tc.output, ws)
		}
	}
	if after, _ := s.Digest(at.Session.SessionID); after != before {
		t.Fatal("replays appended events")
	}
}

func concurrentAcks(t *testing.T, s Store) {
	x := execute.New(s, Ring(t), Long(t, 5), workflow.Preferences{}, Clock, t.Logf)
	start, ok := x.Start(context.Background(), []byte(`{"workflowId":"wr.long"}`)).(protocol.StepResult)
	if !ok {
		t.Fatal("start failed")
	}
	args, err := json.Marshal(start.NextCall.Arguments)
	must(t, err)
	out := make([]string, 16)
	var wg sync.WaitGroup
	for i := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, _ := json.Marshal(x.Continue(context.Background(), args))
			out[i] = string(b)
		}()
	}
	wg.Wait()
	for i := range out {
		if out[i] != out[0] {
			t.Fatalf("answer %d differs from answer 0", i)
		}
	}
	evs, _, _ := s.Events(start.Session.SessionID)
	advances := 0
	for _, e := range evs {
		if e.Kind == event.AdvanceRecorded {
			advances++
		}
	}
	if advances != 1 {
		t.Fatalf("%d advances recorded; want exactly 1", advances)
	}
}

func tokenClaims(id engine.SessionID, n project.Node, a engine.Attempt, ack bool) token.Claims {
	c := token.Claims{Kind: token.State, Key: 1, Session: id, Run: n.Run, Node: n.ID}
	if ack {
		c.Kind, c.Attempt = token.Ack, a
	}
	return c
}

// wantOverview folds session id's log into its overview in memory (with
// the projection, which keeps its runs' figures), and checks each run
// against Summarize and the projection.
func wantOverview(t *testing.T, s Store, id engine.SessionID) project.Overview {
	t.Helper()
	evs, _, err := s.Events(id)
	must(t, err)
	snap := func(ref engine.SnapshotRef) (snap run.Snapshot, err error) {
		err = s.View(id, func(tx execute.ReadTx) error { snap, err = tx.Snapshot(ref); return err })
		return snap, err
	}
	f, err := project.FoldAll(id, evs, snap)
	must(t, err)
	o := f.Overview
	for i, r := range f.Graph.Runs() {
		sum, err := project.Summarize(f.Graph, r)
		must(t, err)
		p, err := f.Projection(r.ID)
		must(t, err)
		if got := o.Runs[i]; got.Tip != sum.Tip.ID || got.Status != sum.Status || got.Pending != sum.Pending || got.Nodes != sum.Nodes ||
			got.Branches != len(p.Branches) || got.Forks != len(p.Branches)-1 || got.Verdict != p.Verdict() || got.StepsDone != p.StepsDone() {
			t.Fatalf("run %s: overview %+v; Summarize has %s %s at %s, the projection %d branches, %s, %d steps done",
				r.ID, got, sum.Status, sum.Pending, sum.Tip.ID, len(p.Branches), p.Verdict(), p.StepsDone())
		}
	}
	return o
}

func overviewIsTheFold(t *testing.T, s Store) {
	check := func(id engine.SessionID, what string, ok func(project.Overview) bool) {
		t.Helper()
		got, err := s.Overview(id)
		must(t, err)
		if want := wantOverview(t, s, id); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: stored overview\n%+v\nrefold\n%+v", what, got, want)
		}
		if !ok(got) {
			t.Fatalf("%s: overview %+v", what, got)
		}
	}
	_, forked := forkedRuns(t, s)
	check(forked, "blocked, completed, forked twice", func(o project.Overview) bool {
		// The agent copied nextCall's notes as they were.
		return o.Title != "" && o.TitleFrom == project.TitleFromNotes && len(o.Runs) == 1 && o.Runs[0].Forks == 2 &&
			o.Runs[0].Branches == 3 && o.CreatedAt != "" && len(o.OpenGaps) == 0
	})

	x := execute.New(s, Ring(t), Long(t, 3), workflow.Preferences{}, Clock, t.Logf)
	Drive(t, x, "wr.long", "")
	ids, err := s.SessionIDs()
	must(t, err)
	check(ids[len(ids)-1], "driven to completion", func(o project.Overview) bool {
		return o.Title == "Did s0." && o.TitleFrom == project.TitleFromNotes && o.Runs[0].Title == "Did s0." &&
			o.Status() == project.Complete && o.Runs[0].Pending == "" && o.Runs[0].Nodes == 4
	})

	// A gap recorded in a mode that does not stop, then resolved.
	y, gap := gapRecorded(t, s)
	check(gap.Session.SessionID, "a gap open", func(o project.Overview) bool {
		return len(o.OpenGaps) == 1 && o.Status() == project.InProgress && o.Runs[0].Pending == "do"
	})
	args := gap.NextCall.Arguments
	args.Output = &protocol.Output{NotesMarkdown: "## Asked the user\nthey approved",
		ResolvesGaps: []protocol.GapResolution{{GapID: mustOverview(t, s, gap.Session.SessionID).OpenGaps[0].ID, Summary: "approved"}}}
	b, err := json.Marshal(args)
	must(t, err)
	if _, ok := y.Continue(context.Background(), b).(protocol.StepResult); !ok {
		t.Fatal("resolving the gap did not advance")
	}
	check(gap.Session.SessionID, "the gap resolved", func(o project.Overview) bool {
		return len(o.OpenGaps) == 0 && o.Title == "Went on without approval" && o.Runs[0].Title == o.Title && o.Runs[0].Pending == "end"
	})

	empty, err := s.Create(func(execute.Tx) error { return nil })
	must(t, err)
	if o, err := s.Overview(empty); err != nil || !reflect.DeepEqual(o, project.Overview{}) {
		t.Fatalf("a session without events: overview %+v, %v; want the zero one", o, err)
	}
	if _, err := s.Overview(999); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("Overview of an unknown session = %v; want engine.ErrNotFound", err)
	}
}

// gapRecorded starts wr.t in a mode that never stops: its user-only
// dependency is recorded as a gap, and the run goes on.
func gapRecorded(t *testing.T, s Store) (*execute.Service, protocol.StepResult) {
	x := execute.New(s, Ring(t), Catalog(t, fstest.MapFS{"wr.t.json": {Data: []byte(`{"id":"wr.t","name":"T","description":"d","version":"1",
		"steps":[{"id":"ask","title":"Ask","prompt":"ask","userDependency":{"reason":"needs_user_approval","summary":"approve","requestedFromUser":"Approve?"}},
		{"id":"do","title":"Do","prompt":"do"},{"id":"end","title":"End","prompt":"end"}]}`)}}), workflow.Preferences{}, Clock, t.Logf)
	first, ok := x.Start(context.Background(), mustJSON(t, map[string]any{"workflowId": "wr.t", "mode": "wr.modes.full_auto_never_stop"})).(protocol.StepResult)
	if !ok {
		t.Fatal("start failed")
	}
	args := first.NextCall.Arguments
	args.Output = &protocol.Output{NotesMarkdown: "- **Went on without approval**\n- asked later"}
	next, ok := x.Continue(context.Background(), mustJSON(t, args)).(protocol.StepResult)
	if !ok {
		t.Fatal("the user-only dependency stopped a run that never stops")
	}
	return x, next
}

func mustOverview(t *testing.T, s Store, id engine.SessionID) project.Overview {
	t.Helper()
	o, err := s.Overview(id)
	must(t, err)
	return o
}

func overviewsNewestFirst(t *testing.T, s Store) {
	var ids []engine.SessionID
	for range 4 {
		ids = append(ids, seed(t, s))
	}
	walk := func(before engine.SessionID, stopAfter int) []engine.SessionID {
		var got []engine.SessionID
		must(t, s.Overviews(before, func(id engine.SessionID, o project.Overview, err error) bool {
			must(t, err)
			if want := mustOverview(t, s, id); !reflect.DeepEqual(o, want) {
				t.Errorf("session %s: walked %+v, Overview %+v", id, o, want)
			}
			got = append(got, id)
			return len(got) != stopAfter
		}))
		return got
	}
	all := []engine.SessionID{ids[3], ids[2], ids[1], ids[0]}
	for _, c := range []struct {
		name      string
		before    engine.SessionID
		stopAfter int
		want      []engine.SessionID
	}{
		{"from the newest", 0, 0, all},
		{"below an id", ids[2], 0, all[2:]},
		{"below an id past the newest", ids[3] + 10, 0, all},
		{"below the oldest", ids[0], 0, nil},
		{"stopped by fn", 0, 2, all[:2]},
		{"stopped at the last", ids[1], 1, all[3:]},
	} {
		if got := walk(c.before, c.stopAfter); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: walked %v; want %v", c.name, got, c.want)
		}
	}
	if o := mustOverview(t, s, ids[0]); o.Title != "wr.x" || o.Last != 5 || o.LastKind != event.EdgeCreated || o.Runs[0].Tip != 2 {
		t.Errorf("seeded overview %+v", o)
	}
	// What a reader does with an overview is its own business.
	o := mustOverview(t, s, ids[0])
	o.Runs[0].Title = "changed by a reader"
	must(t, s.Overviews(0, func(_ engine.SessionID, o project.Overview, _ error) bool {
		o.Runs[0].Title = "changed by a reader"
		return true
	}))
	if o := mustOverview(t, s, ids[0]); o.Runs[0].Title != "" {
		t.Errorf("a reader's change is kept: %+v", o)
	}
}

// recentWrittenFirst: the session a write appended to last comes first;
// a write that appends nothing moves nothing; below pages on.
func recentWrittenFirst(t *testing.T, s Store) {
	a, b, c := seed(t, s), seed(t, s), seed(t, s)
	must(t, s.Update(a, func(tx execute.Tx) error {
		_, err := tx.Append(1, 2, &event.NodeOutputAppendedData{StepID: "s", NotesMarkdown: "later"})
		return err
	}))
	must(t, s.Update(b, func(execute.Tx) error { return nil }))
	walk := func(below execute.Write) (ids []engine.SessionID, writes []execute.Write) {
		must(t, s.Recent(below, func(id engine.SessionID, w execute.Write, o project.Overview, err error) bool {
			must(t, err)
			if want := mustOverview(t, s, id); !reflect.DeepEqual(o, want) {
				t.Errorf("session %s: walked %+v, Overview %+v", id, o, want)
			}
			ids, writes = append(ids, id), append(writes, w)
			return true
		}))
		return ids, writes
	}
	ids, writes := walk(0)
	if !reflect.DeepEqual(ids, []engine.SessionID{a, c, b}) {
		t.Fatalf("walked %v; want %v", ids, []engine.SessionID{a, c, b})
	}
	if rest, _ := walk(writes[1]); !reflect.DeepEqual(rest, ids[2:]) {
		t.Fatalf("below %d: walked %v; want %v", writes[1], rest, ids[2:])
	}
}

// consoleForksFolded forks a run at a node and at its root and restarts
// it: the store keeps each new run's link to the run it restarts, the
// fork's attempt far past the node's others, and indexes and overview
// equal to a refold of the log.
func consoleForksFolded(t *testing.T, s Store) {
	x := execute.New(s, Ring(t), Long(t, 3), workflow.Preferences{}, Clock, t.Logf)
	first, ok := x.Start(context.Background(), []byte(`{"workflowId":"wr.long","context":{"k":"v"}}`)).(protocol.StepResult)
	if !ok {
		t.Fatal("start failed")
	}
	res := protocol.Result(first)
	for i := 0; i < 2; i++ {
		res = x.Continue(context.Background(), mustJSON(t, res.(protocol.StepResult).NextCall.Arguments))
	}
	id, run1 := first.Session.SessionID, first.Session.RunID
	for _, c := range []struct {
		act  func(context.Context, execute.Place, []byte) (protocol.Result, execute.Place)
		node engine.NodeID
	}{
		{x.Fork, 3},    // a sibling of node_3, from node_2
		{x.Fork, 1},    // run_2, on the pinned version
		{x.Restart, 1}, // run_3, on the current one
	} {
		if r, _ := c.act(context.Background(), execute.Place{Session: id, Run: run1, Node: c.node}, []byte(`{"k":"w"}`)); r.ResultKind() != protocol.KindStep {
			t.Fatalf("fork or restart at %s: %s", c.node, r.RenderedText())
		}
	}
	if h, err := s.Health(id); err != nil || h.Status != execute.Healthy {
		t.Fatalf("health %+v, %v", h, err)
	}
	evs, _, err := s.Events(id)
	must(t, err)
	g, err := project.Fold(id, evs, nil)
	must(t, err)
	must(t, s.View(id, func(tx execute.ReadTx) error {
		for _, r := range g.Runs() {
			if stored, err := tx.Run(r.ID); err != nil || stored != r {
				t.Errorf("run %s: stored %+v, refold %+v (%v)", r.ID, stored, r, err)
			}
			if r.ID != run1 && r.RestartOf != run1 {
				t.Errorf("run %s restarts %s; want %s", r.ID, r.RestartOf, run1)
			}
			for _, n := range g.Nodes(r.ID) {
				if stored, err := tx.Node(n.ID); err != nil || !reflect.DeepEqual(stored, n) {
					t.Errorf("node %s: stored %+v, refold %+v (%v)", n.ID, stored, n, err)
				}
			}
		}
		at, ok := g.Attempt(2, 1+10_000)
		if ev, err := tx.RecordedAttempt(2, 1+10_000); !ok || err != nil || ev.Index != at {
			t.Errorf("the fork's attempt at node_2: %v, %v; refold says event %d", ev.Index, err, at)
		}
		return nil
	}))
	if got, want := mustOverview(t, s, id), wantOverview(t, s, id); !reflect.DeepEqual(got, want) || len(got.Runs) != 3 {
		t.Fatalf("stored overview\n%+v\nrefold\n%+v", got, want)
	}
}

// wantRecords folds every session's log into its resume record in
// memory, as a rebuild does, with the session's place in the write
// sequence as Recent walks it.
func wantRecords(t *testing.T, s Store) []*resume.Record {
	t.Helper()
	ids, err := s.SessionIDs()
	must(t, err)
	written := map[engine.SessionID]engine.Write{}
	must(t, s.Recent(0, func(id engine.SessionID, w execute.Write, _ project.Overview, err error) bool {
		must(t, err)
		written[id] = w
		return true
	}))
	var out []*resume.Record
	for _, id := range ids {
		evs, _, err := s.Events(id)
		must(t, err)
		g := project.NewGraph(id, func(ref engine.SnapshotRef) (snap run.Snapshot, err error) {
			err = s.View(id, func(tx execute.ReadTx) error { snap, err = tx.Snapshot(ref); return err })
			return snap, err
		})
		var o project.Overview
		r := &resume.Record{}
		for _, e := range evs {
			must(t, g.Add(e))
			must(t, o.Add(g, e))
			must(t, r.Add(g, e))
		}
		must(t, r.Refresh(g, o))
		r.Written = written[id]
		r.Name(func(h engine.WorkflowHash) (name string) {
			s.View(id, func(tx execute.ReadTx) error {
				c, err := tx.Workflow(h)
				name = c.Name
				return err
			})
			return name
		})
		out = append(out, r)
	}
	return out
}

// resumeIsTheFold ranks sessions shaped every way a run grows (blocked
// and forked by rewound chats, driven to completion, restarted from the
// Console into a second run) and compares the store's ranking with the
// ranking of records refolded from the logs, for every kind of query.
func resumeIsTheFold(t *testing.T, s Store) {
	forkedRuns(t, s)
	x := execute.New(s, Ring(t), Long(t, 3), workflow.Preferences{}, Clock, t.Logf)
	Drive(t, x, "wr.long", "")
	first, ok := x.Start(context.Background(), []byte(`{"workflowId":"wr.long"}`)).(protocol.StepResult)
	if !ok {
		t.Fatal("start failed")
	}
	if r, _ := x.Restart(context.Background(), execute.Place{Session: first.Session.SessionID, Run: first.Session.RunID, Node: 1}, []byte(`{}`)); r.ResultKind() != protocol.KindStep {
		t.Fatalf("restart: %s", r.RenderedText())
	}
	want := wantRecords(t, s)
	for _, q := range []resume.Query{
		{},
		resume.NewQuery("did s0", "", "", ""),
		resume.NewQuery("long", "", "", ""),
		resume.NewQuery("T", "", "", "/nowhere"),
		resume.NewQuery("", "main", "0123", ""),
	} {
		ranked, err := s.Resume(q)
		must(t, err)
		got := slices.Collect(ranked)
		if w := slices.Collect(resume.Rank(q, want)); !reflect.DeepEqual(got, w) {
			t.Errorf("query %+v ranks\n%+v\nrefold ranks\n%+v", q, got, w)
		}
		if len(got) != 3 {
			t.Errorf("query %+v: %d sessions ranked; want all 3", q, len(got))
		}
	}
	ranked, err := s.Resume(resume.NewQuery("did s0", "", "", ""))
	must(t, err)
	if got := slices.Collect(ranked); got[0].Tier != resume.TierNotes || got[0].Run.WorkflowName != "Long" || got[0].Run.Snippet == "" {
		t.Errorf("the driven run's notes do not match: %+v", got[0])
	}
}

// resumeWrittenLastFirst: within a tier, the session written last is
// offered first, however long its log: a long session written before a
// short one is offered second, and first again once it is written to; a
// rehydrate writes nothing and moves nothing.
func resumeWrittenLastFirst(t *testing.T, s Store) {
	x := execute.New(s, Ring(t), Long(t, 20), workflow.Preferences{}, Clock, t.Logf)
	ctx := context.Background()
	step := func(r protocol.Result) protocol.StepResult {
		t.Helper()
		st, ok := r.(protocol.StepResult)
		if !ok {
			t.Fatalf("want a step:\n%s", r.RenderedText())
		}
		return st
	}
	advance := func(r protocol.StepResult) protocol.StepResult {
		t.Helper()
		return step(x.Continue(ctx, mustJSON(t, NextArgs(t, r))))
	}
	long := step(x.Start(ctx, []byte(`{"workflowId":"wr.long"}`)))
	for range 10 {
		long = advance(long)
	}
	short := step(x.Start(ctx, []byte(`{"workflowId":"wr.long"}`)))
	offered := func(when string, first, second protocol.StepResult) {
		t.Helper()
		want := []engine.SessionID{first.Session.SessionID, second.Session.SessionID}
		for _, q := range []resume.Query{{}, resume.NewQuery("long", "", "", "")} {
			ms, err := x.Matches(q)
			must(t, err)
			var got []engine.SessionID
			for _, m := range ms {
				got = append(got, m.Session)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, query %+v offers %v; want %v", when, q, got, want)
			}
		}
	}
	offered("a short session started after a long one", short, long)
	step(x.Continue(ctx, mustJSON(t, map[string]string{"stateToken": long.StateToken})))
	offered("after a rehydrate of the long one", short, long)
	long = advance(long)
	offered("after an advance of the long one", long, short)
	short = advance(short)
	offered("after an advance of the short one", short, long)
}

// supersedesStored: an output that replaces an earlier one is stored
// with the link, the earlier one as it was, and read back through a
// refold and a rehydrate's recap; a reference that names no output of
// the path leaves the log as it was.
func supersedesStored(t *testing.T, s Store) {
	x := execute.New(s, Ring(t), Long(t, 4), workflow.Preferences{}, Clock, t.Logf)
	ctx := context.Background()
	step := func(r protocol.Result) protocol.StepResult {
		t.Helper()
		st, ok := r.(protocol.StepResult)
		if !ok {
			t.Fatalf("want a step:\n%s", r.RenderedText())
		}
		return st
	}
	send := func(r protocol.StepResult, notes string, replaces engine.EventID) protocol.Result {
		args := r.NextCall.Arguments
		args.Output = &protocol.Output{NotesMarkdown: notes, SupersedesOutputID: replaces}
		return x.Continue(ctx, mustJSON(t, args))
	}
	s1 := step(x.Start(ctx, []byte(`{"workflowId":"wr.long"}`)))
	s2 := step(send(s1, "Measured 12 ms.", ""))
	id := s2.Session.SessionID
	first := step(x.Continue(ctx, mustJSON(t, map[string]string{"stateToken": s2.StateToken}))).Recap.Entries[0].Output
	head, err := s.Digest(id)
	must(t, err)
	if r := send(s2, "Measured again.", engine.NewEventID(id, 1)); r.ResultKind() != protocol.KindError {
		t.Fatalf("a reference to session_created answered:\n%s", r.RenderedText())
	}
	if after, err := s.Digest(id); err != nil || after != head {
		t.Fatal("a refused reference changed the log")
	}
	s3 := step(send(s2, "Measured 21 ms: I had misread 12.", first))
	recap := step(x.Continue(ctx, mustJSON(t, map[string]string{"stateToken": s3.StateToken}))).Recap.Entries
	if len(recap) != 2 || recap[1].Supersedes != first || recap[0].NotesMarkdown != "Measured 12 ms." {
		t.Fatalf("recap %+v", recap)
	}
	evs, _, err := s.Events(id)
	must(t, err)
	var stored []engine.EventID
	for _, e := range evs {
		if d, ok := e.Data.(*event.NodeOutputAppendedData); ok {
			stored = append(stored, d.Supersedes)
		}
	}
	if !reflect.DeepEqual(stored, []engine.EventID{"", first}) {
		t.Fatalf("stored links %q", stored)
	}
	if got, want := mustOverview(t, s, id), wantOverview(t, s, id); !reflect.DeepEqual(got, want) {
		t.Fatalf("stored overview\n%+v\nrefold\n%+v", got, want)
	}
}

// projectionIsTheFold holds the projection a store keeps to a fold of
// the log in memory, for runs blocked, completed, forked by rewound
// chats, checkpointed (the call held from before a checkpoint goes on on
// the same line), forked and restarted from the Console.
func projectionIsTheFold(t *testing.T, s Store) {
	check := func(id engine.SessionID, runs int) {
		t.Helper()
		evs, _, err := s.Events(id)
		must(t, err)
		snap := func(ref engine.SnapshotRef) (snap run.Snapshot, err error) {
			err = s.View(id, func(tx execute.ReadTx) error { snap, err = tx.Snapshot(ref); return err })
			return snap, err
		}
		f, err := project.FoldAll(id, evs, snap)
		must(t, err)
		if got := f.Lineage.Runs(); len(got) != runs {
			t.Fatalf("%s: %d runs projected; want %d", id, len(got), runs)
		}
		for _, r := range f.Lineage.Runs() {
			want, err := f.Projection(r)
			must(t, err)
			got, err := s.Projection(id, r)
			must(t, err)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s %s: stored projection\n%+v\nrefold\n%+v", id, r, got, want)
			}
		}
	}
	_, forked := forkedRuns(t, s)
	check(forked, 1)

	x := execute.New(s, Ring(t), Long(t, 4), workflow.Preferences{}, Clock, t.Logf)
	first, ok := x.Start(context.Background(), []byte(`{"workflowId":"wr.long","context":{"k":"v"}}`)).(protocol.StepResult)
	if !ok {
		t.Fatal("start failed")
	}
	cp := x.Checkpoint(context.Background(), mustJSON(t, map[string]any{"stateToken": first.StateToken, "checkpointToken": first.CheckpointToken,
		"output": map[string]any{"notesMarkdown": "Halfway."}}))
	if cp.ResultKind() != protocol.KindStep {
		t.Fatalf("checkpoint: %s", cp.RenderedText())
	}
	next, ok := x.Continue(context.Background(), mustJSON(t, NextArgs(t, first))).(protocol.StepResult)
	if !ok {
		t.Fatal("the call held from before the checkpoint did not advance")
	}
	x.Continue(context.Background(), mustJSON(t, NextArgs(t, next)))
	id := first.Session.SessionID
	for _, act := range []func(context.Context, execute.Place, []byte) (protocol.Result, execute.Place){x.Fork, x.Restart} {
		if r, _ := act(context.Background(), execute.Place{Session: id, Run: first.Session.RunID, Node: 3}, []byte(`{"k":"w"}`)); r.ResultKind() != protocol.KindStep {
			t.Fatalf("fork or restart: %s", r.RenderedText())
		}
	}
	check(id, 2)
	p, err := s.Projection(id, first.Session.RunID)
	must(t, err)
	if len(p.Branches) != 2 || p.Branches[1].Origin != project.OriginConsoleFork || !slices.Equal(p.Branches[1].Changed, []string{"k"}) {
		t.Fatalf("branches %+v; want the first path and a Console fork changing k", p.Branches)
	}
	if row, _ := p.Row(1); len(row.Checkpoints) != 1 || !row.Done() {
		t.Fatalf("the first row %+v; want its checkpoint on it, done", row)
	}
	if _, err := s.Projection(id, 9); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("Projection of an unknown run = %v; want engine.ErrNotFound", err)
	}
}
