package project

import (
	"cmp"
	"maps"
	"slices"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
)

// GapState is one gap in the open/resolved projection.
type GapState struct {
	ID          engine.EventID        `json:"gapId"`
	CreatedAt   engine.EventIndex     `json:"createdAtEventIndex"`
	Run         engine.RunID          `json:"runId"`
	Node        engine.NodeID         `json:"nodeId"`
	Gap         event.GapRecordedData `json:"gap"`
	Resolutions []Resolution          `json:"resolutions,omitempty"`
}

// Resolution is a later gap record that resolved a gap, and where.
type Resolution struct {
	ID      engine.EventID `json:"gapId"`
	Node    engine.NodeID  `json:"nodeId"`
	Summary string         `json:"summary"`
}

// Resolved reports whether a later record resolved the gap.
func (g GapState) Resolved() bool { return len(g.Resolutions) > 0 }

// Gaps folds a session's events into its gaps, in log order. A record
// that resolves another is linkage, not a gap of its own; history stays in
// the log.
func Gaps(evs []event.Event) []GapState {
	var out []GapState
	at := map[engine.EventID]int{}
	for _, e := range evs {
		g, ok := e.Data.(*event.GapRecordedData)
		if !ok {
			continue
		}
		if g.ResolvesGapID != "" {
			if i, ok := at[g.ResolvesGapID]; ok {
				out[i].Resolutions = append(out[i].Resolutions, Resolution{ID: e.ID, Node: e.Node, Summary: g.Summary})
			}
			continue
		}
		at[e.ID] = len(out)
		out = append(out, GapState{ID: e.ID, CreatedAt: e.Index, Run: e.Run, Node: e.Node, Gap: *g})
	}
	return out
}

// NodeGap is a gap recorded on one node, as the tools show it.
type NodeGap struct {
	ID        engine.EventID
	CreatedAt engine.EventIndex
	Gap       event.GapRecordedData
}

// GapsOn returns the gaps recorded on node n, in log order.
func GapsOn(r Reader, n Node) ([]NodeGap, error) {
	var out []NodeGap
	for _, i := range n.Gaps {
		ev, err := r.Event(i)
		if err != nil {
			return nil, err
		}
		g, ok := ev.Data.(*event.GapRecordedData)
		if !ok {
			return nil, notFound("gap event", i)
		}
		out = append(out, NodeGap{ID: ev.ID, CreatedAt: ev.Index, Gap: *g})
	}
	return out, nil
}

// OpenOnPath returns the gaps recorded on the path from the run's root to
// node n that no record up to event upTo resolved, worst first (critical
// before warning, then in log order): what a run that ended at n leaves
// open. Bounded by upTo, the answer is the same whenever it is read.
func OpenOnPath(r Reader, n Node, upTo engine.EventIndex) ([]GapState, error) {
	var at []engine.EventIndex
	for cur := n; ; {
		at = append(at, cur.Gaps...)
		if cur.Parent == 0 {
			break
		}
		var err error
		if cur, err = r.Node(cur.Parent); err != nil {
			return nil, err
		}
	}
	if len(at) == 0 {
		return nil, nil
	}
	slices.Sort(at)
	open := map[engine.EventID]GapState{}
	for _, i := range at {
		ev, err := r.Event(i)
		if err != nil {
			return nil, err
		}
		if g, ok := ev.Data.(*event.GapRecordedData); ok && g.ResolvesGapID == "" {
			open[ev.ID] = GapState{ID: ev.ID, CreatedAt: ev.Index, Run: ev.Run, Node: ev.Node, Gap: *g}
		}
	}
	// A resolution may be recorded anywhere in the session after its gap.
	for i := at[0] + 1; i <= upTo && len(open) > 0; i++ {
		ev, err := r.Event(i)
		if err != nil {
			return nil, err
		}
		if g, ok := ev.Data.(*event.GapRecordedData); ok && g.ResolvesGapID != "" {
			delete(open, g.ResolvesGapID)
		}
	}
	out := slices.Collect(maps.Values(open))
	slices.SortFunc(out, WorstFirst)
	return out, nil
}

// WorstFirst orders gaps as every list of open gaps shows them: critical
// before warning, then in log order.
func WorstFirst(a, b GapState) int {
	if sa, sb := a.Gap.Severity == event.SeverityCritical, b.Gap.Severity == event.SeverityCritical; sa != sb {
		if sa {
			return -1
		}
		return 1
	}
	return cmp.Compare(a.CreatedAt, b.CreatedAt)
}
