package outcome_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/workflow"
)

const (
	validGaps     = `{"kind":"wr.contracts.gaps","gaps":[{"summary":"No database to run the integration tests.","severity":"warning","howToResolve":"Start PostgreSQL."}]}`
	validLoopStop = `{"kind":"wr.contracts.loop_control","decision":"stop"}`
	validLoopMore = `{"kind":"wr.contracts.loop_control","decision":"continue","reason":"Two findings are still open."}`
)

// A step's required output contract: nothing of its kind is missing, a
// matching artifact passes, anything else is invalid with the schema's
// complaint and an example that would pass.
func TestEvaluateRequiredOutput(t *testing.T) {
	c := MustFixture(t)
	cases := []struct {
		name   string
		step   workflow.StepID
		sent   []string
		want   []outcome.ReasonCode
		detail string // a fragment of the validation error, for invalid outputs
	}{
		{"gaps missing", "report-gaps", nil, []outcome.ReasonCode{outcome.MissingRequiredOutput}, ""},
		{"gaps valid", "report-gaps", []string{validGaps}, nil, ""},
		{"gaps empty list is valid", "report-gaps", []string{`{"kind":"wr.contracts.gaps","gaps":[]}`}, nil, ""},
		{"gaps bad severity", "report-gaps", []string{`{"kind":"wr.contracts.gaps","gaps":[{"summary":"s","severity":"minor"}]}`},
			[]outcome.ReasonCode{outcome.InvalidRequiredOutput}, "at /gaps/0/severity"},
		{"gaps extra property", "report-gaps", []string{`{"kind":"wr.contracts.gaps","gaps":[],"note":"x"}`},
			[]outcome.ReasonCode{outcome.InvalidRequiredOutput}, "'note' not allowed"},
		{"only another kind was sent", "report-gaps", []string{validLoopStop}, []outcome.ReasonCode{outcome.MissingRequiredOutput}, ""},
		{"loop control stop", "refine-once", []string{validLoopStop}, nil, ""},
		{"loop control continue", "refine-once", []string{validLoopMore}, nil, ""},
		{"loop control missing decision", "refine-once", []string{`{"kind":"wr.contracts.loop_control"}`},
			[]outcome.ReasonCode{outcome.InvalidRequiredOutput}, "missing property 'decision'"},
		{"loop control unknown decision", "refine-once", []string{`{"kind":"wr.contracts.loop_control","decision":"maybe"}`},
			[]outcome.ReasonCode{outcome.InvalidRequiredOutput}, "at /decision"},
		{"non-objects have no kind", "refine-once", []string{`[1]`, `"wr.contracts.loop_control"`, `null`},
			[]outcome.ReasonCode{outcome.MissingRequiredOutput}, ""},
		{"a non-string kind is no kind", "refine-once", []string{`{"kind":5,"decision":"stop"}`},
			[]outcome.ReasonCode{outcome.MissingRequiredOutput}, ""},
		{"hints alone require nothing", "plain", nil, nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := MustStep(t, c, tc.step)
			ev := evaluate(c, s, arts(tc.sent...), nothingObserved)
			if got := codes(ev); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("reasons = %v; want %v", got, tc.want)
			}
			if len(tc.want) == 0 {
				return
			}
			r := ev.Reasons[0]
			if r.Step != s.ID || r.ContractRef != s.Output.ContractRef {
				t.Errorf("reason points at step %q contract %q; want %q %q", r.Step, r.ContractRef, s.ID, s.Output.ContractRef)
			}
			if tc.detail == "" && r.Detail != "" {
				t.Errorf("detail = %q; want none for a missing output", r.Detail)
			}
			if !strings.Contains(r.Detail, tc.detail) {
				t.Errorf("detail = %q; want it to mention %q", r.Detail, tc.detail)
			}
		})
	}
}

// The validation error is one line, its parts sorted, the same every time:
// it is recorded, so it must not depend on map order inside the validator.
func TestInvalidOutputDetailIsDeterministic(t *testing.T) {
	c := MustFixture(t)
	s := MustStep(t, c, "refine-once")
	bad := arts(`{"kind":"wr.contracts.loop_control","decision":"maybe","reason":7,"extra":1,"more":2}`)
	first := evaluate(c, s, bad, nothingObserved).Reasons[0].Detail
	parts := strings.Split(first, "; ")
	if len(parts) < 3 {
		t.Fatalf("detail %q; want one part per violation", first)
	}
	for i := 1; i < len(parts); i++ {
		if parts[i-1] > parts[i] {
			t.Fatalf("detail parts not sorted: %q", first)
		}
	}
	for i := 0; i < 20; i++ {
		if got := evaluate(c, s, bad, nothingObserved).Reasons[0].Detail; got != first {
			t.Fatalf("run %d: detail %q; first run said %q", i, got, first)
		}
	}
	if strings.Contains(first, "\n") {
		t.Fatalf("detail spans lines: %q", first)
	}
}

// A required output is satisfied by any valid artifact of its kind: the
// first valid one is used, and invalid ones are disclosed as notices. Only
// the artifact that satisfied a required loop_control decides the stop;
// when none does, the decision was not made and the loop stops, the safe
// default a mode that goes on without it takes.
func TestRequiredOutputTakesTheFirstValidArtifact(t *testing.T) {
	c := MustFixture(t)
	const (
		badLoop = `{"kind":"wr.contracts.loop_control","decision":"x"}`
		noLoop  = `{"kind":"wr.contracts.loop_control"}`
		badGaps = `{"kind":"wr.contracts.gaps","gaps":[{"summary":"s","severity":"minor"}]}`
	)
	cases := []struct {
		name      string
		step      workflow.StepID
		sent      []string
		want      []outcome.ReasonCode
		detail    string // a fragment of the reason's detail
		stop      bool
		disclosed int
		notices   []string
	}{
		{name: "invalid, then a valid stop", step: "refine-once", sent: []string{badLoop, validLoopStop},
			stop: true, notices: []string{"ARTIFACT_INVALID"}},
		{name: "invalid stop, then a valid continue", step: "refine-once",
			sent:    []string{`{"kind":"wr.contracts.loop_control","decision":"stop","extra":1}`, validLoopMore},
			notices: []string{"ARTIFACT_INVALID"}},
		{name: "the first valid one decides", step: "refine-once", sent: []string{validLoopMore, validLoopStop}},
		{name: "the first valid one decides, after an invalid one", step: "refine-once", sent: []string{badLoop, validLoopStop, validLoopMore},
			stop: true, notices: []string{"ARTIFACT_INVALID"}},
		{name: "none valid: the first one's error, and the loop stops", step: "refine-once", sent: []string{noLoop, badLoop},
			want: []outcome.ReasonCode{outcome.InvalidRequiredOutput}, detail: "missing property 'decision'", stop: true,
			notices: []string{"ARTIFACT_INVALID", "ARTIFACT_INVALID"}},
		{name: "gaps: invalid, then valid", step: "report-gaps", sent: []string{badGaps, validGaps},
			disclosed: 1, notices: []string{"ARTIFACT_INVALID"}},
		{name: "probe: malformed, then valid", step: "wr-probe-web_browsing",
			sent:    []string{`{"kind":"wr.contracts.capability_observation","capability":"web_browsing","status":"maybe"}`, obs("web_browsing", "available", "tried")},
			notices: []string{"ARTIFACT_INVALID"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ev := evaluate(c, MustStep(t, c, tc.step), arts(tc.sent...), nothingObserved)
			if got := codes(ev); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("reasons = %+v; want %v", ev.Reasons, tc.want)
			}
			if len(tc.want) > 0 && !strings.Contains(ev.Reasons[0].Detail, tc.detail) {
				t.Errorf("detail = %q; want it to mention %q", ev.Reasons[0].Detail, tc.detail)
			}
			if ev.Stop != tc.stop {
				t.Errorf("stop = %v; want %v", ev.Stop, tc.stop)
			}
			if len(ev.Disclosed) != tc.disclosed {
				t.Errorf("disclosed = %+v; want %d", ev.Disclosed, tc.disclosed)
			}
			if got := noticeCodes(ev); !reflect.DeepEqual(got, tc.notices) {
				t.Errorf("notices = %+v; want %v", ev.Notices, tc.notices)
			}
		})
	}
}

// With two or more unexpected properties the validator lists them in map
// order; the recorded detail (and the blocker message or gap summary built
// from it) must not differ between identical attempts, so they are sorted.
func TestInvalidOutputDetailNamesExtraPropertiesInOrder(t *testing.T) {
	c := MustFixture(t)
	s := MustStep(t, c, "refine-once")
	bad := arts(`{"kind":"wr.contracts.loop_control","decision":"stop","more":2,"extra":1,"a":0}`)
	first := evaluate(c, s, bad, nothingObserved).Reasons[0].Detail
	if want := "at /: additional properties 'a', 'extra', 'more' not allowed"; first != want {
		t.Fatalf("detail %q; want %q", first, want)
	}
	for i := 0; i < 50; i++ {
		if got := evaluate(c, s, bad, nothingObserved).Reasons[0].Detail; got != first {
			t.Fatalf("run %d: detail %q; first run said %q", i, got, first)
		}
	}
}

// A user-only dependency blocks until a well-formed wr.user_response
// arrives; malformed ones are refused with a notice, never silently.
func TestEvaluateUserDependency(t *testing.T) {
	c := MustFixture(t)
	const (
		answer     = `{"kind":"wr.user_response","response":"It is in the vault under staging/deploy."}`
		withChoice = `{"kind":"wr.user_response","response":"Keep it small.","choice":"one package"}`
		empty      = `{"kind":"wr.user_response","response":""}`
		extra      = `{"kind":"wr.user_response","response":"yes","approved":true}`
		noResponse = `{"kind":"wr.user_response","choice":"one package"}`
	)
	cases := []struct {
		name    string
		step    workflow.StepID
		sent    []string
		want    []outcome.ReasonCode
		notices int
	}{
		{"secret not answered", "ask-token", nil, []outcome.ReasonCode{outcome.UserOnlyDependency}, 0},
		{"secret answered", "ask-token", []string{answer}, nil, 0},
		{"choice not answered", "pick-scope", nil, []outcome.ReasonCode{outcome.NonAssumableChoice}, 0},
		{"choice answered with a choice", "pick-scope", []string{withChoice}, nil, 0},
		{"choice answered in words", "pick-scope", []string{answer}, nil, 0},
		{"empty response", "ask-token", []string{empty}, []outcome.ReasonCode{outcome.UserOnlyDependency}, 1},
		{"unknown field", "ask-token", []string{extra}, []outcome.ReasonCode{outcome.UserOnlyDependency}, 1},
		{"choice without response", "pick-scope", []string{noResponse}, []outcome.ReasonCode{outcome.NonAssumableChoice}, 1},
		{"two malformed", "ask-token", []string{empty, extra}, []outcome.ReasonCode{outcome.UserOnlyDependency}, 2},
		{"malformed then good", "ask-token", []string{empty, answer}, nil, 1},
		{"a choice among the options, in another case", "pick-scope", []string{`{"kind":"wr.user_response","response":"Small.","choice":" One Package"}`}, nil, 0},
		{"a choice outside the options", "pick-scope", []string{`{"kind":"wr.user_response","response":"Small.","choice":"two packages"}`},
			[]outcome.ReasonCode{outcome.NonAssumableChoice}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := MustStep(t, c, tc.step)
			ev := evaluate(c, s, arts(tc.sent...), nothingObserved)
			if got := codes(ev); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("reasons = %v; want %v", got, tc.want)
			}
			if len(ev.Notices) != tc.notices {
				t.Fatalf("notices = %+v; want %d", ev.Notices, tc.notices)
			}
			for _, n := range ev.Notices {
				if string(n.Code) != "USER_RESPONSE_INVALID" || !strings.Contains(n.Message, `"response"`) {
					t.Errorf("notice %+v; want USER_RESPONSE_INVALID naming the response field", n)
				}
			}
			if len(tc.want) == 0 {
				return
			}
			r := ev.Reasons[0]
			if r.Step != s.ID || r.Dependency != s.UserDependency {
				t.Errorf("reason = %+v; want it to carry step %s and its dependency", r, s.ID)
			}
		})
	}
}

// An artifact of a kind the step does not ask for is recorded as sent,
// with a notice naming what the step expects.
func TestUnexpectedKindIsTold(t *testing.T) {
	c := MustFixture(t)
	for _, tc := range []struct {
		step workflow.StepID
		sent string
		want string // the notice's message; "" for none
	}{
		{"plain", `{"kind":"wr.user_response","response":"yes"}`, `/output/artifacts/0 is an artifact of kind "wr.user_response": it is recorded as sent, but nothing reads it. ` +
			`This step asks for no artifact of its own; WorkRail reads wr.contracts.workflow_divergence, wr.contracts.gaps, wr.contracts.capability_observation, wr.contracts.loop_control at any step.`},
		{"report-gaps", `{"kind":"vendor.custom"}`, `/output/artifacts/0 is an artifact of kind "vendor.custom": it is recorded as sent, but nothing reads it. ` +
			`This step asks for wr.contracts.gaps; WorkRail reads wr.contracts.workflow_divergence, wr.contracts.gaps, wr.contracts.capability_observation, wr.contracts.loop_control at any step.`},
		{"pick-scope", `{"kind":"wr.user_response","response":"yes"}`, ""},
		{"plain", `{"kind":"wr.contracts.workflow_divergence","reason":"scope_change","summary":"Less."}`, ""},
	} {
		ev := evaluate(c, MustStep(t, c, tc.step), arts(tc.sent), nothingObserved)
		var got string
		for _, n := range ev.Notices {
			if n.Code == "ARTIFACT_KIND_UNEXPECTED" {
				got = n.Message
			}
		}
		if got != tc.want || len(ev.Artifacts) != 1 {
			t.Errorf("%s %s: notice %q, kept %s; want %q", tc.step, tc.sent, got, ev.Artifacts, tc.want)
		}
	}
}

// Artifacts no step requires but WorkRail understands: divergences, gap
// disclosures and loop control are decoded; invalid ones are noticed.
func TestEvaluateOptionalArtifacts(t *testing.T) {
	c := MustFixture(t)
	s := MustStep(t, c, "plain")
	cases := []struct {
		name        string
		sent        []string
		divergences []event.DivergenceRecordedData
		disclosed   []event.GapRecordedData
		stop        bool
		notices     []string
	}{
		{name: "divergence at this step",
			sent:        []string{`{"kind":"wr.contracts.workflow_divergence","reason":"step_not_applicable","summary":"No tests exist."}`},
			divergences: []event.DivergenceRecordedData{{Reason: event.DivergeStepNotApplicable, Summary: "No tests exist.", RelatedStepID: "plain"}}},
		{name: "divergence about another step",
			sent:        []string{`{"kind":"wr.contracts.workflow_divergence","reason":"user_instruction","summary":"Skipped on request.","relatedStepId":"report-gaps"}`},
			divergences: []event.DivergenceRecordedData{{Reason: event.DivergeUserInstruction, Summary: "Skipped on request.", RelatedStepID: "report-gaps"}}},
		{name: "divergence with an unknown reason",
			sent:    []string{`{"kind":"wr.contracts.workflow_divergence","reason":"felt_like_it","summary":"x"}`},
			notices: []string{"ARTIFACT_INVALID"}},
		{name: "gaps disclosed as assumptions at this step",
			sent: []string{`{"kind":"wr.contracts.gaps","gaps":[{"summary":"a","severity":"warning"},{"summary":"b","severity":"critical","howToResolve":"do b"}]}`},
			disclosed: []event.GapRecordedData{
				{Reason: event.GapAssumptionMade, Severity: event.SeverityWarning, Summary: "a", RelatedStepID: "plain"},
				{Reason: event.GapAssumptionMade, Severity: event.SeverityCritical, Summary: "b", HowToResolve: "do b", RelatedStepID: "plain"}}},
		{name: "gaps may not choose their own reason",
			sent:    []string{`{"kind":"wr.contracts.gaps","gaps":[{"summary":"a","severity":"warning","reason":"capability_missing"}]}`},
			notices: []string{"ARTIFACT_INVALID"}},
		{name: "loop stop", sent: []string{validLoopStop}, stop: true},
		{name: "loop continue", sent: []string{validLoopMore}},
		{name: "stop wins over continue", sent: []string{validLoopMore, validLoopStop}, stop: true},
		{name: "invalid loop control does not stop", sent: []string{`{"kind":"wr.contracts.loop_control","decision":"STOP"}`}, notices: []string{"ARTIFACT_INVALID"}},
		{name: "unknown kinds and non-objects are not judged, and told",
			sent:    []string{`{"kind":"vendor.custom","x":1}`, `{}`, `[]`, `42`, `{"kind":["wr.contracts.gaps"]}`},
			notices: slices.Repeat([]string{"ARTIFACT_KIND_UNEXPECTED"}, 5)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ev := evaluate(c, s, arts(tc.sent...), nothingObserved)
			if len(ev.Reasons) != 0 || len(ev.Observations) != 0 {
				t.Fatalf("reasons %v observations %v; want none on a step that requires nothing", ev.Reasons, ev.Observations)
			}
			if !reflect.DeepEqual(ev.Divergences, tc.divergences) {
				t.Errorf("divergences = %+v; want %+v", ev.Divergences, tc.divergences)
			}
			if !reflect.DeepEqual(ev.Disclosed, tc.disclosed) {
				t.Errorf("disclosed = %+v; want %+v", ev.Disclosed, tc.disclosed)
			}
			if ev.Stop != tc.stop {
				t.Errorf("stop = %v; want %v", ev.Stop, tc.stop)
			}
			if got := noticeCodes(ev); !reflect.DeepEqual(got, tc.notices) {
				t.Errorf("notices = %+v; want %v", ev.Notices, tc.notices)
			}
		})
	}
}

// An invalid optional artifact's notice names the contract and says why.
func TestInvalidOptionalArtifactNoticeSaysWhy(t *testing.T) {
	c := MustFixture(t)
	ev := evaluate(c, MustStep(t, c, "plain"), arts(`{"kind":"wr.contracts.workflow_divergence","reason":"scope_change","summary":""}`), nothingObserved)
	if len(ev.Notices) != 1 {
		t.Fatalf("notices = %+v; want one", ev.Notices)
	}
	msg := ev.Notices[0].Message
	for _, want := range []string{string(workflow.ContractWorkflowDivergence), "at /summary"} {
		if !strings.Contains(msg, want) {
			t.Errorf("notice %q does not mention %q", msg, want)
		}
	}
}

// A workflow that pins no pack for an optional artifact is judged by
// WorkRail's current pack.
func TestEvaluateFallsBackToCurrentPacks(t *testing.T) {
	w, err := workflow.Parse([]byte(`{"id":"user.bare","name":"Bare","description":"One step, no contracts.","version":"1",
		"steps":[{"id":"only","title":"Only","prompt":"Do it."}]}`))
	if err != nil {
		t.Fatal(err)
	}
	c, err := compile.Compile(w)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Contracts) != 0 {
		t.Fatalf("the bare workflow pins %d packs; the test needs none", len(c.Contracts))
	}
	ev := evaluate(c, MustStep(t, c, "only"), arts(validGaps, validLoopStop,
		`{"kind":"wr.contracts.workflow_divergence","reason":"scope_change","summary":"Did less."}`), nothingObserved)
	if len(ev.Disclosed) != 1 || len(ev.Divergences) != 1 || !ev.Stop || len(ev.Notices) != 0 {
		t.Fatalf("evaluation = %+v; want the gap, the divergence and the stop accepted by the current packs", ev)
	}
}

// withPack returns c with the pinned pack for ref replaced: another
// workflow, so it has no hash (what is made once per pinned workflow is
// made for it afresh).
func withPack(c compile.Compiled, ref workflow.ContractRef, p compile.ContractPack) compile.Compiled {
	c.Hash = engine.WorkflowHash{}
	pinned := map[workflow.ContractRef]compile.ContractPack{}
	for k, v := range c.Contracts {
		pinned[k] = v
	}
	pinned[ref] = p
	c.Contracts = pinned
	return c
}

// A run is judged by the pack its workflow was compiled with, not by the
// one WorkRail ships today.
func TestEvaluateUsesThePinnedPack(t *testing.T) {
	c := MustFixture(t)
	old := compile.ContractPack{
		Description: "An older loop control that could only continue.",
		Schema:      json.RawMessage(`{"type":"object","required":["kind","decision"],"properties":{"kind":{"const":"wr.contracts.loop_control"},"decision":{"const":"continue"}}}`),
		Example:     json.RawMessage(`{"kind":"wr.contracts.loop_control","decision":"continue"}`),
	}
	c = withPack(c, workflow.ContractLoopControl, old)
	s := MustStep(t, c, "refine-once")
	ev := evaluate(c, s, arts(validLoopStop), nothingObserved)
	if got := codes(ev); !reflect.DeepEqual(got, []outcome.ReasonCode{outcome.InvalidRequiredOutput}) {
		t.Fatalf("reasons = %v; want the pinned schema to refuse decision stop", got)
	}
	if !ev.Stop {
		t.Fatal("a decision the pinned schema refuses is no decision: the loop stops, its safe default")
	}
	if ask := outcome.AskOf(c, s, workflow.Guided, outcome.UserNeed{}); string(ask.Artifacts[0].Value) != string(old.Example) {
		t.Fatalf("template = %s; want the pinned pack's (its one value a constant)", ask.Artifacts[0].Value)
	}
	if got := evaluate(c, s, arts(`{"kind":"wr.contracts.loop_control","decision":"continue","anything":1}`), nothingObserved); len(got.Reasons) != 0 {
		t.Fatalf("reasons = %v; the pinned schema allows extra properties", got.Reasons)
	}
}

// A pinned schema that cannot be compiled refuses every artifact: nothing is
// accepted on the strength of a broken contract.
func TestEvaluateFailsClosedOnABrokenSchema(t *testing.T) {
	for _, schema := range []string{`{"type":5}`, `not json`, `{"$ref":"#/nowhere"}`} {
		t.Run(schema, func(t *testing.T) {
			c := MustFixture(t)
			c = withPack(c, workflow.ContractLoopControl, compile.ContractPack{Schema: json.RawMessage(schema), Example: json.RawMessage(validLoopStop)})
			c = withPack(c, workflow.ContractWorkflowDivergence, compile.ContractPack{Schema: json.RawMessage(schema)})
			ev := evaluate(c, MustStep(t, c, "refine-once"), arts(validLoopStop,
				`{"kind":"wr.contracts.workflow_divergence","reason":"scope_change","summary":"Did less."}`), nothingObserved)
			if got := codes(ev); !reflect.DeepEqual(got, []outcome.ReasonCode{outcome.InvalidRequiredOutput}) || ev.Reasons[0].Detail == "" {
				t.Fatalf("reasons = %+v; want an invalid output with the schema error", ev.Reasons)
			}
			if len(ev.Divergences) != 0 || !ev.Stop {
				t.Fatalf("evaluation = %+v; a broken schema accepted an artifact, or a decision refused did not stop the loop", ev)
			}
			if got := noticeCodes(ev); len(got) != 2 || got[0] != "ARTIFACT_INVALID" || got[1] != "ARTIFACT_INVALID" {
				t.Fatalf("notices = %v; want both refusals disclosed", got)
			}
		})
	}
}
