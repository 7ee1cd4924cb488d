package console

import (
	"slices"
	"testing"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/project"
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
	tests := []struct {
		name  string
		step  workflow.StepID
		at    []run.Frame
		text  string
		ahead []string
	}{
		{"the first step", "plan", []run.Frame{{Index: 0}}, "step 1 of 3", []string{"Try until it works", "Report"}},
		{"inside a loop", "form", []run.Frame{{Index: 1}, {Index: 0, Iteration: 1}},
			"step 2 of 3 · Try until it works iteration 2 (at most 5)", []string{"Test it", "Report"}},
		{"the loop's last step", "test", []run.Frame{{Index: 1}, {Index: 1, Iteration: 4}},
			"step 2 of 3 · Try until it works iteration 5 (at most 5)", []string{"Report"}},
		{"the last step", "report", []run.Frame{{Index: 2}}, "step 3 of 3", nil},
		{"complete", "", nil, "step 3 of 3", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := runView{P: project.Assemble(project.RunHead{Run: 1, Root: 1}, project.RunOverview{ID: 1, Tip: 1},
				[]project.Part{{Run: 1, Node: 1, Step: tt.step, At: tt.at}}), Pinned: pinned{Compiled: c}}
			if got := progressText(project.ProgressAt(c, tt.at)); got != tt.text || !slices.Equal(v.ahead(), tt.ahead) {
				t.Errorf("progress %q, ahead %q; want %q, %q", got, v.ahead(), tt.text, tt.ahead)
			}
			// The sessions list reads the same from the overview's cursor.
			status := project.InProgress
			if tt.step == "" {
				status, tt.text = project.Complete, ""
			}
			if got := overviewProgress(c, project.RunOverview{Status: status, At: tt.at}); got != tt.text {
				t.Errorf("overview progress %q, want %q", got, tt.text)
			}
		})
	}
}

// A row's outcome reads in badges, worst first, each a glyph and words.
func TestOutcomeInWords(t *testing.T) {
	tests := []struct {
		name   string
		o      project.Outcome
		badges []string
	}{
		{"nothing to review", project.Outcome{}, nil},
		{"open gaps", project.Outcome{OpenGaps: 9, Critical: 8, UserDependencies: 1}, []string{"⚠ 9 open gaps · critical", "☎ needs the user"}},
		{"a warning gap", project.Outcome{OpenGaps: 1}, []string{"⚠ 1 open gap · warning"}},
		{"blocked", project.Outcome{Blocked: 2}, []string{"■ blocked ×2"}},
		{"refused, and its gap not recorded", project.Outcome{Refused: 1, NotRecorded: 1}, []string{"⚠ 1 gap not recorded", "⊘ 1 output refused"}},
		{"divergence and capabilities", project.Outcome{Divergences: 1, Missing: 1, Observed: 2},
			[]string{"↯ 1 divergence", "✗ 1 capability missing", "◎ 2 capabilities observed"}},
		{"resolved gaps", project.Outcome{ResolvedGaps: 1}, []string{"✓ 1 gap resolved"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
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

// TestFilterLabel holds a filter's count to what it counts, the steps it
// lists, in words: five open gaps on four rows read "with gaps: 4 steps",
// never a bare "(4)" beside a header that says 5 open gaps.
func TestFilterLabel(t *testing.T) {
	v := runView{Counts: map[runFilter]int{filterAll: 15, filterGaps: 4, filterBlocked: 1, filterForks: 0}}
	for f, want := range map[runFilter]string{
		filterAll:     "all: 15 steps",
		filterGaps:    "with gaps: 4 steps",
		filterBlocked: "blocked: 1 step",
		filterForks:   "forks: 0 steps",
	} {
		if got := filterLabel(v, f); got != want {
			t.Errorf("filterLabel(%s) = %q, want %q", f, got, want)
		}
	}
}
