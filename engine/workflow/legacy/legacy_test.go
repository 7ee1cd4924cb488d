package legacy_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/engine/workflow/legacy"
)

// doc is a workflow file in the TypeScript format: top holds extra
// top-level members, steps the step list.
func doc(top, steps string) []byte {
	if top != "" {
		top += ","
	}
	return []byte(`{"id":"ts-sample","name":"Sample","description":"A sample.","version":"1",` + top + `"steps":[` + steps + `]}`)
}

const plain = `{"id":"a","title":"A","prompt":"Do a."}`

// TestEveryCodeIsReached: one small file per rewrite code, the code warned
// at the pointer into the original file, and the result valid canonical.
func TestEveryCodeIsReached(t *testing.T) {
	cases := []struct {
		code       legacy.Code
		top, steps string
		pointer    string
	}{
		{legacy.SpecVersionDropped, `"validatedAgainstSpecVersion":3`, plain, "/validatedAgainstSpecVersion"},
		{legacy.AskForFilesDropped, "", `{"id":"a","title":"A","prompt":"p","askForFiles":true}`, "/steps/0/askForFiles"},
		{legacy.ModelTierDropped, `"modelTier":"heavy"`, plain, "/modelTier"},
		{legacy.PreferencesRenamed, `"recommendedRiskPolicy":"balanced"`, plain, "/recommendedRiskPolicy"},
		{legacy.RoutineKindFromID, "", plain, "/id"},
		{legacy.FeatureOrderFixed, `"features":["wr.features.subagent_guidance","wr.features.capabilities"],"modelTier":"mid"`, plain, "/features"},
		{legacy.ContextSynthesized, "", `{"id":"a","title":"A","prompt":"p","runCondition":{"var":"mode","not_equals":"x"}}`, "/steps/0/runCondition/not"},
		{legacy.DimensionRequired, `"assessments":[{"id":"g","purpose":"p","dimensions":[{"id":"d","purpose":"p","levels":["low","high"],"required":false}]}]`, plain, "/assessments/0/dimensions/0/required"},
		{legacy.HasValidationDrop, "", `{"id":"a","title":"A","prompt":"p","hasValidation":true}`, "/steps/0/hasValidation"},
		{legacy.StepTypeDropped, "", `{"id":"a","type":"standard","title":"A","prompt":"p"}`, "/steps/0/type"},
		{legacy.FunctionRefParens, `"functionDefinitions":[{"name":"f","definition":"d"}]`, `{"id":"a","title":"A","prompt":"p","functionReferences":["f()"]}`, "/steps/0/functionReferences/0"},
		{legacy.CriteriaWrapped, "", `{"id":"a","title":"A","prompt":"p","validationCriteria":{"or":[{"type":"contains","value":"x","message":"m"}]}}`, "/steps/0/validationCriteria"},
		{legacy.OutputContract, "", `{"id":"a","title":"A","prompt":"p","outputContract":{"contractRef":"wr.contracts.gaps"}}`, "/steps/0/outputContract"},
		{legacy.OutputOptionalHint, "", `{"id":"a","title":"A","prompt":"p","outputContract":{"contractRef":"wr.contracts.gaps","required":false}}`, "/steps/0/outputContract"},
		{legacy.OutputOptionalKept, "", `{"id":"l","type":"loop","title":"L","loop":{"type":"while","maxIterations":3},"body":[{"id":"a","title":"A","prompt":"p","outputContract":{"contractRef":"wr.contracts.loop_control","required":false}}]}`, "/steps/0/body/0/outputContract"},
		{legacy.PromptPartsJoined, "", `{"id":"a","title":"A","promptBlocks":{"goal":[{"kind":"text","text":"G."}]}}`, "/steps/0/promptBlocks/goal"},
		{legacy.PromptRefInlined, "", `{"id":"a","title":"A","promptBlocks":{"goal":"G.","constraints":[[{"kind":"ref","refId":"wr.refs.synthesis_under_disagreement"}]]}}`, "/steps/0/promptBlocks/constraints/0/0"},
		{legacy.OutputRequiredList, "", `{"id":"a","title":"A","promptBlocks":{"goal":"G.","outputRequired":{"x":"y"}}}`, "/steps/0/promptBlocks/outputRequired"},
		{legacy.GoalFromTitle, "", `{"id":"a","title":"A","promptBlocks":{"procedure":["p"],"outputRequired":{"x":"y"}}}`, "/steps/0/promptBlocks"},
		{legacy.ConfirmationGate, "", `{"id":"a","title":"A","prompt":"p","requireConfirmation":{"kind":"coordinator_eval","condition":{"var":"risk","equals":"high"}}}`, "/steps/0/requireConfirmation"},
		{legacy.NotEqualsRewritten, "", `{"id":"a","title":"A","prompt":"p","runCondition":{"var":"mode","not_equals":"x"}}`, "/steps/0/runCondition/not_equals"},
		{legacy.ArrayOperand, "", `{"id":"a","title":"A","prompt":"p","runCondition":{"var":"list","not_equals":[]}}`, "/steps/0/runCondition/not_equals"},
		{legacy.EmptyCondition, "", `{"id":"a","title":"A","prompt":"p","runCondition":{},"hasValidation":false}`, "/steps/0/runCondition"},
		{legacy.TemplateCall, "", `{"id":"a","title":"A","templateCall":{"templateId":"wr.templates.routine.check","args":{"target":"x"}}}`, "/steps/0/templateCall"},
		{legacy.ParallelStep, "", `{"id":"a","type":"parallel","title":"A","parallelDelegations":[{"workflowId":"wr.routine-check"}]}`, "/steps/0/type"},
		{legacy.LoopType, "", `{"id":"l","type":"loop","title":"L","loop":{"kind":"for","count":2,"maxIterations":2},"body":[` + plain + `]}`, "/steps/0/type"},
		{legacy.LoopKeyDropped, "", `{"id":"l","title":"L","notesOptional":true,"loop":{"kind":"for","count":2,"maxIterations":2},"body":[` + plain + `]}`, "/steps/0/notesOptional"},
		{legacy.ForEachVars, "", `{"id":"l","title":"L","loop":{"type":"forEach","items":"files","maxIterations":5},"body":[` + plain + `]}`, "/steps/0/loop"},
		{legacy.ArtifactWhile, "", `{"id":"l","title":"L","loop":{"type":"while","maxIterations":5},"body":[{"id":"a","title":"A","prompt":"p","outputContract":{"contractRef":"wr.contracts.loop_control"}}]}`, "/steps/0/loop/type"},
		{legacy.ContextWhile, "", `{"id":"l","title":"L","loop":{"type":"while","maxIterations":5,"conditionSource":{"kind":"context_variable","condition":{"var":"more","equals":true}}},"body":[` + plain + `]}`, "/steps/0/loop/conditionSource"},
		{legacy.IterationVar, "", `{"id":"l","type":"loop","title":"L","loop":{"type":"for","count":3,"maxIterations":3},"body":[{"id":"a","title":"A","prompt":"p","runCondition":{"var":"currentIteration","gt":1}}]}`, "/steps/0/loop"},
		{legacy.CountVar, "", `{"id":"l","type":"loop","title":"L","loop":{"type":"for","count":"rounds","maxIterations":3},"body":[` + plain + `]}`, "/steps/0/loop/count"},
		{legacy.BodyByID, "", `{"id":"l","type":"loop","title":"L","loop":{"type":"for","count":2,"maxIterations":2},"body":"a"},` + plain, "/steps/0/body"},
		{legacy.UntilPrechecked, "", `{"id":"l","type":"loop","title":"L","loop":{"type":"until","condition":{"var":"done","equals":true},"maxIterations":3},"body":[` + plain + `]}`, "/steps/0/loop/type"},
		{legacy.FunctionRefDropped, "", `{"id":"a","title":"A","prompt":"p","functionReferences":["nowhere()"]}`, "/steps/0/functionReferences/0"},
		{legacy.FunctionCallsDrop, `"functionDefinitions":[{"name":"f","definition":"d"}]`, `{"id":"a","title":"A","prompt":"p","functionCalls":[{"name":"f","args":{}}]}`, "/steps/0/functionCalls"},
		{legacy.VirtualStep, "", `{"id":"a","title":"A","prompt":"p","audit":{"rubric":["Tests pass."]}}`, "/steps/0/audit"},
		{legacy.FormatByConstruct, "", `{"id":"a","title":"A","prompt":"p","promptFragments":[{"id":"f","text":"More."}]}`, "/steps/0/promptFragments"},
	}
	reached := map[legacy.Code]bool{}
	for _, tc := range cases {
		t.Run(string(tc.code), func(t *testing.T) {
			src := doc(tc.top, tc.steps)
			if tc.code == legacy.RoutineKindFromID {
				src = []byte(strings.Replace(string(doc(`"metricsProfile":"none","modelTier":"mid"`, plain)), "ts-sample", "wr.routine-sample", 1))
			}
			r, err := legacy.Normalize(src)
			if err != nil {
				t.Fatalf("Normalize: %v\n%s", err, src)
			}
			if !r.Legacy() {
				t.Fatal("a file with a rewrite is not legacy")
			}
			i := slices.IndexFunc(r.Warnings, func(w legacy.Warning) bool { return w.Code == tc.code })
			if i < 0 {
				t.Fatalf("no %s warning; got %+v", tc.code, r.Warnings)
			}
			if w := r.Warnings[i]; w.Pointer != tc.pointer || w.Message == "" {
				t.Errorf("warning = %+v; want pointer %s and a message", w, tc.pointer)
			}
			if !slices.Contains(r.Rewrites(), string(tc.code)) || !slices.IsSorted(r.Rewrites()) {
				t.Errorf("rewrites %v lack %s or are not sorted", r.Rewrites(), tc.code)
			}
			if r.Workflow.Notes != workflow.NotesRequired {
				t.Errorf("notes = %q; a legacy file gets the format's policy, required", r.Workflow.Notes)
			}
			reached[tc.code] = true
		})
	}
	for _, c := range legacy.Codes() {
		if !reached[c] {
			t.Errorf("code %s is reached by no case", c)
		}
	}
}

// TestRefusals: what the canonical language cannot mean the same way is
// a problem pointing into the original file, with the reason.
func TestRefusals(t *testing.T) {
	loop := func(spec string) string {
		return `{"id":"l","type":"loop","title":"L","loop":` + spec + `,"body":[` + plain + `]}`
	}
	cases := []struct {
		name, top, steps, pointer, message string
	}{
		{"extension points", `"extensionPoints":[{"slotId":"x"}]`, plain, "/extensionPoints", "bindings.json"},
		{"too many iterations", "", loop(`{"type":"for","count":2,"maxIterations":500}`), "/steps/0/loop/maxIterations", "above WorkRail's bound"},
		{"body naming no step", "", `{"id":"l","type":"loop","title":"L","loop":{"type":"for","count":2,"maxIterations":2},"body":"a"}`, "/steps/0/body", "not a step of this workflow"},
		{"body naming a loop", "", `{"id":"l","type":"loop","title":"L","loop":{"type":"for","count":2,"maxIterations":2},"body":"m"},` + strings.Replace(loop(`{"type":"for","count":2,"maxIterations":2}`), `"id":"l"`, `"id":"m"`, 1), "/steps/0/body", "loops do not nest"},
		{"body named twice", "", `{"id":"l","type":"loop","title":"L","loop":{"type":"for","count":2,"maxIterations":2},"body":"a"},{"id":"m","type":"loop","title":"M","loop":{"type":"for","count":2,"maxIterations":2},"body":"a"},` + plain, "/steps/1/body", "already the body of loop"},
		{"audit without prompt or rubric", "", `{"id":"a","title":"A","prompt":"p","audit":{}}`, "/steps/0/audit", "a prompt or at least one rubric item"},
		{"verification with a blank command", "", `{"id":"a","title":"A","prompt":"p","verification":{"command":" "}}`, "/steps/0/verification", "non-empty"},
		{"verification on a parallel step", "", `{"id":"a","type":"parallel","title":"A","verification":{},"parallelDelegations":[{"workflowId":"user.x"}]}`, "/steps/0/verification", "not allowed on a parallel step"},
		{"function call of nothing", "", `{"id":"a","title":"A","prompt":"p","functionCalls":[{"name":"f","args":{}}]}`, "/steps/0/functionCalls/0/name", "no functionDefinitions in scope"},
		{"function call without a required argument", `"functionDefinitions":[{"name":"f","definition":"d","parameters":[{"name":"x","type":"string","required":true}]}]`,
			`{"id":"a","title":"A","prompt":"p","functionCalls":[{"name":"f","args":{}}]}`, "/steps/0/functionCalls/0/args", "required parameter x"},
		{"synthesis without prompt or contract", "", `{"id":"a","type":"parallel","title":"A","synthesis":{},"parallelDelegations":[{"workflowId":"user.x"}]}`, "/steps/0/synthesis", "a prompt or an outputContract"},
		{"synthesis on a standard step", "", `{"id":"a","title":"A","prompt":"p","synthesis":{"prompt":"Merge."}}`, "/steps/0/synthesis", "only for a parallel step"},
		{"artifact loop without a decision step", "", loop(`{"type":"while","maxIterations":3,"conditionSource":{"kind":"artifact_contract","contractRef":"wr.contracts.other"}}`),
			"/steps/0/loop/conditionSource/contractRef", "by wr.contracts.loop_control artifacts only"},
		{"unknown ref", "", `{"id":"a","title":"A","promptBlocks":{"goal":[{"kind":"ref","refId":"wr.refs.nope"}]}}`, "/steps/0/promptBlocks/goal/0/refId", "unknown prompt reference"},
		{"unknown template", "", `{"id":"a","title":"A","templateCall":{"templateId":"wr.templates.other"}}`, "/steps/0/templateCall/templateId", "unknown template"},
		{"truthiness", "", `{"id":"a","title":"A","prompt":"p","runCondition":{"var":"x"},"hasValidation":true}`, "/steps/0/runCondition", "exactly one operator"},
		{"startsWith", "", `{"id":"a","title":"A","prompt":"p","runCondition":{"var":"x","startsWith":"a"},"hasValidation":true}`, "/steps/0/runCondition/startsWith", "unknown key"},
		{"schema criterion", "", `{"id":"a","title":"A","prompt":"p","validationCriteria":[{"type":"schema","schema":{},"message":"m"}],"hasValidation":true}`, "/steps/0/validationCriteria/0/type", "output contract"},
		{"bindings token", "", `{"id":"a","title":"A","prompt":"Use {{wr.bindings.x}}.","hasValidation":true}`, "/steps/0/prompt", "extension point"},
		{"conflicting types", "", `{"id":"a","title":"A","prompt":"p","runCondition":{"or":[{"var":"x","not_equals":"a"},{"var":"x","gt":2}]}}`, "/steps/0/runCondition/or/0/not", "cannot pick one type"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := doc(tc.top, tc.steps)
			_, err := legacy.Normalize(src)
			var p workflow.Problems
			if !errors.As(err, &p) {
				t.Fatalf("Normalize accepted it (err %v)", err)
			}
			i := slices.IndexFunc(p, func(x workflow.Problem) bool { return x.Pointer == tc.pointer })
			if i < 0 || !strings.Contains(p[i].Message, tc.message) || p[i].Line == 0 {
				t.Fatalf("problems %v; want one at %s (located) saying %q", p, tc.pointer, tc.message)
			}
			if !legacy.IsLegacy(src) {
				t.Error("a refused file in the format is not reported legacy")
			}
		})
	}
}

// TestCanonicalUntouched: a canonical file is parsed as it is, with no
// warning, and is not legacy; its problems are Parse's.
func TestCanonicalUntouched(t *testing.T) {
	src := []byte(`{"id":"user.x","name":"X","description":"d","version":"1","steps":[{"id":"a","title":"A","prompt":"p","requireConfirmation":{"var":"x","equals":1}}],
		"context":[{"name":"x","type":"number","description":"d"}]}`)
	r, err := legacy.Normalize(src)
	if err != nil || r.Legacy() || r.Canonical != nil || r.Workflow.Notes != "" {
		t.Fatalf("canonical file: %+v, %v", r, err)
	}
	want, _ := workflow.Parse(src)
	if !reflect.DeepEqual(want, r.Workflow) {
		t.Error("Normalize read a canonical file differently from Parse")
	}
	if legacy.IsLegacy(src) {
		t.Error("a canonical file is reported legacy")
	}
	bad := []byte(`{"id":"user.x","name":"X","description":"d","version":"1","steps":[{"id":"a","title":"A","prompt":"p","runCondition":{"var":"undeclared","equals":1}}],
		"context":[{"name":"x","type":"number","description":"d"}]}`)
	if _, err := legacy.Normalize(bad); err == nil || !strings.Contains(err.Error(), "not declared in context") {
		t.Errorf("a canonical file with an undeclared variable: %v; want Parse's problem, no synthesized input", err)
	}
}

// TestStepsThatAreNotObjects: a step that is not an object, beside a
// loop naming its body by id or not, is Parse's problem, not a crash.
func TestStepsThatAreNotObjects(t *testing.T) {
	for _, src := range []string{
		`{"id":"x","name":"X","description":"d","version":"1","steps":["do the thing"]}`,
		`{"id":"x","name":"X","description":"d","version":"1","steps":[1,null,{"id":"l","type":"loop","title":"L","body":"b","loop":{"type":"for","count":2}},{"id":"b","title":"B","prompt":"p"}]}`,
	} {
		_, err := legacy.Normalize([]byte(src))
		var p workflow.Problems
		if !errors.As(err, &p) || !strings.Contains(err.Error(), "/steps/0: must be an object (a step or a loop)") {
			t.Errorf("Normalize(%s): %v; want the problem at /steps/0", src, err)
		}
	}
}

// TestNoContextIsTheOldFormat: a file that uses only keys both formats
// share but reads variables it never declares (the TypeScript format
// declares none) is read as that format: its variables become lenient
// inputs set during the run (the agent sets them as it goes), and it gets
// that format's notes policy.
func TestNoContextIsTheOldFormat(t *testing.T) {
	src := []byte(`{"id":"user.x","name":"X","description":"d","version":"1",
		"steps":[{"id":"a","title":"A","prompt":"p","runCondition":{"var":"size","equals":"big"}}]}`)
	r, err := legacy.Normalize(src)
	if err != nil || !r.Legacy() || len(r.Warnings) != 1 || r.Warnings[0].Code != legacy.ContextSynthesized {
		t.Fatalf("Normalize = %+v, %v; want one CONTEXT_SYNTHESIZED rewrite", r.Warnings, err)
	}
	if r.Workflow.Notes != workflow.NotesRequired || len(r.Workflow.Context) != 1 || !r.Workflow.Context[0].Lenient || !r.Workflow.Context[0].SetDuringRun {
		t.Errorf("notes %q, context %+v; want required notes and one lenient input, set during the run", r.Workflow.Notes, r.Workflow.Context)
	}
	if !legacy.IsLegacy(src) {
		t.Error("IsLegacy = false")
	}
	plain := []byte(`{"id":"user.x","name":"X","description":"d","version":"1","steps":[{"id":"a","title":"A","prompt":"p"}]}`)
	if r, err := legacy.Normalize(plain); err != nil || r.Legacy() {
		t.Errorf("a file that reads no variable: %+v, %v; want canonical", r, err)
	}
}

// TestFormatByConstruct: a file that needs no rewrite but uses a
// construct the TypeScript format introduced (WorkRail's format took it
// over later) is read in that format, with its notes policy, unless
// anything in it is WorkRail's own; the warning points at the construct.
func TestFormatByConstruct(t *testing.T) {
	for _, tc := range []struct {
		name, top, steps string
		pointer          string // "" when the file reads as WorkRail's own
	}{
		{"a workflow key", `"metricsProfile":"none"`, plain, "/metricsProfile"},
		{"a step key", "", `{"id":"a","title":"A","prompt":"p","notesOptional":true}`, "/steps/0/notesOptional"},
		{"a loop body's step key", "", `{"id":"l","title":"L","loop":{"kind":"for","count":2,"maxIterations":2},"body":[{"id":"a","title":"A","prompt":"p","guidance":["g"]}]}`, ""},
		{"with $schema", `"$schema":"x","metaGuidance":["m"]`, plain, ""},
		{"with context", `"context":[],"about":"a"`, plain, ""},
		{"with a canonical step key", `"about":"a"`, `{"id":"a","title":"A","prompt":"p","output":{"contractRef":"wr.contracts.gaps"}}`, ""},
		{"with nothing of either", "", plain, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := []byte(strings.Replace(string(doc(tc.top, tc.steps)), "ts-sample", "user.sample", 1))
			r, err := legacy.Normalize(src)
			if err != nil {
				t.Fatal(err)
			}
			if tc.pointer == "" {
				if r.Legacy() {
					t.Fatalf("read in the TypeScript format: %+v", r.Warnings)
				}
				return
			}
			if len(r.Warnings) != 1 || r.Warnings[0].Code != legacy.FormatByConstruct || r.Warnings[0].Pointer != tc.pointer || r.Workflow.Notes != workflow.NotesRequired {
				t.Fatalf("warnings %+v, notes %q; want FORMAT_BY_CONSTRUCT at %s and the format's notes policy", r.Warnings, r.Workflow.Notes, tc.pointer)
			}
		})
	}
}

// TestEscapesAndNumbersSurvive: the normalizer's own reader keeps escaped
// text, non-ASCII text and numbers exactly as encoding/json reads them.
func TestEscapesAndNumbersSurvive(t *testing.T) {
	src := doc(`"validatedAgainstSpecVersion":3`, `{"id":"a","title":"Say \"hi\"\n\u00e9\ud83d\ude00 é","prompt":"p\\q\/r","runCondition":{"var":"n","gte":1.5e2}}`)
	r, err := legacy.Normalize(src)
	if err != nil {
		t.Fatal(err)
	}
	s := r.Workflow.Steps[0].Step
	if s.Title != "Say \"hi\"\né😀 é" || s.Prompt != `p\q/r` || s.RunCondition.Gte.String() != "1.5e2" {
		t.Errorf("title %q prompt %q gte %v", s.Title, s.Prompt, s.RunCondition.Gte)
	}
	for _, bad := range []string{`{"id":"a",}`, `{"id":"a"} x`, `{"id":"a","steps":[1 2]}`, ``} {
		if _, err := legacy.Normalize([]byte(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}
