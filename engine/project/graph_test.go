package project_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
)

// The fold keeps exactly the records the store keeps: parents and
// children, attempts, outputs and the path count, gaps, last activity.
func TestFoldBuildsNodeAndRunRecords(t *testing.T) {
	s := newSession(t)
	r, root := s.run("a")
	n2 := s.advance(r, root, 0, "b", "first")
	s.block(r, n2, 0)
	gap := s.add(r, n2, &event.GapRecordedData{Reason: event.GapAssumptionMade, Severity: event.SeverityWarning, Summary: "assumed"})
	n3 := s.advance(r, n2, 1, "", "second")
	g := s.graph()

	run, err := g.Run(r)
	if err != nil || run.Root != root || run.WorkflowID != "wr.x" || run.StartedAt != 2 {
		t.Fatalf("run = %+v, %v", run, err)
	}
	cases := []struct {
		id   engine.NodeID
		want project.Node
	}{
		{root, project.Node{ID: root, Run: r, Kind: event.NodeStep, CreatedAt: 3, Children: []engine.NodeID{n2}, Attempts: 1, LastActivity: 4}},
		{n2, project.Node{ID: n2, Run: r, Kind: event.NodeStep, CreatedAt: 5, Parent: root, Children: []engine.NodeID{n3}, Attempts: 2,
			Outputs: []engine.EventIndex{7}, PathOutputs: 1, LastActivity: 10, Gaps: []engine.EventIndex{gap.Index}}},
		{n3, project.Node{ID: n3, Run: r, Kind: event.NodeStep, CreatedAt: 11, Parent: n2, Outputs: []engine.EventIndex{13}, PathOutputs: 2, LastActivity: 13}},
	}
	for _, c := range cases {
		got := mustNode(t, g, c.id)
		c.want.Snapshot = got.Snapshot
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.id, got, c.want)
		}
	}
	if at, ok := g.Attempt(n2, 0); !ok || at != 8 {
		t.Fatalf("attempt 0 at %s recorded at %d, %v; want 8", n2, at, ok)
	}
	if _, ok := g.Attempt(n2, 5); ok {
		t.Fatal("an attempt never made is recorded")
	}
	if g.Head() != engine.EventIndex(len(s.Events)) || len(g.Events()) != len(s.Events) {
		t.Fatalf("head %d, %d events; want %d", g.Head(), len(g.Events()), len(s.Events))
	}
	if got := g.Nodes(r); len(got) != 3 || got[0].ID != root || got[2].ID != n3 {
		t.Fatalf("nodes of the run in creation order = %+v", got)
	}
	if c := g.Created(); c.WorkspacePath != "/src/app" {
		t.Fatalf("created = %+v", c)
	}
}

func TestFoldRefusesWhatTheLogCannotHold(t *testing.T) {
	s := newSession(t)
	s.run("a")
	cases := []struct {
		name string
		evs  []event.Event
	}{
		{"an index out of order", []event.Event{s.Events[1]}},
		{"an edge from a node never created", append(append([]event.Event(nil), s.Events...),
			event.Event{ID: engine.NewEventID(sid, 4), Index: 4, Session: sid, Kind: event.EdgeCreated, Run: 1, Node: 1,
				Data: &event.EdgeCreatedData{EdgeKind: event.EdgeAckedStep, From: 9, To: 1}})},
		{"a gap on a node never created", append(append([]event.Event(nil), s.Events...),
			event.Event{ID: engine.NewEventID(sid, 4), Index: 4, Session: sid, Kind: event.GapRecorded, Run: 1, Node: 7,
				Data: &event.GapRecordedData{Reason: event.GapAssumptionMade, Severity: event.SeverityWarning, Summary: "x"}})},
		{"a restart of a run never started", append(append([]event.Event(nil), s.Events...),
			event.Event{ID: engine.NewEventID(sid, 4), Index: 4, Session: sid, Kind: event.RunStarted, Run: 2,
				Data: &event.RunStartedData{WorkflowID: "wr.x", RestartOf: 5}})},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := project.Fold(sid, c.evs, nil); !errors.Is(err, engine.ErrNotFound) {
				t.Fatalf("Fold = %v; want a not-found error", err)
			}
		})
	}
}

// A run started over (from the Console) names the run it restarts.
func TestFoldKeepsWhatARunRestarts(t *testing.T) {
	s := newSession(t)
	first, _ := s.run("a")
	s.add(first+1, 0, &event.RunStartedData{WorkflowID: "wr.x", RestartOf: first})
	g := s.graph()
	again, err := g.Run(first + 1)
	if err != nil || again.RestartOf != first {
		t.Fatalf("the restart's run record = %+v, %v; want restartOf %s", again, err, first)
	}
	if old, _ := g.Run(first); old.RestartOf != 0 {
		t.Fatalf("the first run restarts %s", old.RestartOf)
	}
}

func TestLookupsOfMissingRecordsAreNotFound(t *testing.T) {
	g := newSession(t).graph()
	_, errEvent := g.Event(9)
	_, errZero := g.Event(0)
	_, errNode := g.Node(3)
	_, errRun := g.Run(2)
	_, errSnap := project.NewGraph(sid, nil).Snapshot(engine.SnapshotRef{})
	for i, err := range []error{errEvent, errZero, errNode, errRun, errSnap} {
		if !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("lookup %d = %v; want engine.ErrNotFound", i, err)
		}
	}
}

// A clone can take further events without changing the original: the
// in-memory store relies on it to roll back a failed transaction.
func TestCloneIsIndependent(t *testing.T) {
	s := newSession(t)
	r, root := s.run("a")
	s.advance(r, root, 0, "b", "")
	cut := len(s.Events)
	fork := s.advance(r, root, 1, "b", "")
	g, err := project.Fold(sid, s.Events[:cut], s.Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	before := mustNode(t, g, root)
	c := g.Clone()
	for _, e := range s.Events[cut:] {
		if err := c.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	if got := mustNode(t, g, root); !reflect.DeepEqual(got, before) {
		t.Fatalf("the original changed: %+v", got)
	}
	if got := mustNode(t, c, root); len(got.Children) != 2 || g.Head() == c.Head() {
		t.Fatalf("the clone did not take the fork: %+v", got)
	}
	if _, err := c.Node(fork); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Node(fork); err == nil {
		t.Fatal("the original has the clone's new node")
	}
}
