package outcome_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/workflow"
)

// What WorkRail suggests must work: sending every step exactly the examples
// its blockers quote clears all of its reasons.
func TestExamplesSatisfyTheirSteps(t *testing.T) {
	c := MustFixture(t)
	compile.Walk(c.Steps, func(n compile.Node) {
		if n.Step == nil {
			return
		}
		s := n.Step
		t.Run(string(s.ID), func(t *testing.T) {
			var sent []json.RawMessage
			if ex := outcome.OutputExample(c, s); ex != nil {
				sent = append(sent, ex)
			}
			if s.UserDependency != nil {
				sent = append(sent, json.RawMessage(outcome.UserResponseExample(s.UserDependency)))
			}
			ev := outcome.Evaluate(c, s, sent, nothingObserved)
			if len(ev.Reasons) != 0 || len(ev.Notices) != 0 {
				t.Fatalf("sending the examples %s left reasons %+v and notices %+v", sent, ev.Reasons, ev.Notices)
			}
		})
	})
}

func TestOutputExample(t *testing.T) {
	c := MustFixture(t)
	cases := []struct {
		step workflow.StepID
		want map[string]any // nil: no example
	}{
		{"plain", nil},
		{"ask-token", nil},
		{"report-gaps", decode(t, c.Contracts[workflow.ContractGaps].Example)},
		{"refine-once", decode(t, c.Contracts[workflow.ContractLoopControl].Example)},
		{"wr-probe-web_browsing", map[string]any{"kind": "wr.contracts.capability_observation", "capability": "web_browsing",
			"status": "available", "detail": "<what you tried and what happened>"}},
		{"probe-delegation", map[string]any{"kind": "wr.contracts.capability_observation", "capability": "delegation",
			"status": "available", "detail": "<what you tried and what happened>"}},
	}
	for _, tc := range cases {
		t.Run(string(tc.step), func(t *testing.T) {
			ex := outcome.OutputExample(c, MustStep(t, c, tc.step))
			if tc.want == nil {
				if ex != nil {
					t.Fatalf("example = %s; want none for a step without a contract", ex)
				}
				return
			}
			if got := decode(t, ex); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("example = %s; want %v", ex, tc.want)
			}
		})
	}
}

// Agents read the examples: "<" stays "<", not "\u003c".
func TestProbeExampleIsNotHTMLEscaped(t *testing.T) {
	c := MustFixture(t)
	ex := outcome.OutputExample(c, MustStep(t, c, "wr-probe-web_browsing"))
	if !bytes.Contains(ex, []byte(`"<what you tried and what happened>"`)) || bytes.Contains(ex, []byte(`\u003c`)) {
		t.Fatalf("example = %s; want the placeholder verbatim", ex)
	}
	if bytes.HasSuffix(ex, []byte("\n")) {
		t.Fatalf("example %q ends in a newline", ex)
	}
	if ur := outcome.UserResponseExample(&workflow.UserDependency{Options: []string{"<a> & <b>"}}); !bytes.Contains([]byte(ur), []byte(`"<a> & <b>"`)) {
		t.Fatalf("user response example = %s; want the option verbatim", ur)
	}
}

// A pinned example that is not an object is handed out as is, even on a
// probe step that would otherwise name its capability in it.
func TestProbeExampleKeepsANonObjectPinnedExample(t *testing.T) {
	c := MustFixture(t)
	c = withPack(c, workflow.ContractCapabilityObservation, compile.ContractPack{Schema: json.RawMessage(`{}`), Example: json.RawMessage(`["see the docs"]`)})
	if ex := outcome.OutputExample(c, MustStep(t, c, "wr-probe-web_browsing")); string(ex) != `["see the docs"]` {
		t.Fatalf("example = %s; want the pinned example unchanged", ex)
	}
}

func TestUserResponseExample(t *testing.T) {
	cases := []struct {
		name string
		dep  workflow.UserDependency
		want map[string]any
	}{
		{"no options", workflow.UserDependency{Reason: workflow.NeedsUserApproval},
			map[string]any{"kind": outcome.UserResponseKind, "response": "<what the user answered, in their words>"}},
		{"options suggest the first", workflow.UserDependency{Reason: workflow.NeedsUserChoice, Options: []string{"keep", "drop"}},
			map[string]any{"kind": outcome.UserResponseKind, "response": "<what the user answered, in their words>", "choice": "keep"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ex := outcome.UserResponseExample(&tc.dep)
			if got := decode(t, json.RawMessage(ex)); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("example = %s; want %v", ex, tc.want)
			}
		})
	}
}

func decode(tb testing.TB, b json.RawMessage) map[string]any {
	tb.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		tb.Fatalf("decode %s: %v", b, err)
	}
	return m
}
