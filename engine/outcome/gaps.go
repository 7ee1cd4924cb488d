package outcome

import (
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
)

// GapState is one gap in the open/resolved projection.
type GapState struct {
	ID         engine.EventID        `json:"gapId"`
	CreatedAt  engine.EventIndex     `json:"createdAtEventIndex"`
	Node       engine.NodeID         `json:"nodeId"`
	Gap        event.GapRecordedData `json:"gap"`
	ResolvedBy []engine.EventID      `json:"resolvedBy,omitempty"`
}

// Resolved reports whether a later record resolved the gap.
func (g GapState) Resolved() bool { return len(g.ResolvedBy) > 0 }

// ProjectGaps folds a session's events into its gaps, in log order. A
// record that resolves another is linkage, not a gap of its own; history
// stays in the log.
func ProjectGaps(evs []event.Event) []GapState {
	var out []GapState
	at := map[engine.EventID]int{}
	for _, e := range evs {
		g, ok := e.Data.(*event.GapRecordedData)
		if !ok {
			continue
		}
		if g.ResolvesGapID != "" {
			if i, ok := at[g.ResolvesGapID]; ok {
				out[i].ResolvedBy = append(out[i].ResolvedBy, e.ID)
			}
			continue
		}
		at[e.ID] = len(out)
		out = append(out, GapState{ID: e.ID, CreatedAt: e.Index, Node: e.Node, Gap: *g})
	}
	return out
}
