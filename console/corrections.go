package console

import (
	"cmp"
	"slices"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/project"
)

// outputRef is an output as a page links to it: its id, the node it was
// recorded on and the row whose step it is of (what a link opens).
type outputRef struct {
	ID   engine.EventID
	Run  engine.RunID
	Node engine.NodeID
	Row  engine.NodeID
}

// corrections are a session's outputs that replace others
// (supersedesOutputId), read both ways from the runs' projections, so a
// page shows a replaced output, still whole, beside what replaced it.
type corrections struct {
	at map[engine.EventID]outputRef   // every replaced output, by id
	by map[engine.EventID][]outputRef // an output → those replacing it, in log order
}

// correctionsOf reads the corrections of session sid's runs. Most runs
// correct nothing, so the outputs are walked a second time, for the
// replaced ones, only when one was.
func correctionsOf(sid engine.SessionID, runs []*project.Projection) corrections {
	c := corrections{by: map[engine.EventID][]outputRef{}}
	type replacing struct {
		at  engine.EventIndex
		ref outputRef
		of  engine.EventID
	}
	var rs []replacing
	for _, p := range runs {
		eachOutput(p, func(row, node engine.NodeID, o project.OutputRef) {
			if o.Supersedes != "" {
				rs = append(rs, replacing{o.At, outputRef{ID: engine.NewEventID(sid, o.At), Run: p.Run, Node: node, Row: row}, o.Supersedes})
			}
		})
	}
	if len(rs) == 0 {
		return c
	}
	slices.SortFunc(rs, func(a, b replacing) int { return cmp.Compare(a.at, b.at) })
	for _, r := range rs {
		c.by[r.of] = append(c.by[r.of], r.ref)
	}
	c.at = map[engine.EventID]outputRef{}
	for _, p := range runs {
		eachOutput(p, func(row, node engine.NodeID, o project.OutputRef) {
			if id := engine.NewEventID(sid, o.At); len(c.by[id]) > 0 {
				c.at[id] = outputRef{ID: id, Run: p.Run, Node: node, Row: row}
			}
		})
	}
	return c
}

// eachOutput calls f with every output of p's rows (what their attempts
// and checkpoints recorded), the row it is of and the node it is on.
func eachOutput(p *project.Projection, f func(row, node engine.NodeID, o project.OutputRef)) {
	for _, row := range p.Rows {
		for _, a := range row.Attempts {
			node := a.To
			if a.Blocked {
				node = a.Node
			}
			for _, o := range a.Recorded.Outputs {
				f(row.Node, node, o)
			}
		}
		for _, cp := range row.Checkpoints {
			part, _ := p.Part(cp)
			for _, o := range part.Arrival.Outputs {
				f(row.Node, cp, o)
			}
		}
	}
}

// of is what output id, replacing the output supersedes (or none), replaces
// and is replaced by.
func (c corrections) of(id, supersedes engine.EventID) correction {
	k := correction{ReplacedBy: c.by[id]}
	if r, ok := c.at[supersedes]; ok {
		k.Replaces = &r
	}
	return k
}

// correction is what one output replaces and what replaces it.
type correction struct {
	Replaces   *outputRef
	ReplacedBy []outputRef
}
