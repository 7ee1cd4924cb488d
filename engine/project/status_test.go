package project_test

import (
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/workflow"
)

func TestSummarizeReadsTheRunAtItsPreferredTip(t *testing.T) {
	cases := []struct {
		name  string
		build func(s *session) engine.RunID
		want  project.RunStatus
		step  workflow.StepID
		shape [3]int // nodes, branches, forks
	}{
		{"pending", func(s *session) engine.RunID {
			r, root := s.run("a")
			s.advance(r, root, 0, "b", "")
			return r
		}, project.InProgress, "b", [3]int{2, 1, 0}},
		{"blocked at the tip", func(s *session) engine.RunID {
			r, root := s.run("a")
			s.block(r, root, 0)
			return r
		}, project.Blocked, "a", [3]int{1, 1, 0}},
		{"unblocked by a later attempt", func(s *session) engine.RunID {
			r, root := s.run("a")
			s.block(r, root, 0)
			s.advance(r, root, 1, "b", "")
			return r
		}, project.InProgress, "b", [3]int{2, 1, 0}},
		{"complete, with a fork", func(s *session) engine.RunID {
			r, root := s.run("a")
			s.advance(r, root, 0, "b", "")
			s.advance(r, root, 1, "", "")
			return r
		}, project.Complete, "", [3]int{3, 2, 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSession(t)
			r := c.build(s)
			g := s.graph()
			run, _ := g.Run(r)
			sum, err := project.Summarize(g, run)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Status != c.want || sum.Pending != c.step || [3]int{sum.Nodes, sum.Branches, sum.Forks} != c.shape {
				t.Fatalf("summary = %s at %q, shape %d/%d/%d; want %s at %q, shape %v",
					sum.Status, sum.Pending, sum.Nodes, sum.Branches, sum.Forks, c.want, c.step, c.shape)
			}
			if sum.Preferences.Autonomy != workflow.Guided {
				t.Fatalf("preferences = %+v", sum.Preferences)
			}
		})
	}
}

func TestSummarizeNeedsItsRecords(t *testing.T) {
	s := newSession(t)
	r, _ := s.run("a")
	g := s.graph()
	run, _ := g.Run(r)
	run.Root = 42
	if _, err := project.Summarize(g, run); err == nil {
		t.Fatal("a run whose root does not exist was summarised")
	}
	s.Forget(mustNode(t, g, 1).Snapshot)
	run.Root = 1
	if _, err := project.Summarize(s.graph(), run); err == nil {
		t.Fatal("a tip whose snapshot is missing was summarised")
	}
}

// Fork provenance reads both ways: the branch knows where it came from,
// the fork point how many branches left it.
func TestForkProvenanceBothWays(t *testing.T) {
	s := newSession(t)
	r, root := s.run("a")
	a := s.advance(r, root, 0, "b", "")
	b := s.advance(r, root, 1, "b", "")
	c := s.advance(r, root, 2, "b", "")
	g := s.graph()
	if got := g.ForksOf(mustNode(t, g, root)); got != 2 {
		t.Fatalf("ForksOf(root) = %d; want 2", got)
	}
	for _, x := range []struct{ n, from engine.NodeID }{{a, 0}, {b, root}, {c, root}, {root, 0}} {
		if got := g.ForkedFrom(mustNode(t, g, x.n)); got != x.from {
			t.Errorf("ForkedFrom(%s) = %s; want %s", x.n, got, x.from)
		}
	}
	if k, ok := g.Edge(a); !ok || k != event.EdgeAckedStep {
		t.Fatalf("edge into %s = %s, %v", a, k, ok)
	}
	if _, ok := g.Edge(root); ok {
		t.Fatal("a root has an edge into it")
	}
}

func TestBlockedAttemptsObservationsAndPreferences(t *testing.T) {
	s := newSession(t)
	r, root := s.run("a")
	s.block(r, root, 0)
	n := s.advance(r, root, 1, "b", "")
	s.add(r, n, &event.CapabilityObservedData{Capability: workflow.WebBrowsing, Status: event.CapabilityAvailable, Provenance: event.ProbeStep})
	s.add(r, root, &event.CapabilityObservedData{Capability: workflow.Delegation, Status: event.CapabilityUnavailable, Provenance: event.ManualClaim})
	g := s.graph()
	bl := g.BlockedAttempts()
	if len(bl) != 1 || bl[0].Node != root || bl[0].Attempt != 0 || bl[0].Run != r || bl[0].Blockers[0].Code != event.BlockUserOnlyDependency {
		t.Fatalf("blocked attempts = %+v", bl)
	}
	if all, on := g.Observations(0), g.Observations(n); len(all) != 2 || len(on) != 1 || on[0].Capability != workflow.WebBrowsing || on[0].Node != n {
		t.Fatalf("observations: all %+v, on %s %+v", all, n, on)
	}
	if c := project.NewGraph(sid, nil).Created(); c.CreatedAt != "" {
		t.Fatalf("an empty log has a creation record: %+v", c)
	}
}
