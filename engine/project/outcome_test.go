package project_test

import (
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/project/projecttest"
)

// TestOutcomesFoldEveryFact: each fact lands on the node it was
// recorded on, once; resolved gaps stop counting as open.
func TestOutcomesFoldEveryFact(t *testing.T) {
	l := projecttest.New(t)
	r, root := l.Start(projecttest.At(0, "a"))
	n2 := l.Advance(r, root, 0, projecttest.At(1, "b"))
	gap := func(n engine.NodeID, sev event.GapSeverity, reason event.GapReason, resolves engine.EventID) engine.EventID {
		return l.Add(r, n, &event.GapRecordedData{Reason: reason, Severity: sev, Summary: "s", ResolvesGapID: resolves}).ID
	}
	gap(n2, event.SeverityCritical, event.GapAssumptionMade, "")
	gap(n2, event.SeverityWarning, event.GapUserOnlyDependency, "")
	fixed := gap(n2, event.SeverityCritical, event.GapAssumptionMade, "")
	l.Add(r, n2, &event.DivergenceRecordedData{Reason: event.DivergeScopeChange, Summary: "x"})
	l.Add(r, n2, &event.CapabilityObservedData{Capability: "web_browsing", Status: event.CapabilityUnavailable})
	l.Add(r, n2, &event.CapabilityObservedData{Capability: "delegation", Status: event.CapabilityAvailable})
	l.Block(r, n2, 0)
	l.Block(r, n2, 1)
	n3 := l.Advance(r, n2, 2, projecttest.At(2, "c"))
	gap(n3, event.SeverityWarning, event.GapAssumptionMade, fixed)
	cp := l.Checkpoint(r, n3, "notes")
	got := project.Outcomes(l.Graph())

	tests := []struct {
		node  engine.NodeID
		want  project.Outcome
		worst project.Worst
	}{
		{root, project.Outcome{}, project.WorstNone},
		{n2, project.Outcome{OpenGaps: 2, Critical: 1, UserDependencies: 1, ResolvedGaps: 1, Blocked: 2, Divergences: 1, Missing: 1, Observed: 1}, project.WorstCritical},
		{n3, project.Outcome{}, project.WorstNone}, // a resolution is linkage, not a gap
		{cp, project.Outcome{Checkpoints: 1}, project.WorstNone},
	}
	for _, tt := range tests {
		if got[tt.node] != tt.want {
			t.Errorf("%s: outcome %+v, want %+v", tt.node, got[tt.node], tt.want)
		}
		if w := got[tt.node].Worst(); w != tt.worst {
			t.Errorf("%s: worst %s, want %s", tt.node, w, tt.worst)
		}
	}
}

// TestOutcomeWorstAndSum: a fold's outcome sums its nodes', and how bad
// it is follows the worst of them.
func TestOutcomeWorstAndSum(t *testing.T) {
	tests := []struct {
		name string
		a, b project.Outcome
		want project.Worst
	}{
		{"nothing", project.Outcome{}, project.Outcome{}, project.WorstNone},
		{"a warning gap", project.Outcome{OpenGaps: 1}, project.Outcome{}, project.WorstWarning},
		{"a divergence", project.Outcome{}, project.Outcome{Divergences: 1}, project.WorstWarning},
		{"a missing capability", project.Outcome{Missing: 1}, project.Outcome{}, project.WorstWarning},
		{"blocked beats a warning", project.Outcome{OpenGaps: 1}, project.Outcome{Blocked: 1}, project.WorstBlocked},
		{"critical beats blocked", project.Outcome{Blocked: 3}, project.Outcome{OpenGaps: 1, Critical: 1}, project.WorstCritical},
		{"resolved and observed are no trouble", project.Outcome{ResolvedGaps: 2, Observed: 1, Checkpoints: 1}, project.Outcome{}, project.WorstNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sum := tt.a.Add(tt.b)
			if sum.Worst() != tt.want {
				t.Errorf("worst of %+v = %s, want %s", sum, sum.Worst(), tt.want)
			}
			if sum.OpenGaps != tt.a.OpenGaps+tt.b.OpenGaps || sum.Blocked != tt.a.Blocked+tt.b.Blocked || sum.Checkpoints != tt.a.Checkpoints+tt.b.Checkpoints {
				t.Errorf("sum %+v of %+v and %+v", sum, tt.a, tt.b)
			}
		})
	}
}
