package console

import (
	"testing"

	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/project/projecttest"
)

// projected folds l's log and gives its runs as the session page does.
func runsOf(t *testing.T, l *projecttest.Log) []sessionRun {
	t.Helper()
	f, err := project.FoldAll(projecttest.Session, l.Events, l.Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	var out []sessionRun
	for i, id := range f.Lineage.Runs() {
		p, err := f.Projection(id)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, sessionRun{P: p, ID: id, Lane: min(i+1, maxLanes)})
	}
	return out
}

// Two runs taking turns read as lanes taking turns: one row per stretch
// of one run, in log order, with what happened in it.
func TestTimelineCutsTheLogIntoStretchesOfOneRun(t *testing.T) {
	l := projecttest.New(t)
	r1, n1 := l.StartWorkflow("wr.review", projecttest.At(0, "plan"))
	n2 := l.Advance(r1, n1, 0, projecttest.At(1, "edit"))
	r2, m1 := l.StartWorkflow("wr.docs", projecttest.At(0, "outline"))
	l.Output(r2, m1, "outline", "Outlined.")
	l.Add(r2, m1, &event.GapRecordedData{Severity: event.SeverityWarning, Reason: event.GapAssumptionMade, Summary: "assumed"})
	n3 := l.Advance(r1, n2, 0, projecttest.At(2, "test"))
	l.Advance(r1, n3, 0, projecttest.At(3, "ship"))
	l.Advance(r1, n1, 1, projecttest.At(1, "edit")) // a fork off the root
	l.Block(r1, n3, 1)

	got := timeline(runsOf(t, l))
	type row struct {
		run, lane int
		steps     string
		extras    string
		events    string
		started   bool
	}
	want := []row{
		{1, 1, "plan → edit", "", "events 2–6", true},
		{2, 2, "outline", "1 note, 1 gap", "events 7–10", true},
		{1, 1, "test → ship → edit", "1 blocked attempt, 1 fork", "events 11–20", false},
	}
	if len(got) != len(want) {
		t.Fatalf("%d stretches, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if int(g.Run) != w.run || g.Lane != w.lane || g.StepsText() != w.steps || g.Extras() != w.extras || g.EventsText() != w.events || g.Started != w.started {
			t.Errorf("stretch %d = run %d lane %d %q %q %q started %v; want %+v", i, g.Run, g.Lane, g.StepsText(), g.Extras(), g.EventsText(), g.Started, w)
		}
	}
}

// A checkpoint is counted as one, never as a step reached again: the
// stretch names the steps it reached and says how many checkpoints it
// made.
func TestTimelineCountsCheckpointsApartFromSteps(t *testing.T) {
	l := projecttest.New(t)
	r1, n1 := l.StartWorkflow("wr.review", projecttest.At(0, "plan"))
	c := l.Checkpoint(r1, n1, "Read the code.")
	n2 := l.Advance(r1, c, 0, projecttest.At(1, "edit"))
	l.StartWorkflow("wr.docs", projecttest.At(0, "outline"))
	l.Checkpoint(r1, l.Checkpoint(r1, n2, "Edited."), "Still editing.")

	got := timeline(runsOf(t, l))
	want := []struct{ steps, checkpoints, extras string }{
		{"plan → edit", "1 checkpoint", "1 note"},
		{"outline", "", ""},
		{"no new step", "2 checkpoints", "2 notes"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d stretches, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if g := got[i]; g.StepsText() != w.steps || g.CheckpointsText() != w.checkpoints || g.Extras() != w.extras {
			t.Errorf("stretch %d = %q %q %q; want %+v", i, g.StepsText(), g.CheckpointsText(), g.Extras(), w)
		}
	}
}
