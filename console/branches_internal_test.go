package console

import (
	"testing"

	"github.com/workrail/workrail/engine/project"
)

// The run's branches are stated by letter and state, in the order they
// were made: a letter never moves to another branch.
func TestBranchSentence(t *testing.T) {
	cases := []struct {
		name   string
		states []project.BranchStatus
		want   string
	}{
		{"one branch says nothing more than the verdict", []project.BranchStatus{project.BranchComplete}, ""},
		{"the first path left behind", []project.BranchStatus{project.BranchLeftBehind, project.BranchComplete, project.BranchCurrent},
			"3 branches: A ◇ left behind, B ✓ complete, C ▶ current"},
		{"a blocked branch left", []project.BranchStatus{project.BranchCurrent, project.BranchBlocked},
			"2 branches: A ▶ current, B ■ left blocked"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &project.Projection{}
			for i, s := range c.states {
				p.Branches = append(p.Branches, project.Branch{Letter: project.Letter(i), Status: s})
			}
			if got := branchSentence(p); got != c.want {
				t.Errorf("branchSentence = %q; want %q", got, c.want)
			}
		})
	}
}

// Each way a branch comes to be has its own words; a Console fork names
// the context keys it changed.
func TestBranchOriginText(t *testing.T) {
	cases := []struct {
		origin  project.Origin
		changed []string
		want    string
	}{
		{project.OriginFirst, nil, "the path taken first"},
		{project.OriginRestart, nil, "started over in the Console"},
		{project.OriginRewound, nil, "an agent went on from an older point of the run"},
		{project.OriginCheckpoint, nil, "an agent went on with a call it held from before a checkpoint"},
		{project.OriginConsoleFork, []string{"severity", "topic"}, "forked in the Console, context changed: severity, topic"},
		{project.OriginConsoleFork, nil, "forked in the Console, context unchanged"},
	}
	for _, c := range cases {
		if got := branchOriginText(c.origin, c.changed); got != c.want {
			t.Errorf("%s: %q; want %q", c.origin, got, c.want)
		}
	}
	for _, o := range project.Origins() {
		if branchOriginText(o, nil) == string(o) {
			t.Errorf("origin %s has no words", o)
		}
	}
}
