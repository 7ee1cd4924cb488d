package console

import (
	"testing"

	"github.com/workrail/workrail/console/lanes"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/workflow"
)

// The run's state covers every branch: counts by state, complete first,
// then where the current branch (A) stands.
func TestBranchSentence(t *testing.T) {
	type b struct {
		status  project.RunStatus
		pending workflow.StepID
	}
	cases := []struct {
		name     string
		branches []b
		want     string
	}{
		{"one branch says nothing more than the status", []b{{project.Complete, ""}}, ""},
		{"the issue's run", []b{{project.InProgress, "wrap-up"}, {project.Complete, ""}, {project.Complete, ""}},
			"2 branches complete, 1 in progress; current branch A at wrap-up"},
		{"a completed run forked once", []b{{project.InProgress, "triage"}, {project.Complete, ""}},
			"1 branch complete, 1 in progress; current branch A at triage"},
		{"all complete", []b{{project.Complete, ""}, {project.Complete, ""}, {project.Complete, ""}}, "3 branches, all complete; current branch A complete"},
		{"blocked current branch", []b{{project.Blocked, "ask"}, {project.InProgress, "b"}, {project.InProgress, "c"}},
			"1 branch blocked, 2 in progress; current branch A blocked at ask"},
		{"every state", []b{{project.Complete, ""}, {project.Blocked, "x"}, {project.InProgress, "y"}, {project.InProgress, "z"}},
			"1 branch complete, 1 blocked, 2 in progress; current branch A complete"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var l lanes.Layout
			for i, br := range c.branches {
				l.Branches = append(l.Branches, lanes.Branch{Label: lanes.Letter(i), State: project.BranchState{Status: br.status, Pending: br.pending}})
			}
			if got := branchSentence(l); got != c.want {
				t.Errorf("branchSentence = %q; want %q", got, c.want)
			}
		})
	}
}

// Each way a branch comes to be has its own words; a Console fork names
// the context it changed.
func TestBranchLabel(t *testing.T) {
	cases := []struct {
		info branchInfo
		want string
	}{
		{branchInfo{Origin: origin{Kind: originRewound}, From: 2, After: "triage"}, "↳ forked from node_2 after triage: an agent rewound"},
		{branchInfo{Origin: origin{Kind: originConsole, Context: []string{"severity", "topic"}}, From: 2, After: "triage"},
			"↳ forked from node_2 after triage: forked in the Console, context changed: severity, topic"},
		{branchInfo{Origin: origin{Kind: originConsole}, From: 7}, "↳ forked from node_7: forked in the Console, context unchanged"},
		{branchInfo{Origin: origin{Kind: originFirst}, From: 2, After: "b"}, "from node_2 after b: the path taken first"},
		{branchInfo{Origin: origin{Kind: originCheckpoint}, From: 9, After: "d"}, "at node_9 after d: a checkpoint left behind"},
	}
	for _, c := range cases {
		if got := c.info.Label(); got != c.want {
			t.Errorf("Label = %q; want %q", got, c.want)
		}
	}
}
