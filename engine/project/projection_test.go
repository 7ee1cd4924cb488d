package project_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/project/projecttest"
)

// projectionOf folds s's log and assembles run r's projection.
func projectionOf(t *testing.T, s *session, r engine.RunID) *project.Projection {
	t.Helper()
	f, err := project.FoldAll(sid, s.Events, s.Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.Projection(r)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A step that went through on its fifth attempt is one row: four blocked
// attempts and the advance, all on the node the step was pending at; the
// next step's row holds only its own attempts.
func TestProjectionRowHoldsItsOwnAttempts(t *testing.T) {
	s := newSession(t)
	r, root := s.run("triage")
	n2 := s.advance(r, root, 0, "deliver", "triaged")
	for a := range engine.Attempt(4) {
		s.block(r, n2, a)
	}
	n3 := s.advance(r, n2, 4, "wrap", "delivered")
	s.block(r, n3, 0)
	s.block(r, n3, 1)
	p := projectionOf(t, s, r)
	deliver, ok := p.Row(n2)
	if !ok || deliver.Step != "deliver" || deliver.Blocked() != 4 || !deliver.Done() || len(deliver.Attempts) != 5 || deliver.Next != n3 {
		t.Fatalf("deliver row %+v", deliver)
	}
	if wrap, _ := p.Row(n3); wrap.Blocked() != 2 || wrap.Done() || wrap.Step != "wrap" {
		t.Fatalf("wrap row %+v", wrap)
	}
	if first, _ := p.Row(root); first.Blocked() != 0 || !first.Done() || first.Step != "triage" {
		t.Fatalf("triage row %+v", first)
	}
	if p.StepsDone() != 2 || p.Verdict() != project.VerdictNeedsUser {
		t.Fatalf("steps done %d, verdict %s; want 2, needs_user (blocked on a user-only dependency)", p.StepsDone(), p.Verdict())
	}
}

// An agent that checkpointed and then sent the call it held from before
// goes on on the same line, in a log that recorded it as a fork (builds
// before the rule did): no second branch, the checkpoint on the step's
// row, the node marked continued. Going on from before the checkpoint
// once more, after the line went on, is a branch, and says so.
func TestProjectionCheckpointIsNoBranch(t *testing.T) {
	s := newSession(t)
	r, root := s.run("a")
	n2 := s.advance(r, root, 0, "b", "did a")
	cp := s.Checkpoint(r, n2, "halfway through b")
	n3 := s.advance(r, n2, 0, "c", "did b") // the log says fork
	if k := edgeInto(s, n3); k != event.EdgeForkedFromNonTip {
		t.Fatalf("fixture: edge into %s is %s", n3, k)
	}
	p := projectionOf(t, s, r)
	row, _ := p.Row(n2)
	if len(p.Branches) != 1 || !slices.Equal(row.Checkpoints, []engine.NodeID{cp}) || row.Next != n3 || p.BranchOf(cp) != 0 {
		t.Fatalf("branches %d, row %+v", len(p.Branches), row)
	}
	if next, _ := p.Row(n3); !next.Continued || next.Branch != 0 {
		t.Fatalf("row of %s: %+v; want continued on A", n3, next)
	}
	if p.Branches[0].Status != project.BranchCurrent || p.Branches[0].End != n3 {
		t.Fatalf("branch A %+v", p.Branches[0])
	}

	// The line went on from the checkpoint; the call held from before it
	// is then a branch of its own.
	s2 := newSession(t)
	r, root = s2.run("a")
	n2 = s2.advance(r, root, 0, "b", "did a")
	cp = s2.Checkpoint(r, n2, "halfway")
	s2.advance(r, cp, 0, "c", "did b from the checkpoint")
	late := s2.advance(r, n2, 0, "c", "did b from before it")
	p = projectionOf(t, s2, r)
	if len(p.Branches) != 2 || p.Branches[1].Origin != project.OriginCheckpoint || p.Branches[1].First != late || p.Branches[1].From != n2 {
		t.Fatalf("branches %+v", p.Branches)
	}
	if p.Branches[0].Status != project.BranchLeftBehind || p.Branches[1].Status != project.BranchCurrent {
		t.Fatalf("states %s, %s; want A left behind, B current", p.Branches[0].Status, p.Branches[1].Status)
	}
}

// Letters are the order branches were made in, whatever the tip: A, the
// first path, stays A after a rewound chat's branch becomes current, and
// is left behind; a Console fork in a log from before origins were
// recorded is told by its attempt number.
func TestProjectionLettersAreStable(t *testing.T) {
	s := newSession(t)
	r, root := s.run("a")
	n2 := s.advance(r, root, 0, "b", "")
	s.advance(r, n2, 0, "c", "")
	rewound := s.advance(r, root, 1, "b", "again")
	console := s.advance(r, root, 10_002, "b", "from the Console")
	p := projectionOf(t, s, r)
	want := []project.Origin{project.OriginFirst, project.OriginRewound, project.OriginConsoleFork}
	var got []project.Origin
	for _, b := range p.Branches {
		got = append(got, b.Origin)
	}
	if !slices.Equal(got, want) || p.Branches[1].First != rewound || p.Branches[2].First != console {
		t.Fatalf("branches %+v", p.Branches)
	}
	if p.Tip != console || p.Branches[2].Status != project.BranchCurrent || p.Branches[0].Status != project.BranchLeftBehind ||
		p.Branches[1].Status != project.BranchLeftBehind {
		t.Fatalf("tip %s, states %s %s %s", p.Tip, p.Branches[0].Status, p.Branches[1].Status, p.Branches[2].Status)
	}
	if first, _ := p.Row(root); !slices.Equal(first.Forks, []engine.NodeID{rewound, console}) || first.Next != n2 {
		t.Fatalf("root row %+v", first)
	}
	if !slices.Equal(p.Branches[0].Nodes, []engine.NodeID{root, n2, n2 + 1}) {
		t.Fatalf("A holds %v", p.Branches[0].Nodes)
	}
	var starts []engine.NodeID
	for _, row := range p.Rows {
		if row.Starts {
			starts = append(starts, row.Node)
		}
	}
	if !slices.Equal(starts, []engine.NodeID{rewound, console}) {
		t.Fatalf("rows that start a branch: %v; want B's and C's first, %v", starts, []engine.NodeID{rewound, console})
	}
}

// A gaps artifact no record took is listed as not recorded; one that
// was recorded is not; a resolution recorded in another run closes a
// gap where it was recorded.
func TestProjectionGaps(t *testing.T) {
	s := newSession(t)
	r, root := s.run("a")
	n2 := s.Advance(r, root, 0, projecttest.At(1, "b"))
	s.add(r, n2, &event.NodeOutputAppendedData{StepID: "a", NotesMarkdown: "did a", Artifacts: []json.RawMessage{
		json.RawMessage(`{"kind":"wr.contracts.gaps","gaps":[{"severity":"critical","summary":"No tests ran"}]}`),
		json.RawMessage(`{"kind":"wr.contracts.gaps","gaps":[{"severity":"severe","summary":"The build is red"}]}`)}})
	gap := s.add(r, n2, &event.GapRecordedData{Reason: event.GapAssumptionMade, Severity: event.SeverityCritical, Summary: "No tests ran", RelatedStepID: "a"})
	r2, root2 := s.run("x")
	n4 := s.Advance(r2, root2, 0, projecttest.Done)
	res := s.add(r2, n4, &event.GapRecordedData{Reason: event.GapAssumptionMade, Severity: event.SeverityCritical, Summary: "ran them", ResolvesGapID: gap.ID})
	p := projectionOf(t, s, r)
	row, _ := p.Row(root)
	a := row.Attempts[0]
	if len(a.NotRecorded) != 1 || a.NotRecorded[0].Summary != "The build is red" || a.NotRecorded[0].Severity != "severe" {
		t.Fatalf("not recorded %+v", a.NotRecorded)
	}
	if len(p.OpenGaps()) != 0 || row.Outcome.ResolvedGaps != 1 || row.Outcome.NotRecorded != 1 {
		t.Fatalf("open %v, outcome %+v", p.OpenGaps(), row.Outcome)
	}
	if g := p.Gaps(); len(g) != 1 || g[0].ResolvedBy != res.Index || g[0].ResolvedOn != n4 || g[0].Row != root || g[0].Node != n2 {
		t.Fatalf("gaps %+v", g)
	}
	if got := projectionOf(t, s, r2); got.Verdict() != project.VerdictComplete || got.StepsDone() != 1 {
		t.Fatalf("run 2 verdict %s, %d steps done", got.Verdict(), got.StepsDone())
	}
}

func edgeInto(s *session, n engine.NodeID) event.EdgeKind {
	for _, e := range s.Events {
		if d, ok := e.Data.(*event.EdgeCreatedData); ok && d.To == n {
			return d.EdgeKind
		}
	}
	return ""
}

// What the start recorded is the root's alone: its row counts it, the
// path to any node shows it once, and no later row has it.
func TestProjectionStartFactsAreTheRootRowsOnly(t *testing.T) {
	s := newSession(t)
	r, root := s.run("a")
	s.add(r, root, &event.GapRecordedData{Reason: event.GapAssumptionMade, Severity: event.SeverityWarning, Summary: "given at the start"})
	n2 := s.advance(r, root, 0, "b", "did a")
	n3 := s.advance(r, n2, 0, "c", "did b")
	p := projectionOf(t, s, r)
	tests := []struct {
		node engine.NodeID
		gaps int
	}{{root, 1}, {n2, 0}, {n3, 0}}
	for _, tt := range tests {
		if got := len(p.StartAt(tt.node).Gaps); got != tt.gaps {
			t.Errorf("StartAt(%s): %d gaps, want %d", tt.node, got, tt.gaps)
		}
		if row, _ := p.Row(tt.node); row.Outcome.OpenGaps != tt.gaps {
			t.Errorf("row %s: %d open gaps, want %d", tt.node, row.Outcome.OpenGaps, tt.gaps)
		}
	}
	var withGap []engine.NodeID
	for _, st := range p.Along(n3) {
		if len(st.Recorded.Gaps) > 0 {
			withGap = append(withGap, st.Node)
		}
	}
	if !slices.Equal(withGap, []engine.NodeID{root}) {
		t.Errorf("stops along the path with the start's gap: %v, want only the root %s", withGap, root)
	}
}
