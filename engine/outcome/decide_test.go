package outcome_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/workflow"
)

// From what the agent sent to what it is told: each reason Evaluate finds in
// the fixture, projected by Decide. guided and full_auto_stop_on_user_deps
// block with the blocker shown; full_auto_never_stop records the gap and
// continues.
func TestEvaluateThenDecide(t *testing.T) {
	c := MustFixture(t)
	const badGaps = `{"kind":"wr.contracts.gaps","gaps":[{"summary":"","severity":"warning"}]}`
	cases := []struct {
		name    string
		step    workflow.StepID
		sent    []string
		blocker event.Blocker
		gap     event.GapRecordedData
	}{
		{name: "user-only dependency", step: "ask-token",
			blocker: event.Blocker{Code: event.BlockUserOnlyDependency, Pointer: event.Pointer{Kind: event.PointWorkflowStep, StepID: "ask-token"},
				Message:      "Only the user can resolve this (needs_user_secret_or_token): The deploy token lives in the user's vault.",
				SuggestedFix: "Ask the user: The deploy token for staging. Keep the secret in the chat (or let the user put it where the tool that needs it reads it): never send its value to WorkRail. Then retry with the call below, saying in its wr.user_response only that the user provided it."},
			gap: event.GapRecordedData{Reason: event.GapUserOnlyDependency, Dependency: workflow.NeedsUserSecretOrToken, Severity: event.SeverityCritical,
				Summary: "Continued without the user (needs_user_secret_or_token): The deploy token lives in the user's vault.", RelatedStepID: "ask-token",
				HowToResolve: "Ask the user: The deploy token for staging"}},
		{name: "non-assumable choice", step: "pick-scope",
			blocker: event.Blocker{Code: event.BlockUserOnlyDependency, Pointer: event.Pointer{Kind: event.PointWorkflowStep, StepID: "pick-scope"},
				Message:      "Only the user can resolve this (needs_user_choice): The change can stay in one package or touch the API. The choice cannot be assumed (scope_boundary).",
				SuggestedFix: "Ask the user: How far should the change go (options: one package | whole API), and wait for their answer: never answer for them. Then retry with the call below, their answer in place of the markers of its wr.user_response."},
			gap: event.GapRecordedData{Reason: event.GapUserOnlyDependency, Dependency: workflow.NeedsUserChoice, Severity: event.SeverityCritical,
				Summary:       "The user's choice was not asked (scope_boundary): The change can stay in one package or touch the API. No choice was made; the run went on without one.",
				RelatedStepID: "pick-scope", HowToResolve: "Ask the user: How far should the change go"}},
		{name: "missing output", step: "report-gaps",
			blocker: event.Blocker{Code: event.BlockMissingRequiredOutput, Pointer: event.Pointer{Kind: event.PointOutputContract, ContractRef: workflow.ContractGaps},
				Message:      "Step report-gaps requires an artifact of kind wr.contracts.gaps in output.artifacts; none was sent.",
				SuggestedFix: "Retry with the call below, each marker of its wr.contracts.gaps artifact replaced by your own answer."},
			gap: event.GapRecordedData{Reason: event.GapOutputMissing, Severity: event.SeverityCritical,
				Summary: "Step report-gaps advanced without a valid wr.contracts.gaps artifact", RelatedStepID: "report-gaps",
				HowToResolve: "Produce the wr.contracts.gaps artifact the step asks for"}},
		{name: "invalid output", step: "report-gaps", sent: []string{badGaps},
			blocker: event.Blocker{Code: event.BlockInvalidRequiredOutput, Pointer: event.Pointer{Kind: event.PointOutputContract, ContractRef: workflow.ContractGaps},
				Message:      "The wr.contracts.gaps artifact does not match its contract: at /gaps/0/summary: minLength: got 0, want 1",
				SuggestedFix: "Retry with the call below, its wr.contracts.gaps artifact as the contract asks, each marker replaced by your own answer."},
			gap: event.GapRecordedData{Reason: event.GapOutputMissing, Severity: event.SeverityCritical,
				Summary:       "Step report-gaps advanced without a valid wr.contracts.gaps artifact: at /gaps/0/summary: minLength: got 0, want 1",
				RelatedStepID: "report-gaps", HowToResolve: "Produce the wr.contracts.gaps artifact the step asks for"}},
		{name: "required capability unknown", step: "wr-probe-web_browsing", sent: []string{obs("web_browsing", "available", "claimed")},
			blocker: event.Blocker{Code: event.BlockRequiredCapabilityUnknown, Pointer: event.Pointer{Kind: event.PointCapability, Capability: workflow.WebBrowsing},
				Message:      "This workflow requires web_browsing and its availability has not been observed.",
				SuggestedFix: "Try the capability as the step says, and report what happened in the call below."},
			gap: event.GapRecordedData{Reason: event.GapCapabilityMissing, Severity: event.SeverityCritical,
				Summary:       "Required capability web_browsing is not available (required_capability_unknown); continued without it",
				RelatedStepID: "wr-probe-web_browsing", HowToResolve: "Make web_browsing available and rerun the affected steps"}},
		{name: "required capability unavailable", step: "wr-probe-web_browsing", sent: []string{obs("web_browsing", "unavailable", "tried")},
			blocker: event.Blocker{Code: event.BlockRequiredCapabilityUnavailable, Pointer: event.Pointer{Kind: event.PointCapability, Capability: workflow.WebBrowsing},
				Message: "This workflow requires web_browsing, which was observed unavailable.",
				SuggestedFix: "Make web_browsing available to the agent (e.g. install or enable a tool that provides it) and retry the probe, or provide the needed material yourself; " +
					"or start the workflow in mode wr.modes.full_auto_never_stop to continue without it, with the gap recorded."},
			gap: event.GapRecordedData{Reason: event.GapCapabilityMissing, Severity: event.SeverityCritical,
				Summary:       "Required capability web_browsing is not available (required_capability_unavailable); continued without it",
				RelatedStepID: "wr-probe-web_browsing", HowToResolve: "Make web_browsing available and rerun the affected steps"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ev := evaluate(c, MustStep(t, c, tc.step), arts(tc.sent...), nothingObserved)
			if len(ev.Reasons) != 1 {
				t.Fatalf("reasons = %v; want exactly one", codes(ev))
			}
			for _, a := range []workflow.Autonomy{workflow.Guided, workflow.FullAutoStopOnUserDep} {
				d := outcome.Decide(a, ev.Reasons)
				if len(d.Gaps) != 0 || len(d.Blockers) != 1 || !reflect.DeepEqual(d.Blockers[0], tc.blocker) {
					t.Errorf("%s: decision = %+v\nwant blocker %+v", a, d, tc.blocker)
				}
			}
			d := outcome.Decide(workflow.FullAutoNeverStop, ev.Reasons)
			if len(d.Blockers) != 0 || len(d.Gaps) != 1 || !reflect.DeepEqual(d.Gaps[0], tc.gap) {
				t.Errorf("never stop: decision = %+v\nwant gap %+v", d, tc.gap)
			}
		})
	}
}

// A user dependency without options or a choice kind says neither.
func TestUserBlockerWithoutOptions(t *testing.T) {
	dep := &workflow.UserDependency{Reason: workflow.NeedsUserApproval, Summary: "Deleting the branch is final.", RequestedFromUser: "May I delete it"}
	d := outcome.Decide(workflow.Guided, []outcome.Reason{{Code: outcome.UserOnlyDependency, Step: "s", Dependency: dep}})
	b := d.Blockers[0]
	if strings.Contains(b.Message, "cannot be assumed") || strings.Contains(b.SuggestedFix, "options") {
		t.Fatalf("blocker = %+v; mentions a choice kind or options the dependency does not have", b)
	}
}

// Blockers sort by code, then pointer: the order is a property of the set,
// never of the order reasons were found in.
func TestBlockersSortAcrossCodes(t *testing.T) {
	dep := &workflow.UserDependency{Reason: workflow.NeedsUserArtifact, Summary: "s", RequestedFromUser: "r"}
	reasons := []outcome.Reason{
		{Code: outcome.UserOnlyDependency, Step: "b", Dependency: dep},
		{Code: outcome.UserOnlyDependency, Step: "a", Dependency: dep},
		{Code: outcome.RequiredCapabilityUnknown, Step: "p", Capability: workflow.WebBrowsing},
		{Code: outcome.RequiredCapabilityUnavailable, Step: "p", Capability: workflow.WebBrowsing},
		{Code: outcome.RequiredCapabilityUnavailable, Step: "p", Capability: workflow.Delegation},
		{Code: outcome.MissingRequiredOutput, Step: "s", ContractRef: workflow.ContractLoopControl},
		{Code: outcome.InvalidRequiredOutput, Step: "s", ContractRef: workflow.ContractGaps},
	}
	want := []string{
		"INVALID_REQUIRED_OUTPUT wr.contracts.gaps",
		"MISSING_REQUIRED_OUTPUT wr.contracts.loop_control",
		"REQUIRED_CAPABILITY_UNAVAILABLE delegation",
		"REQUIRED_CAPABILITY_UNAVAILABLE web_browsing",
		"REQUIRED_CAPABILITY_UNKNOWN web_browsing",
		"USER_ONLY_DEPENDENCY a",
		"USER_ONLY_DEPENDENCY b",
	}
	for i := range reasons {
		rotated := append(append([]outcome.Reason(nil), reasons[i:]...), reasons[:i]...)
		var got []string
		for _, b := range outcome.Decide(workflow.Guided, rotated).Blockers {
			p := b.Pointer
			got = append(got, fmt.Sprintf("%s %s", b.Code, string(p.ContractRef)+string(p.Capability)+string(p.StepID)))
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("rotation %d: blockers\n%v\nwant\n%v", i, got, want)
		}
	}
}

// Never-stop records one gap per reason, in the order found, and no
// blockers; nothing found is nothing decided in every mode.
func TestDecideGapsKeepReasonOrder(t *testing.T) {
	reasons := []outcome.Reason{
		{Code: outcome.RequiredCapabilityUnknown, Step: "p", Capability: workflow.WebBrowsing},
		{Code: outcome.MissingRequiredOutput, Step: "s", ContractRef: workflow.ContractGaps},
	}
	d := outcome.Decide(workflow.FullAutoNeverStop, reasons)
	if len(d.Blockers) != 0 || len(d.Gaps) != 2 || d.Gaps[0].Reason != event.GapCapabilityMissing || d.Gaps[1].Reason != event.GapOutputMissing {
		t.Fatalf("decision = %+v", d)
	}
	for _, a := range []workflow.Autonomy{workflow.Guided, workflow.FullAutoStopOnUserDep, workflow.FullAutoNeverStop} {
		if d := outcome.Decide(a, nil); len(d.Blockers) != 0 || len(d.Gaps) != 0 {
			t.Errorf("%s: no reasons decided %+v", a, d)
		}
	}
}

// An autonomy outside the closed set (or none) fails closed: it blocks.
func TestUnknownAutonomyBlocks(t *testing.T) {
	for _, a := range []workflow.Autonomy{"", "yolo", "FULL_AUTO_NEVER_STOP"} {
		for _, r := range []outcome.ReasonCode{outcome.UserOnlyDependency, outcome.NonAssumableChoice, outcome.MissingRequiredOutput,
			outcome.InvalidRequiredOutput, outcome.RequiredCapabilityUnknown, outcome.RequiredCapabilityUnavailable} {
			if got := outcome.Matrix(a, r); got != outcome.Block {
				t.Errorf("Matrix(%q, %s) = %s; want block", a, r, got)
			}
		}
	}
}

// Clipping keeps valid UTF-8, marks the cut, stays within the bound and
// keeps a prefix of the original whatever rune the bound falls inside.
func TestBoundClipsOnRuneBoundaries(t *testing.T) {
	for _, r := range []string{"a", "é", "€", "😀"} {
		for pad := 0; pad < utf8.UTFMax; pad++ {
			t.Run(fmt.Sprintf("%s+%d", r, pad), func(t *testing.T) {
				msg := strings.Repeat("x", pad) + strings.Repeat(r, 2*outcome.MaxSuggestedFixBytes)
				bs := outcome.Bound([]event.Blocker{{Code: event.BlockMissingRequiredOutput, Message: msg, SuggestedFix: msg}})
				for _, f := range []struct {
					got string
					max int
				}{{bs[0].Message, outcome.MaxMessageBytes}, {bs[0].SuggestedFix, outcome.MaxSuggestedFixBytes}} {
					if len(f.got) > f.max || !utf8.ValidString(f.got) || !strings.HasSuffix(f.got, "…") {
						t.Fatalf("clipped to %d bytes (bound %d), valid UTF-8 %v: %q", len(f.got), f.max, utf8.ValidString(f.got), f.got)
					}
					kept := strings.TrimSuffix(f.got, "…")
					if !strings.HasPrefix(msg, kept) || len(kept) < f.max-len("…")-2*utf8.UTFMax {
						t.Fatalf("kept %d bytes of the original; want a prefix close to the bound %d", len(kept), f.max)
					}
				}
			})
		}
	}
}

// Text at the bound is left alone; one byte over is clipped.
func TestBoundLeavesTextThatFits(t *testing.T) {
	fits := strings.Repeat("m", outcome.MaxMessageBytes)
	over := fits + "m"
	bs := outcome.Bound([]event.Blocker{{Code: event.BlockMissingRequiredOutput, Message: fits, SuggestedFix: strings.Repeat("f", outcome.MaxSuggestedFixBytes)},
		{Code: event.BlockInvalidRequiredOutput, Message: over}})
	if bs[1].Message != fits || len(bs[1].SuggestedFix) != outcome.MaxSuggestedFixBytes {
		t.Fatalf("text at the bound was changed: %d and %d bytes", len(bs[1].Message), len(bs[1].SuggestedFix))
	}
	if len(bs[0].Message) > outcome.MaxMessageBytes || !strings.HasSuffix(bs[0].Message, "…") {
		t.Fatalf("text over the bound kept %d bytes", len(bs[0].Message))
	}
	if got := outcome.Bound(nil); len(got) != 0 {
		t.Fatalf("Bound(nil) = %v", got)
	}
}

// Gaps respect the same byte bounds as blockers.
func TestGapTextIsBounded(t *testing.T) {
	long := strings.Repeat("€", outcome.MaxSuggestedFixBytes)
	dep := &workflow.UserDependency{Reason: workflow.NeedsUserArtifact, Summary: long, RequestedFromUser: long}
	reasons := []outcome.Reason{
		{Code: outcome.UserOnlyDependency, Step: "s", Dependency: dep},
		{Code: outcome.InvalidRequiredOutput, Step: "s", ContractRef: workflow.ContractGaps, Detail: long},
	}
	for _, g := range outcome.Decide(workflow.FullAutoNeverStop, reasons).Gaps {
		if len(g.Summary) > outcome.MaxMessageBytes || len(g.HowToResolve) > outcome.MaxSuggestedFixBytes ||
			!utf8.ValidString(g.Summary) || !utf8.ValidString(g.HowToResolve) || !strings.HasSuffix(g.Summary, "…") {
			t.Fatalf("gap out of bounds: summary %d bytes, howToResolve %d bytes", len(g.Summary), len(g.HowToResolve))
		}
	}
}

// The count bound at its edge: MaxBlockers are all kept; one more drops
// the last in sort order.
func TestBoundCountAtTheEdge(t *testing.T) {
	for _, n := range []int{outcome.MaxBlockers, outcome.MaxBlockers + 1} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var reasons []outcome.Reason
			for i := n - 1; i >= 0; i-- {
				reasons = append(reasons, outcome.Reason{Code: outcome.MissingRequiredOutput, Step: "s", ContractRef: workflow.ContractRef(fmt.Sprintf("c%02d", i))})
			}
			bs := outcome.Decide(workflow.Guided, reasons).Blockers
			if len(bs) != outcome.MaxBlockers {
				t.Fatalf("%d reasons gave %d blockers; want %d", n, len(bs), outcome.MaxBlockers)
			}
			if last := bs[len(bs)-1].Pointer.ContractRef; last != workflow.ContractRef(fmt.Sprintf("c%02d", outcome.MaxBlockers-1)) {
				t.Fatalf("last kept blocker points at %s; want the first %d in order", last, outcome.MaxBlockers)
			}
		})
	}
}
