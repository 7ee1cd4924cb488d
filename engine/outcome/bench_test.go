package outcome_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/workflow"
)

// BenchmarkKept is what checking an output for WorkRail's template adds to
// an advance: a 2 KB note and an artifact, as an agent that filled its
// call sends them (the common case), and as a call copied as it is.
func BenchmarkKept(b *testing.B) {
	c := MustFixture(b)
	s := MustStep(b, c, "refine-once")
	ask := outcome.AskOf(c, s, workflow.Guided, outcome.UserNeed{})
	notes := strings.Repeat("Checked the retry path and the tests around it; ", 43)[:2048]
	for _, tc := range []struct {
		name     string
		notes    string
		artifact json.RawMessage
	}{
		{"filled", notes, json.RawMessage(`{"kind":"wr.contracts.loop_control","decision":"stop","reason":"Nothing left worth another pass."}`)},
		{"copied", ask.NotesMarker(), ask.Values()[0]},
	} {
		b.Run(tc.name, func(b *testing.B) {
			arts := []json.RawMessage{tc.artifact}
			b.ReportAllocs()
			for b.Loop() {
				outcome.Kept(ask, tc.notes, arts)
			}
		})
	}
}
