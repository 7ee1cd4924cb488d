package console

import (
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
)

// outputRef is an output as a page links to it: its id and the node it
// was recorded on.
type outputRef struct {
	ID   engine.EventID
	Run  engine.RunID
	Node engine.NodeID
}

// corrections are a session's outputs that replace others
// (supersedesOutputId), read both ways, so a page shows a replaced
// output, still whole, beside what replaced it.
type corrections struct {
	at map[engine.EventID]outputRef   // every output, by id
	by map[engine.EventID][]outputRef // an output → those replacing it, in log order
}

// correctionsOf reads the corrections of a session's events.
func correctionsOf(evs []event.Event) corrections {
	c := corrections{at: map[engine.EventID]outputRef{}, by: map[engine.EventID][]outputRef{}}
	for _, e := range evs {
		d, ok := e.Data.(*event.NodeOutputAppendedData)
		if !ok {
			continue
		}
		ref := outputRef{ID: e.ID, Run: e.Run, Node: e.Node}
		c.at[e.ID] = ref
		if d.Supersedes != "" {
			c.by[d.Supersedes] = append(c.by[d.Supersedes], ref)
		}
	}
	return c
}

// of is what output id, with payload d, replaces and is replaced by.
func (c corrections) of(id engine.EventID, d *event.NodeOutputAppendedData) correction {
	k := correction{ReplacedBy: c.by[id]}
	if r, ok := c.at[d.Supersedes]; ok { // an earlier event: a log is read in order
		k.Replaces = &r
	}
	return k
}

// correction is what one output replaces and what replaces it.
type correction struct {
	Replaces   *outputRef
	ReplacedBy []outputRef
}
