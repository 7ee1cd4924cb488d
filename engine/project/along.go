package project

import (
	"cmp"
	"slices"

	"github.com/workrail/workrail/engine"
)

// Stop is one act on the way to a node, as the path to it reads: a
// checkpoint taken at a row, or the attempt that went on from a row along
// the path, with what it recorded.
type Stop struct {
	// Row is the node of the row the act was made at.
	Row engine.NodeID
	// Node is the node the act made: a checkpoint, or the node the path
	// goes on to.
	Node       engine.NodeID
	Checkpoint bool
	At         engine.EventIndex
	Recorded   Facts
	// Refused and NotRecorded are what the going-on attempt sent that was
	// refused, and the gaps those carried (a checkpoint's have none).
	Refused     []Refusal
	NotRecorded []CarriedGap
}

// Along lists the acts on the way from the run's root to node n, in log
// order within each row: the checkpoints taken at each row of Path(n) (a
// checkpoint stays on the path of its row, whichever call went on) and
// the attempt that went on from it to the next row of the path (or to n,
// where the run completed). What the start recorded comes first, as the
// root's stop.
func (p *Projection) Along(n engine.NodeID) []Stop {
	rows := p.Path(n)
	var out []Stop
	for i, row := range rows {
		var stops []Stop
		if start := p.StartAt(row.Node); !start.empty() {
			out = append(out, Stop{Row: row.Node, Node: row.Node, At: row.Created, Recorded: start})
		}
		for _, cp := range row.Checkpoints {
			if pt, ok := p.nodes.part(cp); ok {
				stops = append(stops, Stop{Row: row.Node, Node: cp, Checkpoint: true, At: pt.Created, Recorded: pt.Arrival})
			}
		}
		to := engine.NodeID(0)
		if i+1 < len(rows) {
			to = rows[i+1].Node
		} else if pt, ok := p.nodes.part(n); ok && pt.Step == "" && !pt.Checkpoint && pt.From != 0 {
			to = n
		}
		for _, a := range row.Attempts {
			if to != 0 && !a.Blocked && a.To == to {
				stops = append(stops, Stop{Row: row.Node, Node: to, At: a.At, Recorded: *a.Recorded, Refused: a.Refused, NotRecorded: a.NotRecorded})
			}
		}
		slices.SortStableFunc(stops, func(a, b Stop) int { return cmp.Compare(a.At, b.At) })
		out = append(out, stops...)
	}
	return out
}

// empty says f recorded nothing.
func (f Facts) empty() bool {
	return len(f.Outputs)+len(f.Gaps)+len(f.Resolutions)+len(f.Divergences)+len(f.Capabilities)+len(f.Traces) == 0
}
