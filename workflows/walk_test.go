package workflows_test

import (
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// maxAdvances bounds every scripted walk.
const maxAdvances = 200

// scenario is one run of a bundled workflow by the scripted agent.
type scenario struct {
	name string
	ctx  map[string]any            // context sent with start_workflow
	send map[string]map[string]any // context the agent sends when it completes a step
	// skip is every top-level authored step or loop the run passes over.
	skip []string
	// loops is how each entered loop ends: "<exit reason>/<iterations>".
	loops map[string]string
}

func files(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = fmt.Sprintf("pkg/file%02d.go", i)
	}
	return out
}

var scenarios = map[string][]scenario{
	"wr.session": {{name: "defaults"}},
	"wr.hello": {
		{name: "defaults"},
		{name: "no workspace", ctx: map[string]any{"hasWorkspace": false}, skip: []string{"look-around"}},
		{name: "workspace", ctx: map[string]any{"hasWorkspace": true}},
	},
	"wr.bug_investigation": {
		{name: "defaults", skip: []string{"fix"},
			loops: map[string]string{"hypotheses": "stop_requested/2"}},
		{name: "quick reproduced diagnosis", ctx: map[string]any{"depth": "quick", "hasReproduction": true, "fixRequested": false},
			skip:  []string{"collect-evidence", "blast-radius", "fix"},
			loops: map[string]string{"hypotheses": "stop_requested/2"}},
		{name: "standard needs evidence and fix", ctx: map[string]any{"depth": "standard", "hasReproduction": false, "fixRequested": true},
			loops: map[string]string{"hypotheses": "stop_requested/2"}},
		{name: "thorough reproduced fix", ctx: map[string]any{"depth": "thorough", "hasReproduction": true, "fixRequested": true},
			skip:  []string{"collect-evidence"},
			loops: map[string]string{"hypotheses": "stop_requested/2"}},
		{name: "cause confirmed by context", ctx: map[string]any{"depth": "standard"},
			send:  map[string]map[string]any{"test-hypothesis": {"rootCauseConfirmed": true}},
			skip:  []string{"fix"},
			loops: map[string]string{"hypotheses": "condition_met/1"}},
	},
	"wr.code_review": {
		{name: "defaults: whole diff", skip: []string{"per-file", "verify-locally"}},
		{name: "quick three files", ctx: map[string]any{"reviewDepth": "quick", "changedFiles": files(3)},
			skip:  []string{"review-diff", "cross-cutting", "verify-locally"},
			loops: map[string]string{"per-file": "items_done/3"}},
		{name: "standard files sent after gathering", ctx: map[string]any{"reviewDepth": "standard"},
			send:  map[string]map[string]any{"gather-context": {"changedFiles": files(2)}},
			skip:  []string{"review-diff", "verify-locally"},
			loops: map[string]string{"per-file": "items_done/2"}},
		{name: "thorough whole diff", ctx: map[string]any{"reviewDepth": "thorough"}, skip: []string{"per-file"}},
		{name: "more files than the bound", ctx: map[string]any{"reviewDepth": "thorough", "changedFiles": files(61)},
			skip:  []string{"review-diff"},
			loops: map[string]string{"per-file": "max_iterations/60"}},
		{name: "empty file list", ctx: map[string]any{"changedFiles": []any{}},
			skip: []string{"per-file", "review-diff", "verify-locally"}},
	},
	"wr.feature_implementation": {
		{name: "small", ctx: map[string]any{"complexity": "small"}, skip: []string{"design", "harden"},
			loops: map[string]string{"implement": "stop_requested/2"}},
		{name: "medium", ctx: map[string]any{"complexity": "medium"},
			loops: map[string]string{"implement": "stop_requested/2"}},
		{name: "large", ctx: map[string]any{"complexity": "large"},
			loops: map[string]string{"implement": "stop_requested/2"}},
		{name: "done by context", ctx: map[string]any{"complexity": "large"},
			send:  map[string]map[string]any{"verify-slice": {"implementationComplete": true}},
			loops: map[string]string{"implement": "condition_met/1"}},
	},
	"wr.exploration": {
		{name: "defaults: user declines deep dives", skip: []string{"deep-dives"},
			loops: map[string]string{"open-questions": "stop_requested/2"}},
		{name: "user picks areas", ctx: map[string]any{"depth": "standard"},
			send:  map[string]map[string]any{"choose-focus": {"focusAreas": []any{"billing", "retries"}}},
			loops: map[string]string{"deep-dives": "items_done/2", "open-questions": "stop_requested/2"}},
		{name: "quick with areas", ctx: map[string]any{"depth": "quick", "focusAreas": []any{"auth"}},
			skip:  []string{"build-and-run", "choose-focus", "open-questions"},
			loops: map[string]string{"deep-dives": "items_done/1"}},
		{name: "thorough too many areas", ctx: map[string]any{"depth": "thorough", "focusAreas": files(9)},
			skip:  []string{"choose-focus"},
			loops: map[string]string{"deep-dives": "max_iterations/8", "open-questions": "stop_requested/2"}},
	},
	"wr.design_thinking": {
		{name: "defaults", skip: []string{"test-plan"},
			loops: map[string]string{"ideate": "count_done/3"}},
		{name: "quick without research", ctx: map[string]any{"depth": "quick", "hasUserResearch": false},
			skip:  []string{"user-evidence", "prototype", "test-plan"},
			loops: map[string]string{"ideate": "count_done/3"}},
		{name: "standard with research", ctx: map[string]any{"depth": "standard", "hasUserResearch": true},
			skip:  []string{"test-plan"},
			loops: map[string]string{"ideate": "count_done/3"}},
		{name: "thorough", ctx: map[string]any{"depth": "thorough"},
			loops: map[string]string{"ideate": "count_done/3"}},
	},
	"wr.documentation": {
		{name: "tutorial in one pass", ctx: map[string]any{"docType": "tutorial"},
			skip:  []string{"draft-sections", "check-completeness"},
			loops: map[string]string{"edit": "stop_requested/2"}},
		{name: "how_to sections after approval", ctx: map[string]any{"docType": "how_to"},
			send:  map[string]map[string]any{"approve-outline": {"sections": []any{"Prerequisites", "Steps", "Troubleshooting"}}},
			skip:  []string{"draft-all", "check-completeness"},
			loops: map[string]string{"draft-sections": "items_done/3", "edit": "stop_requested/2"}},
		{name: "reference", ctx: map[string]any{"docType": "reference", "sections": []any{"Commands", "Flags"}},
			skip:  []string{"draft-all"},
			loops: map[string]string{"draft-sections": "items_done/2", "edit": "stop_requested/2"}},
		{name: "explanation passes cold read", ctx: map[string]any{"docType": "explanation"},
			send:  map[string]map[string]any{"edit-pass": {"coldReadPassed": true}},
			skip:  []string{"draft-sections", "check-completeness"},
			loops: map[string]string{"edit": "condition_met/1"}},
		{name: "readme", ctx: map[string]any{"docType": "readme"},
			skip:  []string{"draft-sections", "check-completeness"},
			loops: map[string]string{"edit": "stop_requested/2"}},
	},
}

// walkResult is what one scripted run saw.
type walkResult struct {
	ran      map[workflow.StepID]int
	skipped  map[workflow.StepID]event.Skip
	exits    map[workflow.StepID]event.LoopExit
	advances int
}

// walk runs c to completion as a scripted agent that always does the
// pending step, sends sc.send after the named steps, and asks a loop to
// stop from a loop_control step in its second iteration.
func walk(t *testing.T, c compile.Compiled, sc scenario) walkResult {
	t.Helper()
	maxIter := map[workflow.StepID]int{}
	compile.Walk(c.Steps, func(n compile.Node) {
		if n.Loop != nil {
			maxIter[n.Loop.ID] = n.Loop.Spec.MaxIterations
		}
	})
	r := walkResult{ran: map[workflow.StepID]int{}, skipped: map[workflow.StepID]event.Skip{}, exits: map[workflow.StepID]event.LoopExit{}}
	record := func(mv run.Move) {
		for _, s := range mv.Skipped {
			if s.Reason == event.ConditionFalse && s.Condition == "" {
				t.Errorf("skip of %s records no condition", s.StepID)
			}
			r.skipped[s.StepID] = s
		}
		for _, e := range mv.LoopExits {
			if e.Iterations > maxIter[e.LoopID] {
				t.Errorf("loop %s ran %d iterations; maxIterations is %d", e.LoopID, e.Iterations, maxIter[e.LoopID])
			}
			r.exits[e.LoopID] = e
		}
	}
	mv, err := run.Start(c, sc.ctx, workflow.Preferences{})
	if err != nil {
		t.Fatal(err)
	}
	record(mv)
	for mv.Snapshot.Position.Kind == run.Pending {
		if r.advances >= maxAdvances {
			t.Fatalf("not complete after %d advances; pending %s", r.advances, mv.Snapshot.Position.Step)
		}
		place, ok := run.PendingStep(c, mv.Snapshot)
		if !ok || place.Step.ID != mv.Snapshot.Position.Step {
			t.Fatalf("pending step %q does not resolve", mv.Snapshot.Position.Step)
		}
		r.ran[place.Step.ID]++
		stop := false
		for i, lp := range place.Loops {
			if lp.Iteration < 1 || lp.Iteration > lp.MaxIterations {
				t.Fatalf("step %s in iteration %d of loop %s (maxIterations %d)", place.Step.ID, lp.Iteration, lp.LoopID, lp.MaxIterations)
			}
			if lp.ItemName != "" && lp.Item == nil {
				t.Errorf("forEach loop %s shows no %s in iteration %d", lp.LoopID, lp.ItemName, lp.Iteration)
			}
			innermost := i == len(place.Loops)-1
			if innermost && lp.Iteration == 2 && place.Step.Output != nil && place.Step.Output.ContractRef == workflow.ContractLoopControl {
				stop = true
			}
		}
		mv, err = run.Advance(c, mv.Snapshot, sc.send[string(place.Step.ID)], stop)
		if err != nil {
			t.Fatalf("advance past %s: %v", place.Step.ID, err)
		}
		r.advances++
		record(mv)
	}
	if _, err := run.Advance(c, mv.Snapshot, nil, false); err == nil {
		t.Error("advancing a complete run succeeded")
	}
	return r
}

// TestScriptedWalk walks every bundled workflow to completion under each
// of its scenarios and checks which steps ran, which were skipped (always
// with a recorded reason), and how every loop ended.
func TestScriptedWalk(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range bundledFiles(t) {
		w, c := mustCompile(t, f.name, f.src)
		id := string(w.ID)
		seen[id] = true
		list, ok := scenarios[id]
		if !ok || len(list) == 0 {
			t.Errorf("%s has no walk scenarios", id)
			continue
		}
		for _, sc := range list {
			t.Run(id+"/"+sc.name, func(t *testing.T) {
				r := walk(t, c, sc)
				checkWalk(t, w, c, sc, r)
			})
		}
	}
	for id := range scenarios {
		if !seen[id] {
			t.Errorf("scenarios for %s, which is not bundled", id)
		}
	}
}

func checkWalk(t *testing.T, w workflow.Workflow, c compile.Compiled, sc scenario, r walkResult) {
	t.Helper()
	var skipped []string
	for _, n := range w.Steps {
		id := n.ID()
		_, isSkipped := r.skipped[id]
		ran := r.ran[id] > 0
		if n.Loop != nil {
			_, ran = r.exits[id]
			if isSkipped && r.skipped[id].Reason != event.LoopNotEntered {
				t.Errorf("loop %s skipped for %s", id, r.skipped[id].Reason)
			}
		} else if isSkipped && r.skipped[id].Reason != event.ConditionFalse {
			t.Errorf("step %s skipped for %s", id, r.skipped[id].Reason)
		}
		if ran == isSkipped {
			t.Errorf("%s: ran=%v skipped=%v; want exactly one", id, ran, isSkipped)
		}
		if isSkipped {
			skipped = append(skipped, string(id))
		}
	}
	want := slices.Clone(sc.skip)
	sort.Strings(want)
	sort.Strings(skipped)
	if !slices.Equal(skipped, want) {
		t.Errorf("skipped %v; want %v", skipped, want)
	}
	got := map[string]string{}
	for id, e := range r.exits {
		got[string(id)] = fmt.Sprintf("%s/%d", e.Reason, e.Iterations)
	}
	if fmt.Sprint(got) != fmt.Sprint(orEmpty(sc.loops)) {
		t.Errorf("loop exits %v; want %v", got, sc.loops)
	}
	// Unconditional top-level steps, including the ones WorkRail injects,
	// run exactly once.
	for _, n := range c.Steps {
		if n.Step != nil && n.Step.RunCondition == nil && r.ran[n.Step.ID] != 1 {
			t.Errorf("unconditional step %s ran %d times", n.Step.ID, r.ran[n.Step.ID])
		}
	}
}

func orEmpty(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// TestWalkScenariosCoverEnums checks that each closed-set string input of
// each bundled workflow is exercised with every one of its values.
func TestWalkScenariosCoverEnums(t *testing.T) {
	for _, f := range bundledFiles(t) {
		w, _ := mustCompile(t, f.name, f.src)
		for _, in := range w.Context {
			if in.Type != workflow.TypeString || len(in.Enum) == 0 {
				continue
			}
			used := map[string]bool{}
			for _, sc := range scenarios[string(w.ID)] {
				if v, ok := sc.ctx[in.Name].(string); ok {
					used[fmt.Sprintf("%q", v)] = true
				}
			}
			for _, e := range in.Enum {
				if !used[string(e)] {
					t.Errorf("%s: no scenario sets %s to %s", w.ID, in.Name, e)
				}
			}
		}
	}
}
