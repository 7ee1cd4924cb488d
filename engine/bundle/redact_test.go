package bundle

import (
	"encoding/json"
	"testing"

	"github.com/workrail/workrail/engine/event"
)

// Masking keeps a JSON value's shape and types and none of its content.
func TestMask(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"a string", `"AKIAIOSFODNN7EXAMPLE"`, `"[redacted]"`},
		{"an empty string stays empty", `""`, `""`},
		{"a number", `4111111111111111`, `0`},
		{"a fraction", `3.25`, `0`},
		{"flags and null stay", `[true,false,null]`, `[true,false,null]`},
		{"a list keeps its length", `["/home/me/repo","main",7]`, `["[redacted]","[redacted]",0]`},
		{"an object keeps its keys", `{"branch":"feat/x","nested":{"token":"ghp_x","n":1}}`,
			`{"branch":"[redacted]","nested":{"n":0,"token":"[redacted]"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v any
			if err := json.Unmarshal([]byte(tc.in), &v); err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(mask(v))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("mask(%s) = %s; want %s", tc.in, got, tc.want)
			}
		})
	}
}

// An artifact keeps its kind, which names its contract, and masks all
// else, a kind nested deeper included.
func TestMaskArtifact(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"kind":"wr.user_response","response":"my token is ghp_abc"}`, `{"kind":"wr.user_response","response":"[redacted]"}`},
		{`{"kind":"wr.contracts.gaps","gaps":[{"kind":"x","summary":"s"}]}`, `{"gaps":[{"kind":"[redacted]","summary":"[redacted]"}],"kind":"wr.contracts.gaps"}`},
		{`{"kind":{"secret":"s"}}`, `{"kind":{"secret":"[redacted]"}}`},
		{`["a",1]`, `["[redacted]",0]`},
	} {
		got, err := masker{}.artifact(json.RawMessage(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.want {
			t.Errorf("masker{}.artifact(%s) = %s; want %s", tc.in, got, tc.want)
		}
	}
}

// Every kind of event has a redaction rule: a kind added to event.Kinds
// fails here until it is listed, and a payload of no known kind is
// refused by a full redaction, never exported as it is.
func TestEveryKindHasARedactionRule(t *testing.T) {
	payloads := []event.Payload{&event.SessionCreatedData{}, &event.ObservationRecordedData{}, &event.RunStartedData{},
		&event.NodeCreatedData{}, &event.EdgeCreatedData{}, &event.NodeOutputAppendedData{}, &event.PreferencesChangedData{},
		&event.CapabilityObservedData{}, &event.GapRecordedData{}, &event.DivergenceRecordedData{},
		&event.DecisionTraceAppendedData{}, &event.AdvanceRecordedData{}}
	listed := map[event.Kind]bool{}
	for _, p := range payloads {
		listed[p.Kind()] = true
		if _, err := (masker{}).payload(p, nil); err != nil {
			t.Errorf("%s: %v", p.Kind(), err)
		}
	}
	for _, k := range event.Kinds() {
		if !listed[k] {
			t.Errorf("kind %s is not listed here: decide what of it a redacted bundle shares (masker.payload), then list it", k)
		}
	}
	if _, err := (masker{}).payload(nil, nil); err == nil {
		t.Error("a payload of no known kind is redacted as it is")
	}
}
