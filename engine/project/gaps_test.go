package project_test

import (
	"reflect"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
)

// Gaps over a log with other events, multiple resolutions and
// resolutions that name nothing resolvable.
func TestGapsFoldTheLog(t *testing.T) {
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
	got := project.Gaps(evs)
	if len(got) != 2 {
		t.Fatalf("projection has %d gaps; want 2 (resolutions are linkage, not gaps): %+v", len(got), got)
	}
	a, b := got[0], got[1]
	if a.ID != "g_a" || a.CreatedAt != 3 || a.Node != 2 || a.Gap.Summary != "a" {
		t.Errorf("first gap = %+v; want g_a as recorded", a)
	}
	want := []project.Resolution{{ID: "r_1", Node: 3, Summary: "fixed a"}, {ID: "r_2", Node: 4, Summary: "fixed a again"}}
	if !reflect.DeepEqual(a.Resolutions, want) || !a.Resolved() {
		t.Errorf("g_a resolved by %+v; want r_1 and r_2 in log order, with their nodes (not g_early, which came first)", a.Resolutions)
	}
	if b.ID != "g_b" || b.Resolved() {
		t.Errorf("second gap = %+v; want g_b, open", b)
	}
	if got := project.Gaps(nil); len(got) != 0 {
		t.Errorf("Gaps(nil) = %+v", got)
	}
}

func TestGapsOnANode(t *testing.T) {
	s := newSession(t)
	r, root := s.run("a")
	g1 := s.add(r, root, &event.GapRecordedData{Reason: event.GapAssumptionMade, Severity: event.SeverityWarning, Summary: "one"})
	g2 := s.add(r, root, &event.GapRecordedData{Reason: event.GapCapabilityMissing, Severity: event.SeverityCritical, Summary: "two"})
	g := s.graph()
	got, err := project.GapsOn(g, mustNode(t, g, root))
	if err != nil || len(got) != 2 || got[0].ID != g1.ID || got[1].CreatedAt != g2.Index || got[1].Gap.Summary != "two" {
		t.Fatalf("GapsOn = %+v, %v", got, err)
	}
	bad := mustNode(t, g, root)
	bad.Gaps = []engine.EventIndex{1}
	if _, err := project.GapsOn(g, bad); err == nil {
		t.Fatal("a gap index naming another kind of event went unnoticed")
	}
	bad.Gaps = []engine.EventIndex{99}
	if _, err := project.GapsOn(g, bad); err == nil {
		t.Fatal("a gap index past the log went unnoticed")
	}
}

// The gaps a run that ended at a node leaves open: those of its path
// (never a branch's), worst first, less those resolved by a record up to
// the bound (anywhere in the session), so a later resolution does not
// change what was open then.
func TestOpenOnPath(t *testing.T) {
	s := newSession(t)
	r, root := s.run("a")
	warn := func(n engine.NodeID, summary string) event.Event {
		return s.add(r, n, &event.GapRecordedData{Reason: event.GapAssumptionMade, Severity: event.SeverityWarning, Summary: summary})
	}
	crit := func(n engine.NodeID, summary string) event.Event {
		return s.add(r, n, &event.GapRecordedData{Reason: event.GapOutputMissing, Severity: event.SeverityCritical, Summary: summary})
	}
	warn(root, "w1")
	b := s.advance(r, root, 0, "b", "")
	resolved := crit(b, "c-resolved")
	crit(b, "c1")
	other := s.advance(r, root, 1, "b", "") // a branch beside b
	warn(other, "on the branch")
	end := s.advance(r, b, 0, "done", "")
	warn(end, "w2")
	s.add(r, end, &event.GapRecordedData{Reason: event.GapOutputMissing, Severity: event.SeverityCritical, Summary: "fixed", ResolvesGapID: resolved.ID})
	g := s.graph()
	n := mustNode(t, g, end)
	summaries := func(upTo engine.EventIndex) []string {
		t.Helper()
		open, err := project.OpenOnPath(g, n, upTo)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, o := range open {
			out = append(out, o.Gap.Summary)
		}
		return out
	}
	if got, want := summaries(n.LastActivity), []string{"c1", "w1", "w2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("open at the end: %v; want %v", got, want)
	}
	if got, want := summaries(n.LastActivity-1), []string{"c-resolved", "c1", "w1", "w2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("open before the resolution: %v; want %v", got, want)
	}
}
