package compile_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/workflow"
)

const routineSrc = `{"id":"user.routine-check","kind":"routine","name":"Check","description":"Checks one thing.","version":"1",
 "metaGuidance":["Report only what you verified."],
 "context":[{"name":"depth","type":"number","description":"How deep."}],
 "steps":[
  {"id":"look","title":"Look at {target}","prompt":"Look at {target}; keep {{notes}} as is."},
  {"id":"dig","title":"Dig","prompt":"Dig into {target}.","runCondition":{"var":"depth","gte":2}}]}`

func mustParse(t *testing.T, src string) workflow.Workflow {
	t.Helper()
	w, err := workflow.Parse([]byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return w
}

func caller(args string) string {
	return `{"id":"user.caller","name":"Caller","description":"Calls a routine.","version":"1",
 "context":[{"name":"deep","type":"boolean","description":"Go deep?"}],
 "steps":[{"id":"first","title":"First","prompt":"Start."},
  {"id":"call","title":"Call","runCondition":{"var":"deep","equals":true},"template":{"id":"user.routine-check","args":` + args + `}}]}`
}

func TestRoutineExpansion(t *testing.T) {
	routine := mustParse(t, routineSrc)
	find := func(id engine.WorkflowID) (workflow.Workflow, bool) { return routine, id == routine.ID }
	c, warnings, err := compile.CompileWith(mustParse(t, caller(`{"target":"the API","extra":1}`)), compile.Options{Routines: find})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Steps) != 3 {
		t.Fatalf("steps = %d; want first + the routine's two", len(c.Steps))
	}
	look, ok := c.Step("call--look")
	if !ok {
		t.Fatalf("no step call--look; ids: %v, %v", c.Steps[1].ID(), c.Steps[2].ID())
	}
	if look.Title != "Look at the API" || !strings.Contains(look.Prompt, "Look at the API; keep {{notes}} as is.") {
		t.Errorf("arguments not substituted (or {{notes}} touched): %q\n%s", look.Title, look.Prompt)
	}
	want := compile.Provenance{Origin: compile.FromTemplate, By: "user.routine-check"}
	if look.Provenance != want {
		t.Errorf("provenance = %+v; want %+v", look.Provenance, want)
	}
	if look.RunCondition == nil || look.RunCondition.Var != "deep" {
		t.Errorf("the caller's runCondition is not on a step without one: %+v", look.RunCondition)
	}
	dig, _ := c.Step("call--dig")
	if dig.RunCondition == nil || dig.RunCondition.Var != "depth" {
		t.Errorf("a routine step's own runCondition was replaced: %+v", dig.RunCondition)
	}
	if len(look.Injections) != 1 || look.Injections[0].Provenance != want || !strings.Contains(look.Prompt, "Guidance:\n- Report only what you verified.") {
		t.Errorf("the routine's metaGuidance is not guidance on its steps: %+v\n%s", look.Injections, look.Prompt)
	}
	if len(c.Context) != 2 || c.Context[1].Name != "depth" {
		t.Errorf("the routine's context inputs did not join the workflow's: %+v", c.Context)
	}
	if len(warnings) != 1 || warnings[0].Pointer != "/steps/1/template/args/extra" {
		t.Errorf("warnings = %+v; want the unused argument", warnings)
	}
}

func TestRoutineExpansionRefuses(t *testing.T) {
	routine := mustParse(t, routineSrc)
	plainWorkflow := mustParse(t, strings.Replace(routineSrc, `"kind":"routine",`, "", 1))
	cases := []struct {
		name, args string
		find       func(engine.WorkflowID) (workflow.Workflow, bool)
		message    string
	}{
		{"missing argument", `{}`, func(engine.WorkflowID) (workflow.Workflow, bool) { return routine, true }, "without the argument(s) target"},
		{"not found", `{"target":"x"}`, nil, "neither among the workflows loaded with it nor bundled"},
		{"not a routine", `{"target":"x"}`, func(engine.WorkflowID) (workflow.Workflow, bool) { return plainWorkflow, true }, "not a routine"},
		{"object argument", `{"target":{"a":1}}`, func(engine.WorkflowID) (workflow.Workflow, bool) { return routine, true }, "string, number or boolean"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := compile.CompileWith(mustParse(t, caller(tc.args)), compile.Options{Routines: tc.find})
			if err == nil || !strings.Contains(err.Error(), tc.message) {
				t.Fatalf("err = %v; want %q", err, tc.message)
			}
		})
	}
}

func TestGuidanceFunctionsAndFormatFeatures(t *testing.T) {
	c := mustCompile(t, `{"id":"user.g","name":"G","description":"d","version":"1",
	 "features":["wr.features.subagent_guidance","wr.features.capabilities"],
	 "functionDefinitions":[{"name":"note","definition":"Write it down.","parameters":[{"name":"what","type":"string","required":true}]},{"name":"shadowed","definition":"workflow"}],
	 "steps":[
	  {"id":"a","title":"A","promptBlocks":{"goal":"Do a."},"guidance":["Be brief."],"functionReferences":["note"]},
	  {"id":"l","title":"L","functionDefinitions":[{"name":"shadowed","definition":"loop"}],"loop":{"kind":"for","count":1,"maxIterations":1},
	   "body":[{"id":"b","title":"B","prompt":"Do b.","functionReferences":["shadowed"]}]}]}`)
	a, _ := c.Step("a")
	for _, want := range []string{"Guidance:\n- Be brief.", "Functions:\n- note(what string): Write it down.",
		"Constraints:\n- Do not take an optional capability for granted", "Procedure:\n1. When an optional capability would change",
		"Verify:\n- No path that depends on a capability", "The WorkRail Executor is the only kind of subagent"} {
		if !strings.Contains(a.Prompt, want) {
			t.Errorf("step a lacks %q:\n%s", want, a.Prompt)
		}
	}
	if strings.Index(a.Prompt, "Do not take an optional capability") > strings.Index(a.Prompt, "The WorkRail Executor is the only") {
		t.Error("features are not in WorkRail's fixed order (capabilities before subagent_guidance)")
	}
	b, _ := c.Step("b")
	if !strings.Contains(b.Prompt, "shadowed(): loop") || strings.Contains(b.Prompt, "Constraints") {
		t.Errorf("step b (a plain prompt) should get the loop's definition and no feature text:\n%s", b.Prompt)
	}
}

func TestDialectAndDeclaredContractsArePinned(t *testing.T) {
	src := mustParse(t, `{"id":"user.d","name":"D","description":"d","version":"1",
	 "assessments":[{"id":"g","purpose":"p","dimensions":[{"id":"x","purpose":"p","levels":["low","high"]}]}],
	 "contracts":{"user.verdict":{"description":"A verdict.","schema":{"type":"object"},"example":{"kind":"user.verdict"},"kinds":["user.v"]}},
	 "steps":[{"id":"a","title":"A","prompt":"p","assessmentRefs":["g"]},{"id":"b","title":"B","prompt":"p","output":{"contractRef":"user.verdict"}}]}`)
	plain, _, err := compile.CompileWith(src, compile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := plain.Contracts[workflow.ContractAssessment]; !ok {
		t.Error("the assessment contract is not pinned for a step with assessmentRefs")
	}
	if p := plain.Contracts["user.verdict"]; p.Description != "A verdict." || len(p.Kinds) != 1 {
		t.Errorf("declared contract pinned as %+v", p)
	}
	legacy, _, err := compile.CompileWith(src, compile.Options{Dialect: compile.DialectTS, Rewrites: []string{"LOOP_TYPE", "NOT_EQUALS"}})
	if err != nil {
		t.Fatal(err)
	}
	if legacy.Hash == plain.Hash || !bytes.Contains(legacy.Canonical, []byte(`"dialect":"workrail-ts"`)) || !bytes.Contains(legacy.Canonical, []byte(`"rewrites":["LOOP_TYPE","NOT_EQUALS"]`)) {
		t.Errorf("dialect and rewrites are not in the hashed form:\n%s", legacy.Canonical)
	}
	if bytes.Contains(plain.Canonical, []byte("dialect")) {
		t.Error("a canonical compile records a dialect")
	}
}

// TestDelegationRetargeted: a delegation naming a routine by the id its
// file claims runs it under the id it loaded as, with a warning.
func TestDelegationRetargeted(t *testing.T) {
	routine := mustParse(t, strings.Replace(routineSrc, "user.routine-check", "user.routine-renamed", 1))
	find := func(id engine.WorkflowID) (workflow.Workflow, bool) { return routine, id == "wr.routine-check" }
	src := mustParse(t, `{"id":"user.d","name":"D","description":"d","version":"1","steps":[{"id":"fan","title":"Fan out",
	 "parallelDelegations":[{"workflowId":"wr.routine-check"},{"workflowId":"user.other"}]}]}`)
	c, warnings, err := compile.CompileWith(src, compile.Options{Routines: find})
	if err != nil {
		t.Fatal(err)
	}
	fan, _ := c.Step("fan")
	if fan.Delegations[0].WorkflowID != "user.routine-renamed" || fan.Delegations[1].WorkflowID != "user.other" {
		t.Errorf("delegations = %+v", fan.Delegations)
	}
	if len(warnings) != 1 || warnings[0].Code != compile.WarnDelegationRetargeted || warnings[0].Pointer != "/steps/0/parallelDelegations/0/workflowId" {
		t.Errorf("warnings = %+v", warnings)
	}
	if src.Steps[0].Step.ParallelDelegations[0].WorkflowID != "wr.routine-check" {
		t.Error("compiling changed the source")
	}
}
