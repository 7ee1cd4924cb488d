package project_test

import (
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/project"
)

// Every leaf is a branch, read at the leaf: one complete, one blocked and
// one in progress, whichever is the preferred tip.
func TestBranchStatesReadEveryLeaf(t *testing.T) {
	s := newSession(t)
	r, root := s.run("a")
	b := s.advance(r, root, 0, "b", "")
	done := s.advance(r, b, 0, "", "")     // the first branch completes
	blocked := s.advance(r, b, 1, "c", "") // a rewound chat forks b
	s.block(r, blocked, 0)
	open := s.advance(r, root, 1, "b", "") // and another forks the root
	g := s.graph()
	run, _ := g.Run(r)
	got, err := project.BranchStates(g, run)
	if err != nil {
		t.Fatal(err)
	}
	type state struct {
		leaf    engine.NodeID
		status  project.RunStatus
		pending string
	}
	want := []state{{done, project.Complete, ""}, {blocked, project.Blocked, "c"}, {open, project.InProgress, "b"}}
	if len(got) != len(want) {
		t.Fatalf("%d branches; want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if g := (state{got[i].Leaf.ID, got[i].Status, string(got[i].Pending)}); g != w {
			t.Errorf("branch %d = %+v; want %+v", i, g, w)
		}
	}
	sum, _ := project.Summarize(g, run)
	if sum.Branches != len(got) {
		t.Errorf("Summarize counts %d branches, BranchStates %d", sum.Branches, len(got))
	}
}
