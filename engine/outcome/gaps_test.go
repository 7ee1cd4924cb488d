package outcome_test

import (
	"reflect"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/outcome"
)

// ProjectGaps over a log with other events, multiple resolutions and
// resolutions that name nothing resolvable.
func TestProjectGapsFoldsTheLog(t *testing.T) {
	gap := func(id string, i engine.EventIndex, node engine.NodeID, summary, resolves string) event.Event {
		return event.Event{ID: engine.EventID(id), Index: i, Node: node, Kind: event.GapRecorded, Data: &event.GapRecordedData{
			Reason: event.GapAssumptionMade, Severity: event.SeverityWarning, Summary: summary, ResolvesGapID: engine.EventID(resolves)}}
	}
	other := func(id string, i engine.EventIndex) event.Event {
		return event.Event{ID: engine.EventID(id), Index: i, Kind: event.DivergenceRecorded, Data: &event.DivergenceRecordedData{Reason: event.DivergeScopeChange, Summary: "x"}}
	}
	evs := []event.Event{
		gap("g_early", 1, 1, "resolves a gap recorded later", "g_a"),
		other("d_1", 2),
		gap("g_a", 3, 2, "a", ""),
		gap("g_b", 4, 2, "b", ""),
		gap("r_1", 5, 3, "fixed a", "g_a"),
		other("d_2", 6),
		gap("r_2", 7, 4, "fixed a again", "g_a"),
		gap("r_3", 8, 4, "resolves a resolution", "r_1"),
	}
	got := outcome.ProjectGaps(evs)
	if len(got) != 2 {
		t.Fatalf("projection has %d gaps; want 2 (resolutions are linkage, not gaps): %+v", len(got), got)
	}
	a, b := got[0], got[1]
	if a.ID != "g_a" || a.CreatedAt != 3 || a.Node != 2 || a.Gap.Summary != "a" {
		t.Errorf("first gap = %+v; want g_a as recorded", a)
	}
	if !reflect.DeepEqual(a.ResolvedBy, []engine.EventID{"r_1", "r_2"}) || !a.Resolved() {
		t.Errorf("g_a resolved by %v; want [r_1 r_2] in log order (not g_early, which came first)", a.ResolvedBy)
	}
	if b.ID != "g_b" || b.Resolved() {
		t.Errorf("second gap = %+v; want g_b, open", b)
	}
	if got := outcome.ProjectGaps(nil); len(got) != 0 {
		t.Errorf("ProjectGaps(nil) = %+v", got)
	}
}
