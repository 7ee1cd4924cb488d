package outcome_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/workflow"
)

// The handoff contracts take what the library's prompts ask for: the
// discovery handoff an empty designDocPath ("or empty string"), the
// differentiation handoff the shape its step describes
// (evidenceFreshness {oldestCapturedAt, newestCapturedAt}, appetiteHint
// small_batch or big_batch, one of the eight powers); the shape they
// checked before, and values outside what the prompt lists, are refused.
func TestHandoffsTakeTheShapeTheirPromptsAsk(t *testing.T) {
	src := `{"id":"user.handoffs","name":"Handoffs","description":"d","version":"1","steps":[
		{"id":"discover","title":"Discover","prompt":"p","output":{"contractRef":"wr.contracts.discovery_handoff"}},
		{"id":"differentiate","title":"Differentiate","prompt":"p","output":{"contractRef":"wr.contracts.differentiation_handoff"}}]}`
	w, err := workflow.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	c, err := compile.Compile(w)
	if err != nil {
		t.Fatal(err)
	}
	const discovery = `{"kind":"wr.discovery_handoff","version":1,"selectedDirection":"Cache compiled workflows by hash.","designDocPath":"","confidenceBand":"high","keyInvariants":["A pinned run keeps its version."]}`
	differentiation := func(freshness, appetite, power string) string {
		return `{"kind":"wr.differentiation_handoff","version":1,"schemaVersion":"1.0.0","generatedAt":"2026-11-20T10:00:00Z",` +
			`"evidenceFreshness":` + freshness + `,"validationChecklist":["Three teams confirm it."],` +
			`"shapingHandoff":{"rawIdea":"Offline mode","problem":"Field staff lose work without signal.","baseline":"Paper notes.","appetiteHint":"` + appetite + `",` +
			`"noGosHints":["No sync UI."],"constraints":{"teamSize":2,"technicalCapabilities":["local storage"]},` +
			`"evidenceTopK":["interview-07"],"defensibilityClaim":{"power":"` + power + `","cannibalization":"none"}}}`
	}
	const asked = `{"oldestCapturedAt":"2026-09-01T00:00:00Z","newestCapturedAt":"2026-11-18T00:00:00Z"}`
	cases := []struct {
		name, step, sent string
		detail           string // "" when it passes
	}{
		{"discovery with an empty designDocPath", "discover", discovery, ""},
		{"differentiation as its prompt asks", "differentiate", differentiation(asked, "small_batch", "Counter-Positioning"), ""},
		{"differentiation, big batch", "differentiate", differentiation(asked, "big_batch", "Switching Costs"), ""},
		{"the freshness shape checked before", "differentiate", differentiation(`{"oldest":"2026-09-01","newest":"2026-11-18"}`, "small_batch", "Branding"), "evidenceFreshness"},
		{"an appetite the prompt does not list", "differentiate", differentiation(asked, "six weeks", "Branding"), "appetiteHint"},
		{"a power that is not one of the eight", "differentiate", differentiation(asked, "small_batch", "switching costs"), "power"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ev := evaluate(c, MustStep(t, c, workflow.StepID(tc.step)), arts(tc.sent), nothingObserved)
			if tc.detail == "" {
				if len(ev.Reasons) > 0 {
					t.Fatalf("refused: %v %s", codes(ev), ev.Reasons[0].Detail)
				}
				return
			}
			if got := codes(ev); !reflect.DeepEqual(got, []outcome.ReasonCode{outcome.InvalidRequiredOutput}) {
				t.Fatalf("reasons = %v; want %s", got, outcome.InvalidRequiredOutput)
			}
			if !strings.Contains(ev.Reasons[0].Detail, tc.detail) {
				t.Errorf("detail = %q; want it to name %s", ev.Reasons[0].Detail, tc.detail)
			}
		})
	}
}
