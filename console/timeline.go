package console

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// maxLanes is how many runs get a timeline lane of their own; later runs
// share the last one (their rows still name their run).
const maxLanes = 8

// stretch is one row of the session timeline: a stretch of consecutive
// events of one run, between two events of other runs.
type stretch struct {
	Run        engine.RunID
	Lane       int // 1-based column, the run's place in start order
	From, To   engine.EventIndex
	Steps      []workflow.StepID // steps of the nodes made in the stretch, in order
	Last       engine.NodeID     // the last node touched, where the row links
	Notes      int
	Gaps       int
	Blocked    int
	Forks      int
	Started    bool // the run started in this stretch
	WorkflowID engine.WorkflowID

	// Checkpoints counts the checkpoints made in the stretch: notes
	// recorded at a step without reaching a new one.
	Checkpoints int

	// Began and Ended are when the stretch's first and last events that
	// recorded a time were appended (zero when none did).
	Began, Ended event.Millis
}

// timeline cuts a session's log into stretches of one run each, in log
// order: a session whose agent switched between runs reads as lanes
// taking turns; a one-run session is a single row.
func timeline(g *project.Graph) ([]stretch, error) {
	lane := map[engine.RunID]int{}
	for i, r := range g.Runs() {
		lane[r.ID] = min(i+1, maxLanes)
	}
	var out []stretch
	for _, e := range g.Events() {
		if e.Run == 0 {
			continue
		}
		if len(out) == 0 || out[len(out)-1].Run != e.Run {
			r, err := g.Run(e.Run)
			if err != nil {
				return nil, err
			}
			out = append(out, stretch{Run: e.Run, Lane: lane[e.Run], From: e.Index, WorkflowID: r.WorkflowID})
		}
		s := &out[len(out)-1]
		s.To = e.Index
		if e.AppendedAt != 0 {
			s.Began = cmp.Or(s.Began, e.AppendedAt)
			s.Ended = e.AppendedAt
		}
		if e.Node != 0 {
			s.Last = e.Node
		}
		if err := s.add(g, e); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (s *stretch) add(g *project.Graph, e event.Event) error {
	switch d := e.Data.(type) {
	case *event.RunStartedData:
		s.Started = true
	case *event.NodeCreatedData:
		if d.NodeKind == event.NodeCheckpoint {
			s.Checkpoints++
			return nil
		}
		snap, err := g.Snapshot(d.Snapshot)
		if err != nil {
			return err
		}
		if snap.Position.Kind == run.Pending {
			s.Steps = append(s.Steps, snap.Position.Step)
		}
	case *event.EdgeCreatedData:
		if d.EdgeKind == event.EdgeForkedFromNonTip {
			s.Forks++
		}
	case *event.NodeOutputAppendedData:
		if d.NotesMarkdown != "" {
			s.Notes++
		}
	case *event.GapRecordedData:
		if d.ResolvesGapID == "" {
			s.Gaps++
		}
	case *event.AdvanceRecordedData:
		if d.Outcome == event.OutcomeBlocked {
			s.Blocked++
		}
	}
	return nil
}

// StepsText names the steps a stretch reached: all of them when few,
// else the first and last around a count.
func (s stretch) StepsText() string {
	switch n := len(s.Steps); {
	case n == 0:
		return "no new step"
	case n <= 3:
		parts := make([]string, n)
		for i, st := range s.Steps {
			parts[i] = string(st)
		}
		return strings.Join(parts, " → ")
	default:
		return string(s.Steps[0]) + " → … → " + string(s.Steps[n-1]) + " (" + strconv.Itoa(n) + " steps)"
	}
}

// Extras counts what else happened in the stretch, in words.
func (s stretch) Extras() string {
	var parts []string
	for _, c := range []struct {
		n          int
		one, other string
	}{{s.Notes, "note", "notes"}, {s.Gaps, "gap", "gaps"}, {s.Blocked, "blocked attempt", "blocked attempts"}, {s.Forks, "fork", "forks"}} {
		switch {
		case c.n == 1:
			parts = append(parts, "1 "+c.one)
		case c.n > 1:
			parts = append(parts, strconv.Itoa(c.n)+" "+c.other)
		}
	}
	return strings.Join(parts, ", ")
}

// CheckpointsText counts the stretch's checkpoints in words ("" for none).
func (s stretch) CheckpointsText() string {
	switch s.Checkpoints {
	case 0:
		return ""
	case 1:
		return "1 checkpoint"
	}
	return strconv.Itoa(s.Checkpoints) + " checkpoints"
}

func (s stretch) EventsText() string {
	if s.From == s.To {
		return "event " + strconv.FormatUint(uint64(s.From), 10)
	}
	return "events " + strconv.FormatUint(uint64(s.From), 10) + "–" + strconv.FormatUint(uint64(s.To), 10)
}

func laneClass(prefix string, lane int) string { return prefix + " lane-" + strconv.Itoa(lane) }
