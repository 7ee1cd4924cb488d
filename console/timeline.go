package console

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
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

// timeline cuts what the session's runs' projections hold into
// stretches of one run each, in log order: a session whose agent switched
// between runs reads as lanes taking turns; a one-run session is a
// single row. What a stretch counts is what the projections name at the
// indexes it spans: the steps reached and checkpoints taken, notes,
// gaps, blocked attempts and forks.
func timeline(runs []sessionRun) []stretch {
	type mark struct {
		at   engine.EventIndex
		run  int
		node engine.NodeID
		t    event.Millis
		what func(*stretch)
	}
	var marks []mark
	for i, r := range runs {
		p := r.P
		marks = append(marks, mark{at: p.StartedAt, run: i, t: p.StartedTime, what: func(s *stretch) { s.Started = true }})
		for _, id := range allParts(p) {
			pt, _ := p.Part(id)
			switch {
			case pt.Checkpoint:
				marks = append(marks, mark{pt.Created, i, pt.Node, pt.CreatedTime, func(s *stretch) { s.Checkpoints++ }})
			case pt.Step != "":
				step := pt.Step
				marks = append(marks, mark{pt.Created, i, pt.Node, pt.CreatedTime, func(s *stretch) { s.Steps = append(s.Steps, step) }})
			default:
				marks = append(marks, mark{pt.Created, i, pt.Node, pt.CreatedTime, func(*stretch) {}})
			}
			if pt.Linked != 0 {
				marks = append(marks, mark{pt.Linked, i, pt.Node, 0, func(*stretch) {}})
			}
			for _, a := range pt.Attempts {
				blocked := a.Blocked
				marks = append(marks, mark{a.At, i, pt.Node, a.Time, func(s *stretch) {
					if blocked {
						s.Blocked++
					}
				}})
			}
			for _, f := range append([]project.Facts{pt.Arrival}, factsOf(pt.Attempts)...) {
				for _, o := range f.Outputs {
					notes := o.Notes
					marks = append(marks, mark{o.At, i, pt.Node, 0, func(s *stretch) {
						if notes {
							s.Notes++
						}
					}})
				}
				for _, g := range f.Gaps {
					marks = append(marks, mark{g.At, i, pt.Node, 0, func(s *stretch) { s.Gaps++ }})
				}
			}
		}
		for _, b := range p.Branches[min(1, len(p.Branches)):] {
			pt, _ := p.Part(b.First)
			marks = append(marks, mark{pt.Created, i, b.First, 0, func(s *stretch) { s.Forks++ }})
		}
	}
	slices.SortStableFunc(marks, func(a, b mark) int { return cmp.Compare(a.at, b.at) })
	var out []stretch
	for _, m := range marks {
		r := runs[m.run]
		if len(out) == 0 || out[len(out)-1].Run != r.ID {
			out = append(out, stretch{Run: r.ID, Lane: r.Lane, From: m.at, WorkflowID: r.P.WorkflowID})
		}
		s := &out[len(out)-1]
		s.To = m.at
		if m.t != 0 {
			s.Began = cmp.Or(s.Began, m.t)
			s.Ended = m.t
		}
		if m.node != 0 {
			s.Last = m.node
		}
		m.what(s)
	}
	return out
}

// allParts lists the nodes of p, rows and checkpoints and where the run
// completed, in creation order.
func allParts(p *project.Projection) []engine.NodeID {
	var out []engine.NodeID
	for _, b := range p.Branches {
		out = append(out, b.Nodes...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func factsOf(as []project.Attempt) []project.Facts {
	out := make([]project.Facts, len(as))
	for i, a := range as {
		out[i] = a.Facts
	}
	return out
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
