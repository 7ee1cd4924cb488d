package console

import (
	"slices"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/project/projecttest"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// looped is a workflow of three top-level steps, the second a loop of
// two: plan, then (form → test) up to 5 times, then report.
func looped(t *testing.T) *compile.Compiled {
	t.Helper()
	step := func(id, title string) compile.Node {
		return compile.Node{Step: &compile.Step{ID: workflow.StepID(id), Title: title}}
	}
	c, err := compile.Seal(compile.Workflow{Steps: []compile.Node{
		step("plan", "Plan it"),
		{Loop: &compile.Loop{ID: "tries", Title: "Try until it works", Spec: workflow.LoopSpec{MaxIterations: 5},
			Body: []compile.Node{step("form", "Form a guess"), step("test", "Test it")}}},
		step("report", "Report"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	return &c
}

func TestProgress(t *testing.T) {
	c := looped(t)
	at := func(step string, path ...run.Frame) run.Snapshot {
		return run.Snapshot{Position: run.Position{Kind: run.Pending, Step: workflow.StepID(step), Path: path}}
	}
	tests := []struct {
		name  string
		snap  run.Snapshot
		text  string
		ahead []string
	}{
		{"the first step", at("plan", run.Frame{Index: 0}), "step 1 of 3", []string{"Try until it works", "Report"}},
		{"inside a loop", at("form", run.Frame{Index: 1}, run.Frame{Index: 0, Iteration: 1}),
			"step 2 of 3 · Try until it works iteration 2 of 5", []string{"Test it", "Report"}},
		{"the loop's last step", at("test", run.Frame{Index: 1}, run.Frame{Index: 1, Iteration: 4}),
			"step 2 of 3 · Try until it works iteration 5 of 5", []string{"Report"}},
		{"the last step", at("report", run.Frame{Index: 2}), "step 3 of 3", nil},
		{"complete", run.Snapshot{Position: run.Position{Kind: run.Complete}}, "step 3 of 3", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := progressAt(c, tt.snap)
			if p.Text() != tt.text || !slices.Equal(p.Ahead, tt.ahead) {
				t.Errorf("progress %q, ahead %q; want %q, %q", p.Text(), p.Ahead, tt.text, tt.ahead)
			}
			// The sessions list reads the same from the overview's cursor.
			status := project.InProgress
			if tt.snap.Position.Kind == run.Complete {
				status, tt.text = project.Complete, ""
			}
			if got := overviewProgress(c, project.RunOverview{Status: status, At: tt.snap.Position.Path}); got != tt.text {
				t.Errorf("overview progress %q, want %q", got, tt.text)
			}
		})
	}
}

func TestOutcomeInWords(t *testing.T) {
	tests := []struct {
		name    string
		status  project.RunStatus
		o       project.Outcome
		verdict string
		badges  []string
	}{
		{"nothing to review", project.Complete, project.Outcome{}, "✓ complete", nil},
		{"open gaps on a complete run", project.Complete, project.Outcome{OpenGaps: 9, Critical: 8, UserDependencies: 1},
			"✓ complete · 9 open gaps (8 critical)", []string{"⚠ 9 gaps · critical", "☎ needs the user"}},
		{"a warning gap", project.InProgress, project.Outcome{OpenGaps: 1}, "▶ in progress · 1 open gap", []string{"⚠ 1 gap · warning"}},
		{"blocked", project.Blocked, project.Outcome{Blocked: 2}, "■ blocked · 2 blocked attempts", []string{"■ blocked ×2"}},
		{"divergence and capabilities", project.InProgress, project.Outcome{Divergences: 1, Missing: 1, Observed: 2},
			"▶ in progress · 1 divergence, 1 capability missing", []string{"↯ 1 divergence", "✗ 1 capability missing", "◎ 2 capabilities observed"}},
		{"resolved gaps", project.Complete, project.Outcome{ResolvedGaps: 1}, "✓ complete", []string{"✓ 1 gap resolved"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := verdict(tt.status, tt.o); got != tt.verdict {
				t.Errorf("verdict %q, want %q", got, tt.verdict)
			}
			var got []string
			for _, b := range badgesOf(tt.o) {
				got = append(got, b.Glyph+" "+b.Text)
			}
			if !slices.Equal(got, tt.badges) {
				t.Errorf("badges %q, want %q", got, tt.badges)
			}
		})
	}
}

// TestRowOutcomeShowsBlockedOnTheStepAttempted: attempts blocked at a
// node are attempts at the step pending there, shown on the row of the
// node that step made, and at the tip on the "next" line.
func TestRowOutcomeShowsBlockedOnTheStepAttempted(t *testing.T) {
	l := projecttest.New(t)
	r, root := l.Start(projecttest.At(0, "a"))
	l.Block(r, root, 0)
	n2 := l.Advance(r, root, 1, projecttest.At(1, "b"))
	l.Add(r, n2, &event.GapRecordedData{Reason: event.GapAssumptionMade, Severity: event.SeverityWarning, Summary: "s"})
	l.Block(r, n2, 0)
	g := l.Graph()
	all := project.Outcomes(g)
	row := func(id engine.NodeID) project.Outcome {
		n, err := g.Node(id)
		if err != nil {
			t.Fatal(err)
		}
		return rowOutcome(g, all, n, n2)
	}
	if o := row(root); o.Blocked != 0 {
		t.Errorf("the root's row shows %d blocked attempts; they were attempts at the step done into node_2", o.Blocked)
	}
	if o := row(n2); o.Blocked != 1 || o.OpenGaps != 1 {
		t.Errorf("node_2's row: %+v; want the root's blocked attempt and its own gap, not the tip's pending block", o)
	}
	if all[n2].Blocked != 1 {
		t.Errorf("the tip's own blocked attempts: %d, want 1 (the next line shows them)", all[n2].Blocked)
	}
}
