package execute_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/protocol"
)

// autonomyWorkflow exercises every reason: a required capability (an
// injected probe), a required output, a non-assumable choice and a loop
// whose variable nobody sets.
const autonomyWorkflow = `{"id":"wr.auto","name":"Auto","description":"d","version":"1",
 "capabilities":{"web_browsing":"required"},
 "recommendedPreferences":{"autonomy":"guided"},
 "context":[{"name":"more","type":"boolean","description":"loop again"}],
 "steps":[
  {"id":"report","title":"Report","prompt":"report gaps","output":{"contractRef":"wr.contracts.gaps"}},
  {"id":"choose","title":"Choose","prompt":"choose scope","userDependency":{"reason":"needs_user_choice","choiceKind":"scope_boundary","summary":"Pick the scope","requestedFromUser":"Which modules are in scope?","options":["core","all"]}},
  {"id":"again","title":"Again","loop":{"kind":"until","condition":{"var":"more","equals":false},"maxIterations":2},"body":[{"id":"work","title":"Work","prompt":"work"}]},
  {"id":"done","title":"Done","prompt":"finish"}]}`

func autonomyRig(t *testing.T) *rig {
	t.Helper()
	return newRig(t, catalogOf(t, map[string]string{"wr.auto.json": autonomyWorkflow}))
}

func blockedOf(t *testing.T, res protocol.Result, b []byte) protocol.BlockedResult {
	t.Helper()
	bl, ok := res.(protocol.BlockedResult)
	if !ok {
		t.Fatalf("want blocked, got %s", b)
	}
	return bl
}

func codes(bs []event.Blocker) string {
	var out []string
	for _, b := range bs {
		out = append(out, string(b.Code))
	}
	return strings.Join(out, ",")
}

// In guided mode a call copied as it is never passes what the agent or
// the user must decide: each required place left with its marker blocks,
// and the blocker names it. The same call filled in goes on.
func TestGuidedBlocksUntilTheCallIsFilled(t *testing.T) {
	r := autonomyRig(t)
	s := r.step(t, "start", map[string]any{"workflowId": "wr.auto", "mode": "wr.modes.guided"})
	if s.Pending.StepID != "wr-probe-web_browsing" || s.Preferences.Autonomy != "guided" {
		t.Fatalf("first step %s in %s; want the injected probe in guided", s.Pending.StepID, s.Preferences.Autonomy)
	}
	res, b := r.call(t, "continue", map[string]any{"stateToken": s.StateToken, "ackToken": s.AckToken})
	bl := blockedOf(t, res, b)
	if got := codes(bl.Blockers); got != "MISSING_REQUIRED_OUTPUT,REQUIRED_CAPABILITY_UNKNOWN" {
		t.Fatalf("blockers = %s", got)
	}
	if bl.StateToken != s.StateToken || bl.AckToken == s.AckToken || bl.Pending.StepID != s.Pending.StepID {
		t.Fatal("a blocked result must keep the state and pending step and hand out a fresh attempt")
	}
	n := len(r.events(t, s.Session.SessionID))
	if _, again := r.call(t, "continue", map[string]any{"stateToken": s.StateToken, "ackToken": s.AckToken}); string(again) != string(b) {
		t.Fatal("replaying a blocked attempt is not byte-identical")
	}
	if len(r.events(t, s.Session.SessionID)) != n {
		t.Fatal("replaying a blocked attempt appended events")
	}
	// Copied as it is, the call observes nothing; filled, it does.
	copied := r.blocked(t, bl.NextCall.Arguments)
	if got := codes(copied.Blockers); got != "MISSING_REQUIRED_OUTPUT,REQUIRED_CAPABILITY_UNKNOWN" ||
		!strings.Contains(copied.Blockers[0].Message, "/output/artifacts/0/status") {
		t.Fatalf("the probe's call copied: %+v", copied.Blockers)
	}
	next := r.step(t, "continue", executetest.Fill(t, copied.NextCall.Arguments, copied.Fills, "Browsed.", 0))
	if next.Pending.StepID != "report" {
		t.Fatalf("after the observation: %s", next.Pending.StepID)
	}
	copied = r.blocked(t, next.NextCall.Arguments)
	if codes(copied.Blockers) != "MISSING_REQUIRED_OUTPUT" {
		t.Fatalf("the report's call copied: %+v", copied.Blockers)
	}
	choose := r.step(t, "continue", executetest.Fill(t, copied.NextCall.Arguments, copied.Fills, "Reported.", 0))
	if choose.Pending.StepID != "choose" || !strings.Contains(choose.Text, "## User input") ||
		choose.Fills[1].Pointer != "/output/artifacts/0/response" {
		t.Fatalf("choose step: %s %+v\n%s", choose.Pending.StepID, choose.Fills, choose.Text)
	}
	res, b = r.call(t, "continue", choose.NextCall.Arguments)
	bl = blockedOf(t, res, b)
	if codes(bl.Blockers) != "USER_ONLY_DEPENDENCY" || !strings.Contains(bl.Blockers[0].SuggestedFix, "Which modules are in scope?") ||
		!strings.HasPrefix(bl.Blockers[0].Message, "/output/artifacts/0/choice, /output/artifacts/0/response still held WorkRail's template") {
		t.Fatalf("user dependency blocker: %+v", bl.Blockers)
	}
	if w := r.step(t, "continue", executetest.Fill(t, bl.NextCall.Arguments, bl.Fills, "Core only.", 0)); w.Pending.StepID != "work" {
		t.Fatalf("after the user's answer: %s", w.Pending.StepID)
	}
	// The log holds the user's answer as the agent passed it on, and
	// nothing of any template.
	var answers []string
	for _, e := range r.events(t, s.Session.SessionID) {
		raw, _ := json.Marshal(e.Data)
		if strings.Contains(string(raw), "<<fill") {
			t.Errorf("event %d holds template text: %s", e.Index, raw)
		}
		if o, ok := e.Data.(*event.NodeOutputAppendedData); ok && o.StepID == "choose" {
			for _, a := range o.Artifacts {
				answers = append(answers, string(a))
			}
		}
	}
	if want := `{"choice":"core","kind":"wr.user_response","response":"Core only."}`; len(answers) != 1 || answers[0] != want {
		t.Errorf("the recorded answer %q; want %s", answers, want)
	}
}

// blocked makes a call that must be blocked and returns its result.
func (r *rig) blocked(t *testing.T, args any) protocol.BlockedResult {
	t.Helper()
	res, b := r.call(t, "continue", args)
	return blockedOf(t, res, b)
}

func TestNeverStopNeverBlocksAndRecordsGaps(t *testing.T) {
	r := autonomyRig(t)
	s := r.step(t, "start", map[string]any{"workflowId": "wr.auto", "mode": "wr.modes.full_auto_never_stop"})
	if len(s.Warnings) == 0 || s.Warnings[0].Code != "PREFERENCES_EXCEED_RECOMMENDATION" {
		t.Fatalf("never-stop over a guided recommendation gave warnings %+v", s.Warnings)
	}
	var last protocol.Result
	args := map[string]any{"stateToken": s.StateToken, "ackToken": s.AckToken}
	for i := 0; i < 20; i++ {
		res, b := r.call(t, "continue", args)
		last = res
		step, ok := res.(protocol.StepResult)
		if !ok {
			if _, done := res.(protocol.CompleteResult); done {
				break
			}
			t.Fatalf("never-stop returned %s", b)
		}
		args = map[string]any{"stateToken": step.StateToken, "ackToken": step.AckToken}
	}
	if _, ok := last.(protocol.CompleteResult); !ok {
		t.Fatal("never-stop run did not complete")
	}
	gaps := project.Gaps(r.events(t, s.Session.SessionID))
	reasons := map[event.GapReason]int{}
	for _, g := range gaps {
		reasons[g.Gap.Reason]++
	}
	want := map[event.GapReason]int{event.GapOutputMissing: 2, event.GapCapabilityMissing: 1, event.GapUserOnlyDependency: 1, event.GapAssumptionMade: 1}
	for k, v := range want {
		if reasons[k] != v {
			t.Fatalf("gap reasons = %v; want %v", reasons, want)
		}
	}
}

func TestGapResolutionIsLinkage(t *testing.T) {
	r := autonomyRig(t)
	s := r.step(t, "start", map[string]any{"workflowId": "wr.auto", "mode": "wr.modes.full_auto_never_stop"})
	s2 := r.step(t, "continue", map[string]any{"stateToken": s.StateToken, "ackToken": s.AckToken})
	if len(s2.Gaps) != 2 {
		t.Fatalf("gapsRecorded = %+v; want output and capability gaps", s2.Gaps)
	}
	id := s2.Gaps[0].GapID
	res, b := r.call(t, "continue", map[string]any{"stateToken": s2.StateToken, "ackToken": s2.AckToken,
		"output": map[string]any{"resolvesGaps": []map[string]any{{"gapId": "evt_999_1", "summary": "x"}}}})
	if errCode(t, res) != "INVALID_INPUT" {
		t.Fatalf("resolving a foreign gap: %s", b)
	}
	r.step(t, "continue", map[string]any{"stateToken": s2.StateToken, "ackToken": s2.AckToken,
		"output": map[string]any{"resolvesGaps": []map[string]any{{"gapId": id, "summary": "observed it by hand"}}}})
	var resolved, open int
	for _, g := range project.Gaps(r.events(t, s.Session.SessionID)) {
		if g.Resolved() {
			resolved++
			if g.ID != id {
				t.Fatalf("resolved %s; want %s", g.ID, id)
			}
		} else {
			open++
		}
	}
	if resolved != 1 || open < 1 {
		t.Fatalf("resolved %d, open %d", resolved, open)
	}
}

func TestStopOnUserDepsBlocksOnUnavailableCapability(t *testing.T) {
	r := autonomyRig(t)
	s := r.step(t, "start", map[string]any{"workflowId": "wr.auto", "mode": "wr.modes.full_auto_stop_on_user_deps"})
	obs := map[string]any{"kind": "wr.contracts.capability_observation", "capability": "web_browsing", "status": "unavailable"}
	res, b := r.call(t, "continue", map[string]any{"stateToken": s.StateToken, "ackToken": s.AckToken,
		"output": map[string]any{"artifacts": []any{obs}}})
	if got := codes(blockedOf(t, res, b).Blockers); got != "REQUIRED_CAPABILITY_UNAVAILABLE" {
		t.Fatalf("blockers = %s", got)
	}
	if k := kinds(r.events(t, s.Session.SessionID)); k[event.CapabilityObserved] != 1 {
		t.Fatalf("capability_observed events = %d; the observation must be kept though the step stays pending", k[event.CapabilityObserved])
	}
	// A manual claim of availability is weak: it never unlocks the probe.
	retry := blockedOf(t, res, b)
	claim := map[string]any{"kind": "wr.contracts.capability_observation", "capability": "web_browsing", "status": "available", "basis": "claimed"}
	res, b = r.call(t, "continue", map[string]any{"stateToken": retry.StateToken, "ackToken": retry.AckToken,
		"output": map[string]any{"artifacts": []any{claim}}})
	if got := codes(blockedOf(t, res, b).Blockers); got != "REQUIRED_CAPABILITY_UNKNOWN" {
		t.Fatalf("after a manual claim, blockers = %s", got)
	}
}

func TestPreferencesAreNodeAttached(t *testing.T) {
	r := autonomyRig(t)
	s := r.step(t, "start", map[string]any{"workflowId": "wr.auto", "preferences": map[string]any{"autonomy": "guided"}})
	next := r.step(t, "continue", map[string]any{"stateToken": s.StateToken, "ackToken": s.AckToken,
		"preferences": map[string]any{"autonomy": "full_auto_never_stop"}})
	if next.Preferences.Autonomy != "full_auto_never_stop" {
		t.Fatalf("after the change: %s", next.Preferences.Autonomy)
	}
	// The old node keeps the preferences effective there.
	old := r.step(t, "continue", map[string]any{"stateToken": s.StateToken})
	if old.Preferences.Autonomy != "guided" {
		t.Fatalf("rehydrating the old node: %s; want guided", old.Preferences.Autonomy)
	}
	k := kinds(r.events(t, s.Session.SessionID))
	if k[event.PreferencesChanged] != 2 {
		t.Fatalf("preferences_changed events = %d; want baseline + change", k[event.PreferencesChanged])
	}
}

func TestDivergenceIsRecorded(t *testing.T) {
	r := newRig(t, nil)
	s := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
	div := map[string]any{"kind": "wr.contracts.workflow_divergence", "reason": "step_not_applicable", "summary": "no workspace"}
	bad := map[string]any{"kind": "wr.contracts.workflow_divergence", "reason": "felt like it"}
	next := r.step(t, "continue", map[string]any{"stateToken": s.StateToken, "ackToken": s.AckToken,
		"output": map[string]any{"artifacts": []any{div, bad}}})
	if len(next.Warnings) != 1 || next.Warnings[0].Code != "ARTIFACT_INVALID" {
		t.Fatalf("warnings = %+v; want the invalid divergence disclosed", next.Warnings)
	}
	if k := kinds(r.events(t, s.Session.SessionID)); k[event.DivergenceRecorded] != 1 {
		t.Fatalf("divergence events = %d", k[event.DivergenceRecorded])
	}
}

// Same inputs, same bytes: two stores with the same key ring answer the
// same calls identically.
func TestResultsAreDeterministic(t *testing.T) {
	run := func() []string {
		r := autonomyRig(t)
		var out []string
		s := r.step(t, "start", map[string]any{"workflowId": "wr.auto"})
		b, _ := json.Marshal(s)
		out = append(out, string(b))
		res, b := r.call(t, "continue", map[string]any{"stateToken": s.StateToken, "ackToken": s.AckToken})
		out = append(out, string(b))
		_, b = r.call(t, "continue", res.(protocol.BlockedResult).NextCall.Arguments)
		return append(out, string(b))
	}
	a, b := run(), run()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("call %d differs:\n%s\n%s", i, a[i], b[i])
		}
	}
}

// Every bundled workflow reaches complete in every autonomy mode for an
// agent that follows nextCall; only never-stop records gaps instead of
// blocking.
func TestBundledWorkflowsInEveryMode(t *testing.T) {
	list, _ := newRig(t, nil).x.List(context.Background(), nil).(protocol.ListResult)
	for _, w := range list.Workflows {
		for _, mode := range outcome.Modes() {
			t.Run(string(w.ID)+"/"+string(mode), func(t *testing.T) {
				blocks := 0
				for _, res := range executetest.Drive(t, newRig(t, nil).x, w.ID, mode) {
					if res.ResultKind() == protocol.KindBlocked {
						blocks++
					}
				}
				if mode == outcome.ModeNeverStop && blocks > 0 {
					t.Fatalf("never-stop blocked %d times", blocks)
				}
			})
		}
	}
}

// A probe's suggested payload names the capability it probes, so copying
// it unblocks a workflow that requires delegation as well as one that
// requires web browsing.
func TestProbeExampleNamesItsCapability(t *testing.T) {
	src := strings.Replace(autonomyWorkflow, `"web_browsing":"required"`, `"delegation":"required"`, 1)
	r := newRig(t, catalogOf(t, map[string]string{"wr.auto.json": src}))
	s := r.step(t, "start", map[string]any{"workflowId": "wr.auto"})
	if s.Pending.StepID != "wr-probe-delegation" {
		t.Fatalf("first step %s", s.Pending.StepID)
	}
	if !strings.Contains(string(s.NextCall.Arguments.Output.Artifacts[0]), `"capability":"delegation"`) {
		t.Fatalf("the probe's call does not name its capability: %s", s.NextCall.Arguments.Output.Artifacts[0])
	}
	filled := executetest.Fill(t, s.NextCall.Arguments, s.Fills, "Delegated.", 0)
	if next := r.step(t, "continue", filled); next.Pending.StepID != "report" {
		t.Fatalf("the probe's call filled led to %s", next.Pending.StepID)
	}
}
