package project_test

import (
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
)

// The preferred tip is the leaf whose reachable history saw the latest
// activity: the highest event index on the path from the root to it.
func TestPreferredTipFollowsTheLockedRule(t *testing.T) {
	t.Run("the newest leaf", func(t *testing.T) {
		s := newSession(t)
		r, root := s.run("a")
		s.advance(r, root, 0, "b", "")
		b := s.advance(r, root, 1, "b", "")
		if tip := tipOf(t, s, r); tip != b {
			t.Fatalf("tip = %s; want %s", tip, b)
		}
	})
	t.Run("activity deep in a branch outranks a newer shallow fork", func(t *testing.T) {
		// Branch a: a1 (old) → a2 → a3, whose notes come last. Branch b was
		// forked after a1 but before a3's activity. A greedy walk by the
		// children's own activity would pick b.
		s := newSession(t)
		r, root := s.run("a")
		a1 := s.advance(r, root, 0, "b", "")
		b := s.advance(r, root, 1, "b", "")
		a2 := s.advance(r, a1, 0, "c", "")
		a3 := s.advance(r, a2, 0, "d", "late")
		if tip := tipOf(t, s, r); tip != a3 {
			t.Fatalf("tip = %s; want %s (branch b is %s)", tip, a3, b)
		}
	})
	t.Run("activity on an ancestor counts for every leaf below it", func(t *testing.T) {
		// A blocked attempt at a1 after b was created makes a1's history
		// the most recent: its only leaf a2 wins.
		s := newSession(t)
		r, root := s.run("a")
		a1 := s.advance(r, root, 0, "b", "")
		a2 := s.advance(r, a1, 0, "c", "")
		s.advance(r, root, 1, "b", "")
		s.block(r, a1, 1)
		if tip := tipOf(t, s, r); tip != a2 {
			t.Fatalf("tip = %s; want %s", tip, a2)
		}
	})
	t.Run("equal activity: the later node_created", func(t *testing.T) {
		// Activity on the root after both leaves exist ties every leaf at
		// the root's index.
		s := newSession(t)
		r, root := s.run("a")
		s.advance(r, root, 0, "b", "")
		b := s.advance(r, root, 1, "b", "")
		s.block(r, root, 2)
		if tip := tipOf(t, s, r); tip != b {
			t.Fatalf("tip = %s; want %s", tip, b)
		}
	})
	t.Run("a run of one node", func(t *testing.T) {
		s := newSession(t)
		r, root := s.run("a")
		if tip := tipOf(t, s, r); tip != root {
			t.Fatalf("tip = %s; want the root", tip)
		}
	})
}

func tipOf(t *testing.T, s *session, r engine.RunID) engine.NodeID {
	t.Helper()
	g := s.graph()
	run, err := g.Run(r)
	if err != nil {
		t.Fatal(err)
	}
	tip, err := project.PreferredTip(g, mustNode(t, g, run.Root))
	if err != nil {
		t.Fatal(err)
	}
	return tip.ID
}

// A record that cannot be read is an error, not a silently wrong tip.
func TestPreferredTipReportsMissingNodes(t *testing.T) {
	s := newSession(t)
	r, root := s.run("a")
	s.advance(r, root, 0, "b", "")
	g := s.graph()
	broken := mustNode(t, g, root)
	broken.Children = append(broken.Children, 99)
	if _, err := project.PreferredTip(g, broken); err == nil {
		t.Fatal("a child that does not exist went unnoticed")
	}
	if _, err := project.Branches(g, broken); err == nil {
		t.Fatal("Branches: a child that does not exist went unnoticed")
	}
	orphan := project.Node{ID: 50, Parent: 49}
	if _, err := project.Branches(g, orphan); err == nil {
		t.Fatal("Branches: a parent that does not exist went unnoticed")
	}
	if _, err := project.Recap(g, orphan, 0); err == nil {
		t.Fatal("Recap: a parent that does not exist went unnoticed")
	}
	if _, err := project.Recap(g, mustNode(t, g, root), 77); err == nil {
		t.Fatal("Recap: a stop node that does not exist went unnoticed")
	}
	bad := mustNode(t, g, root)
	bad.Outputs = []engine.EventIndex{2} // run_started, not an output
	if _, err := project.Recap(g, bad, 0); err == nil {
		t.Fatal("Recap: an output index naming another kind of event went unnoticed")
	}
	bad.Outputs = []engine.EventIndex{500}
	if _, err := project.Recap(g, bad, 0); err == nil {
		t.Fatal("Recap: an output index past the log went unnoticed")
	}
	_ = event.NodeStep
}
