package project

import (
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
