package project

import (
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
)

// Outcome is what happened at one node, or summed over the nodes a
// folded row stands for: what a reader reviewing the run looks for.
type Outcome struct {
	// OpenGaps counts the gaps recorded here and not resolved since;
	// Critical those of them that are critical.
	OpenGaps, Critical int
	// UserDependencies counts the open gaps that wait on the user.
	UserDependencies int
	// ResolvedGaps counts the gaps recorded here and resolved since.
	ResolvedGaps int
	// Blocked counts the ack attempts the mode matrix blocked here.
	Blocked     int
	Divergences int
	// Missing counts capability observations that found a capability
	// unavailable; Observed the others.
	Missing, Observed int
	Checkpoints       int
	// Refused counts what attempts sent that was not taken; NotRecorded
	// the gaps refused gaps artifacts carried.
	Refused, NotRecorded int
}

// Add sums o and p: a fold holds what its nodes hold.
func (o Outcome) Add(p Outcome) Outcome {
	o.OpenGaps += p.OpenGaps
	o.Critical += p.Critical
	o.UserDependencies += p.UserDependencies
	o.ResolvedGaps += p.ResolvedGaps
	o.Blocked += p.Blocked
	o.Divergences += p.Divergences
	o.Missing += p.Missing
	o.Observed += p.Observed
	o.Checkpoints += p.Checkpoints
	o.Refused += p.Refused
	o.NotRecorded += p.NotRecorded
	return o
}

// Worst is the closed set of how bad an outcome is, worst first.
type Worst string

// How bad an outcome is.
const (
	WorstCritical Worst = "critical" // an open critical gap
	WorstBlocked  Worst = "blocked"  // a blocked attempt
	WorstWarning  Worst = "warning"  // an open gap, a divergence or a missing capability
	WorstNone     Worst = "none"
)

// Worst says how bad o is.
func (o Outcome) Worst() Worst {
	switch {
	case o.Critical > 0:
		return WorstCritical
	case o.Blocked > 0:
		return WorstBlocked
	case o.OpenGaps > 0 || o.Divergences > 0 || o.Missing > 0:
		return WorstWarning
	}
	return WorstNone
}

// Outcomes folds a session's events once into the outcome of every node
// that has one. Facts an attempt disclosed are recorded on the node it
// created; a blocked attempt on the node it was made at.
func Outcomes(g *Graph) map[engine.NodeID]Outcome {
	out := map[engine.NodeID]Outcome{}
	put := func(id engine.NodeID, f func(*Outcome)) {
		o := out[id]
		f(&o)
		out[id] = o
	}
	for _, gap := range Gaps(g.events) {
		put(gap.Node, func(o *Outcome) {
			switch {
			case gap.Resolved():
				o.ResolvedGaps++
				return
			case gap.Gap.Severity == event.SeverityCritical:
				o.Critical++
			}
			o.OpenGaps++
			if gap.Gap.Reason == event.GapUserOnlyDependency {
				o.UserDependencies++
			}
		})
	}
	for _, e := range g.events {
		switch d := e.Data.(type) {
		case *event.AdvanceRecordedData:
			if d.Outcome == event.OutcomeBlocked {
				put(e.Node, func(o *Outcome) { o.Blocked++ })
			}
		case *event.DivergenceRecordedData:
			put(e.Node, func(o *Outcome) { o.Divergences++ })
		case *event.CapabilityObservedData:
			put(e.Node, func(o *Outcome) {
				if d.Status == event.CapabilityUnavailable {
					o.Missing++
				} else {
					o.Observed++
				}
			})
		case *event.NodeCreatedData:
			if d.NodeKind == event.NodeCheckpoint {
				put(e.Node, func(o *Outcome) { o.Checkpoints++ })
			}
		}
	}
	return out
}
