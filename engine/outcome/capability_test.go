package outcome_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/workflow"
)

// obs is a capability observation artifact; basis "" leaves it out.
func obs(capability, status, basis string) string {
	s := `{"kind":"wr.contracts.capability_observation","capability":"` + capability + `","status":"` + status + `"`
	if basis != "" {
		s += `,"basis":"` + basis + `"`
	}
	return s + `,"detail":"tried it"}`
}

var observedAvailable = map[workflow.Capability]event.CapabilityStatus{workflow.WebBrowsing: event.CapabilityAvailable}

// The probe of a required capability: a strong observation decides it, a
// manual claim of availability does not, and nothing at all leaves it
// unknown unless the branch already saw it work.
func TestEvaluateRequiredCapabilityProbe(t *testing.T) {
	c := MustFixture(t)
	s := MustStep(t, c, "wr-probe-web_browsing")
	if s.Probe != workflow.WebBrowsing || c.Capabilities[workflow.WebBrowsing] != workflow.Required {
		t.Fatalf("fixture: step probes %q, web_browsing is %q; want an injected probe of a required capability", s.Probe, c.Capabilities[workflow.WebBrowsing])
	}
	cases := []struct {
		name     string
		sent     []string
		observed map[workflow.Capability]event.CapabilityStatus
		want     []outcome.ReasonCode
		prov     []event.Provenance // of the recorded observations, in order
	}{
		{"tried and available", []string{obs("web_browsing", "available", "tried")}, nothingObserved, nil, []event.Provenance{event.ProbeStep}},
		{"available, basis left out", []string{obs("web_browsing", "available", "")}, nothingObserved, nil, []event.Provenance{event.ProbeStep}},
		{"tried and unavailable", []string{obs("web_browsing", "unavailable", "tried")}, nothingObserved,
			[]outcome.ReasonCode{outcome.RequiredCapabilityUnavailable}, []event.Provenance{event.ProbeStep}},
		{"unavailable now, though seen available before", []string{obs("web_browsing", "unavailable", "")}, observedAvailable,
			[]outcome.ReasonCode{outcome.RequiredCapabilityUnavailable}, []event.Provenance{event.ProbeStep}},
		{"claimed available is not enough", []string{obs("web_browsing", "available", "claimed")}, nothingObserved,
			[]outcome.ReasonCode{outcome.RequiredCapabilityUnknown}, []event.Provenance{event.ManualClaim}},
		{"claimed available, seen available before", []string{obs("web_browsing", "available", "claimed")}, observedAvailable,
			nil, []event.Provenance{event.ManualClaim}},
		{"only another capability reported", []string{obs("delegation", "available", "claimed")}, nothingObserved,
			[]outcome.ReasonCode{outcome.RequiredCapabilityUnknown}, []event.Provenance{event.ManualClaim}},
		{"nothing sent", nil, nothingObserved,
			[]outcome.ReasonCode{outcome.MissingRequiredOutput, outcome.RequiredCapabilityUnknown}, nil},
		{"nothing sent, seen available before", nil, observedAvailable,
			[]outcome.ReasonCode{outcome.MissingRequiredOutput}, nil},
		{"malformed observation", []string{`{"kind":"wr.contracts.capability_observation","capability":"web_browsing","status":"maybe"}`}, nothingObserved,
			[]outcome.ReasonCode{outcome.InvalidRequiredOutput, outcome.RequiredCapabilityUnknown}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ev := evaluate(c, s, arts(tc.sent...), tc.observed)
			if got := codes(ev); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("reasons = %v; want %v", got, tc.want)
			}
			var prov []event.Provenance
			for _, o := range ev.Observations {
				prov = append(prov, o.Provenance)
			}
			if !reflect.DeepEqual(prov, tc.prov) {
				t.Fatalf("observation provenance = %v; want %v", prov, tc.prov)
			}
			if len(ev.Notices) != 0 {
				t.Fatalf("notices = %+v; a probe reports through its reasons, not notices", ev.Notices)
			}
			for _, r := range ev.Reasons {
				switch r.Code {
				case outcome.RequiredCapabilityUnknown:
					if r.Capability != workflow.WebBrowsing {
						t.Errorf("unknown reason = %+v; want web_browsing with the probe's template", r)
					}
				case outcome.RequiredCapabilityUnavailable:
					if r.Capability != workflow.WebBrowsing || r.Step != s.ID {
						t.Errorf("unavailable reason = %+v; want web_browsing at %s", r, s.ID)
					}
				}
			}
		})
	}
}

// What an observation records: the capability, its status, the detail and a
// provenance from the closed set.
func TestObservationRecordsWhatWasSent(t *testing.T) {
	c := MustFixture(t)
	ev := evaluate(c, MustStep(t, c, "wr-probe-web_browsing"), arts(obs("web_browsing", "available", "tried")), nothingObserved)
	want := []event.CapabilityObservedData{{Capability: workflow.WebBrowsing, Status: event.CapabilityAvailable, Provenance: event.ProbeStep, Detail: "tried it"}}
	if !reflect.DeepEqual(ev.Observations, want) {
		t.Fatalf("observations = %+v; want %+v", ev.Observations, want)
	}
}

// Observations made while doing other work: recorded as attempted use (or a
// manual claim), never a reason to block; a preferred capability found
// missing by a strong observation is disclosed as a degraded path.
func TestEvaluateObservationsOutsideProbes(t *testing.T) {
	c := MustFixture(t)
	if c.Capabilities[workflow.Delegation] != workflow.Preferred {
		t.Fatalf("fixture: delegation is %q; want preferred", c.Capabilities[workflow.Delegation])
	}
	cases := []struct {
		name    string
		step    workflow.StepID
		sent    []string
		prov    []event.Provenance
		notices []string
	}{
		{"preferred missing, tried", "plain", []string{obs("delegation", "unavailable", "tried")}, []event.Provenance{event.AttemptedUse}, []string{"CAPABILITY_DEGRADED"}},
		{"preferred missing, basis left out", "plain", []string{obs("delegation", "unavailable", "")}, []event.Provenance{event.AttemptedUse}, []string{"CAPABILITY_DEGRADED"}},
		{"preferred missing, only claimed", "plain", []string{obs("delegation", "unavailable", "claimed")}, []event.Provenance{event.ManualClaim}, nil},
		{"preferred available", "plain", []string{obs("delegation", "available", "tried")}, []event.Provenance{event.AttemptedUse}, nil},
		{"required missing outside its probe", "plain", []string{obs("web_browsing", "unavailable", "tried")}, []event.Provenance{event.AttemptedUse}, nil},
		{"preferred missing at its own probe", "probe-delegation", []string{obs("delegation", "unavailable", "tried")}, []event.Provenance{event.ProbeStep}, []string{"CAPABILITY_DEGRADED"}},
		{"malformed", "plain", []string{`{"kind":"wr.contracts.capability_observation","capability":"teleportation","status":"available"}`}, nil, []string{"ARTIFACT_INVALID"}},
		{"one malformed, one good", "plain", []string{`{"kind":"wr.contracts.capability_observation","capability":"delegation"}`, obs("delegation", "available", "")},
			[]event.Provenance{event.AttemptedUse}, []string{"ARTIFACT_INVALID"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ev := evaluate(c, MustStep(t, c, tc.step), arts(tc.sent...), nothingObserved)
			if len(ev.Reasons) != 0 {
				t.Fatalf("reasons = %v; an observation outside a required probe never blocks", codes(ev))
			}
			var prov []event.Provenance
			for _, o := range ev.Observations {
				prov = append(prov, o.Provenance)
			}
			if !reflect.DeepEqual(prov, tc.prov) {
				t.Fatalf("observation provenance = %v; want %v", prov, tc.prov)
			}
			if got := noticeCodes(ev); !reflect.DeepEqual(got, tc.notices) {
				t.Fatalf("notices = %+v; want %v", ev.Notices, tc.notices)
			}
			for _, n := range ev.Notices {
				if string(n.Code) == "CAPABILITY_DEGRADED" && !strings.Contains(n.Message, "delegation") {
					t.Errorf("degraded notice %q does not name the capability", n.Message)
				}
			}
		})
	}
}

// A probe of a merely preferred capability requires its observation but
// never raises a capability reason.
func TestPreferredProbeNeverBlocksOnTheCapability(t *testing.T) {
	c := MustFixture(t)
	s := MustStep(t, c, "probe-delegation")
	if got := codes(evaluate(c, s, nil, nothingObserved)); !reflect.DeepEqual(got, []outcome.ReasonCode{outcome.MissingRequiredOutput}) {
		t.Fatalf("reasons = %v; want only the missing observation", got)
	}
	if got := codes(evaluate(c, s, arts(obs("delegation", "unavailable", "tried")), nothingObserved)); len(got) != 0 {
		t.Fatalf("reasons = %v; want none for an unavailable preferred capability", got)
	}
}
