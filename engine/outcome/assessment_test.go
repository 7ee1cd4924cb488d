package outcome_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/workflow"
)

const assessed = `{"id":"user.as","name":"A","description":"d","version":"1",
	"assessments":[
		{"id":"quality","purpose":"How good.","dimensions":[{"id":"coverage","purpose":"c","levels":["low","high"]},{"id":"clarity","purpose":"c","levels":["vague","clear"],"optional":true}]},
		{"id":"risk","purpose":"How risky.","dimensions":[{"id":"blast","purpose":"b","levels":["Low","High"]}]}],
	"steps":[
		{"id":"one","title":"One","prompt":"p","assessmentRefs":["quality"],
		 "assessmentConsequences":[{"when":{"anyEqualsLevel":"low"},"effect":{"kind":"require_followup","guidance":"Add the missing tests."}}]},
		{"id":"two","title":"Two","prompt":"p","assessmentRefs":["quality","risk"],
		 "assessmentConsequences":[{"when":{"anyEqualsLevel":"High","forAssessment":"risk"},"effect":{"kind":"require_followup","guidance":"Split the change."}}]}]}`

// A wr.assessment artifact is checked against the workflow's declared
// dimensions with pointer-precise problems; a level matching one declared
// level ignoring case is accepted with a notice; consequences fire on the
// (scoped) ratings.
func TestAssessments(t *testing.T) {
	c := canonical(t, assessed)
	for _, tc := range []struct {
		name, step string
		sent       []string
		codes      []outcome.ReasonCode
		detail     string // of the first reason, when set
		notices    []string
	}{
		{name: "missing", step: "one", codes: []outcome.ReasonCode{outcome.MissingRequiredOutput}, detail: "no wr.assessment artifact rates quality"},
		{name: "valid and calm", step: "one", sent: []string{`{"kind":"wr.assessment","dimensions":{"coverage":"high"},"summary":"ok"}`}},
		{name: "rating with a rationale", step: "one", sent: []string{`{"kind":"wr.assessment","dimensions":{"coverage":{"level":"high","rationale":"all paths"}}}`}},
		{name: "consequence fires", step: "one", sent: []string{`{"kind":"wr.assessment","dimensions":{"coverage":"low"}}`},
			codes: []outcome.ReasonCode{outcome.AssessmentFollowupRequired}},
		{name: "level in another case is read with a notice", step: "one", sent: []string{`{"kind":"wr.assessment","dimensions":{"coverage":" HIGH "}}`},
			notices: []string{"ASSESSMENT_LEVEL_NORMALIZED"}},
		{name: "missing required dimension", step: "one", sent: []string{`{"kind":"wr.assessment","dimensions":{"clarity":"clear"}}`},
			codes: []outcome.ReasonCode{outcome.InvalidRequiredOutput}, detail: "at /output/artifacts/0/dimensions: missing required dimension coverage (one of low, high)"},
		{name: "unknown dimension and level", step: "one", sent: []string{`{"kind":"wr.contracts.gaps","gaps":[]}`, `{"kind":"wr.assessment","dimensions":{"coverage":"medium","speed":"fast"}}`},
			codes:  []outcome.ReasonCode{outcome.InvalidRequiredOutput},
			detail: `at /output/artifacts/1/dimensions/coverage: level "medium" is not one of low, high; at /output/artifacts/1/dimensions/speed: unknown dimension; quality rates coverage, clarity`},
		{name: "unknown field and wrong id", step: "one", sent: []string{`{"kind":"wr.assessment","assessmentId":"risk","score":3,"dimensions":{"coverage":"high"}}`},
			codes:  []outcome.ReasonCode{outcome.InvalidRequiredOutput},
			detail: `at /output/artifacts/0/score: unknown field; a wr.assessment carries assessmentId, dimensions, kind, summary; at /output/artifacts/0/assessmentId: "risk" is not an assessment of this step; expected quality`},
		{name: "several refs are matched by assessmentId", step: "two", sent: []string{
			`{"kind":"wr.assessment","assessmentId":"risk","dimensions":{"blast":"Low"}}`, `{"kind":"wr.assessment","assessmentId":"quality","dimensions":{"coverage":"low"}}`}},
		{name: "several refs, one missing", step: "two", sent: []string{`{"kind":"wr.assessment","assessmentId":"quality","dimensions":{"coverage":"high"}}`},
			codes: []outcome.ReasonCode{outcome.MissingRequiredOutput}, detail: "no wr.assessment artifact rates risk"},
		{name: "scoped consequence fires on its assessment only", step: "two", sent: []string{
			`{"kind":"wr.assessment","assessmentId":"quality","dimensions":{"coverage":"high"}}`, `{"kind":"wr.assessment","assessmentId":"risk","dimensions":{"blast":"high"}}`},
			codes: []outcome.ReasonCode{outcome.AssessmentFollowupRequired}, notices: []string{"ASSESSMENT_LEVEL_NORMALIZED"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := evaluate(c, MustStep(t, c, workflow.StepID(tc.step)), arts(tc.sent...), nothingObserved)
			if !reflect.DeepEqual(codes(ev), tc.codes) {
				t.Fatalf("reasons %+v; want %v", ev.Reasons, tc.codes)
			}
			if tc.detail != "" && ev.Reasons[0].Detail != tc.detail {
				t.Fatalf("detail\n%s\nwant\n%s", ev.Reasons[0].Detail, tc.detail)
			}
			if !reflect.DeepEqual(noticeCodes(ev), tc.notices) {
				t.Fatalf("notices %+v; want %v", ev.Notices, tc.notices)
			}
			for _, r := range ev.Reasons {
				if r.Code != outcome.AssessmentFollowupRequired && r.ContractRef != workflow.ContractAssessment {
					t.Fatalf("reason %+v does not point at %s", r, workflow.ContractAssessment)
				}
			}
		})
	}
}

// The follow-up blocks with the author's guidance in guided mode and is a
// critical gap in never-stop. The templates nextCall carries rate nothing:
// sent as they are, they are refused whole (blocked in guided), and in
// never-stop they leave one gap that counts every rating not made at its
// most cautious level, the one that asks for the follow-up.
func TestAssessmentFollowupAndTemplates(t *testing.T) {
	c := canonical(t, assessed)
	two := MustStep(t, c, "two")
	ev := evaluate(c, two, arts(`{"kind":"wr.assessment","assessmentId":"quality","dimensions":{"coverage":"low"}}`,
		`{"kind":"wr.assessment","assessmentId":"risk","dimensions":{"blast":"High"}}`), nothingObserved)
	b := outcome.Decide(workflow.Guided, ev.Reasons).Blockers
	if len(b) != 1 || b[0].Code != "ASSESSMENT_FOLLOWUP_REQUIRED" || b[0].Message != "Your risk assessment rates blast as High, which this step answers with a follow-up before it can advance." ||
		!strings.Contains(b[0].SuggestedFix, "Split the change.") {
		t.Fatalf("blockers %+v", b)
	}
	g := outcome.Decide(workflow.FullAutoNeverStop, ev.Reasons).Gaps
	if len(g) != 1 || g[0].Reason != "assessment_followup_required" || g[0].Severity != "critical" || g[0].HowToResolve != "Split the change." {
		t.Fatalf("gaps %+v", g)
	}
	var templates []string
	for _, a := range outcome.AskOf(c, two, workflow.Guided, outcome.UserNeed{}).Artifacts {
		templates = append(templates, string(a.Value))
	}
	if got := strings.Join(templates, " "); got != `{"kind":"wr.assessment","assessmentId":"quality","dimensions":{"coverage":"<<fill: coverage: one of low | high>>",`+
		`"clarity":"<<fill: (optional) clarity: one of vague | clear>>"},"summary":"<<fill: (optional) one line: why these ratings>>"} `+
		`{"kind":"wr.assessment","assessmentId":"risk","dimensions":{"blast":"<<fill: blast: one of Low | High>>"},"summary":"<<fill: (optional) one line: why these ratings>>"}` {
		t.Fatalf("templates %s", got)
	}
	ev = evaluate(c, two, arts(templates...), nothingObserved)
	if !reflect.DeepEqual(codes(ev), []outcome.ReasonCode{outcome.MissingRequiredOutput}) || len(ev.Artifacts) != 0 ||
		!reflect.DeepEqual(ev.Reasons[0].Unfilled, []string{"/output/artifacts/0/dimensions/clarity", "/output/artifacts/0/dimensions/coverage",
			"/output/artifacts/0/summary", "/output/artifacts/1/dimensions/blast", "/output/artifacts/1/summary"}) {
		t.Fatalf("the templates as sent: reasons %+v, kept %s", ev.Reasons, ev.Artifacts)
	}
	b = outcome.Decide(workflow.Guided, ev.Reasons).Blockers
	if len(b) != 1 || !strings.HasPrefix(b[0].Message, "/output/artifacts/0/dimensions/clarity, ") || !strings.Contains(b[0].Message, "still held WorkRail's template") {
		t.Fatalf("blockers %+v", b)
	}
	g = outcome.Decide(workflow.FullAutoNeverStop, ev.Reasons).Gaps
	if len(g) != 1 || !strings.HasPrefix(g[0].Summary, "The rating was not made at step two: no wr.assessment artifact rates quality, risk; "+
		"counted at its most cautious level (risk blast: High), which asks for a follow-up") || g[0].HowToResolve != "Split the change." {
		t.Fatalf("gaps %+v", g)
	}
	// Rated, with only the optional summary left as the template: the
	// rating stands, and the summary is dropped with a notice.
	rated := strings.NewReplacer("<<fill: coverage: one of low | high>>", "high", "<<fill: blast: one of Low | High>>", "Low").Replace(strings.Join(templates, "\n"))
	ev = evaluate(c, two, arts(strings.Split(rated, "\n")...), nothingObserved)
	if len(ev.Reasons) != 0 || !reflect.DeepEqual(noticeCodes(ev), []string{"TEMPLATE_UNFILLED"}) || len(ev.Artifacts) != 2 ||
		strings.Contains(string(ev.Artifacts[0])+string(ev.Artifacts[1]), "fill") {
		t.Fatalf("filled ratings: reasons %+v, notices %+v, kept %s", ev.Reasons, ev.Notices, ev.Artifacts)
	}
}

// wr.loop_control (the TypeScript format's kind) is read as
// wr.contracts.loop_control with a notice, and drives the stop; a
// declared contract accepts the kinds it lists.
func TestArtifactKindAliases(t *testing.T) {
	c := MustFixture(t)
	var decide *compile.Step
	compile.Walk(c.Steps, func(n compile.Node) {
		if n.Step != nil && n.Step.Output != nil && n.Step.Output.ContractRef == workflow.ContractLoopControl {
			decide = n.Step
		}
	})
	if decide == nil {
		t.Fatal("the fixture has no loop_control step")
	}
	ev := evaluate(c, decide, arts(`{"kind":"wr.loop_control","loopId":"other","decision":"stop","metadata":{"reason":"done","confidence":90}}`), nothingObserved)
	if len(ev.Reasons) != 0 || !ev.Stop || !reflect.DeepEqual(noticeCodes(ev), []string{"ARTIFACT_KIND_ALIASED"}) {
		t.Fatalf("evaluation %+v", ev)
	}
	ev = evaluate(c, decide, arts(`{"kind":"wr.loop_control","decision":"continue"}`), nothingObserved)
	if len(ev.Reasons) != 0 || ev.Stop {
		t.Fatalf("continue: %+v", ev)
	}
	ev = evaluate(c, decide, arts(`{"kind":"wr.loop_control","decision":"maybe"}`), nothingObserved)
	if !reflect.DeepEqual(codes(ev), []outcome.ReasonCode{outcome.InvalidRequiredOutput}) || !ev.Stop {
		t.Fatalf("invalid decision (no decision: the loop stops): %+v", ev)
	}

	// The compiled form as the compiler pins a declared contract.
	d := canonical(t, `{"id":"user.h","name":"H","description":"d","version":"1","steps":[{"id":"a","title":"A","prompt":"p"}]}`)
	d.Contracts = map[workflow.ContractRef]compile.ContractPack{"user.contracts.handoff": {Description: "d",
		Schema:  []byte(`{"type":"object","required":["kind","branch"],"properties":{"kind":{"const":"user.contracts.handoff"},"branch":{"type":"string"}}}`),
		Example: []byte(`{"kind":"user.contracts.handoff","branch":"main"}`), Kinds: []string{"user.handoff"}}}
	a := MustStep(t, d, "a")
	a.Output = &workflow.OutputSpec{ContractRef: "user.contracts.handoff"}
	for _, tc := range []struct {
		sent string
		want []outcome.ReasonCode
	}{
		{`{"kind":"user.contracts.handoff","branch":"b"}`, nil},
		{`{"kind":"user.handoff","branch":"b"}`, nil},
		{`{"kind":"user.handoff"}`, []outcome.ReasonCode{outcome.InvalidRequiredOutput}},
		{`{"kind":"other.handoff","branch":"b"}`, []outcome.ReasonCode{outcome.MissingRequiredOutput}},
	} {
		if got := codes(evaluate(d, a, arts(tc.sent), nothingObserved)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: reasons %v; want %v", tc.sent, got, tc.want)
		}
	}
}

// A step may both require an output contract and rate assessments: each
// is checked on its own, and each missing or invalid one is its own
// reason; nextCall carries both templates.
func TestContractAndAssessmentsOnOneStep(t *testing.T) {
	c := canonical(t, `{"id":"user.both","name":"B","description":"d","version":"1",
	"assessments":[{"id":"depth","purpose":"How deep.","dimensions":[{"id":"coverage","purpose":"c","levels":["skimmed","read"]}]}],
	"steps":[{"id":"review","title":"Review","prompt":"p","output":{"contractRef":"wr.contracts.gaps"},"assessmentRefs":["depth"]}]}`)
	s := MustStep(t, c, "review")
	gaps, rating := `{"kind":"wr.contracts.gaps","gaps":[]}`, `{"kind":"wr.assessment","dimensions":{"coverage":"read"}}`
	for _, tc := range []struct {
		name string
		sent []string
		want []workflow.ContractRef
	}{
		{"both", []string{gaps, rating}, nil},
		{"the contract only", []string{gaps}, []workflow.ContractRef{workflow.ContractAssessment}},
		{"the rating only", []string{rating}, []workflow.ContractRef{workflow.ContractGaps}},
		{"neither", nil, []workflow.ContractRef{workflow.ContractGaps, workflow.ContractAssessment}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := evaluate(c, s, arts(tc.sent...), nothingObserved)
			var refs []workflow.ContractRef
			for _, r := range ev.Reasons {
				if r.Code != outcome.MissingRequiredOutput {
					t.Fatalf("reason %+v; want only missing outputs", r)
				}
				refs = append(refs, r.ContractRef)
			}
			if !reflect.DeepEqual(refs, tc.want) {
				t.Fatalf("missing %v; want %v", refs, tc.want)
			}
		})
	}
	var kinds []string
	for _, a := range outcome.AskOf(c, s, workflow.Guided, outcome.UserNeed{}).Artifacts {
		kinds = append(kinds, a.Kind)
	}
	if want := []string{string(workflow.ContractGaps), workflow.AssessmentKind}; !reflect.DeepEqual(kinds, want) {
		t.Fatalf("nextCall asks for %v; want %v", kinds, want)
	}
}
