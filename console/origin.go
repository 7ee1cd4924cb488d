package console

import (
	"time"

	"github.com/workrail/workrail/console/lanes"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
)

// provenance is how a node came to be and when, as its panel says it:
// who made it (the origin its node_created records, never guessed from
// attempt numbers), the context keys a Console fork changed, when it was
// reached and how long the step before it took.
type provenance struct {
	Origin  event.Origin
	Restart bool     // the Console started the run over here (a run's root)
	Changed []string // context keys whose value differs from the parent's, sorted
	Reached span     // from the parent's creation to this node's
	Now     time.Time
	g       *project.Graph
}

// provenanceOf reads node n's provenance from the fold.
func provenanceOf(g *project.Graph, n project.Node, now time.Time) (provenance, error) {
	p := provenance{Now: now, g: g, Reached: span{To: n.CreatedTime}}
	created, err := g.Event(n.CreatedAt)
	if err != nil {
		return p, err
	}
	p.Origin = created.Origin
	if n.Parent == 0 {
		p.Restart = p.Origin == event.OriginConsole
		return p, nil
	}
	parent, err := g.Node(n.Parent)
	if err != nil {
		return p, err
	}
	p.Reached.From = parent.CreatedTime
	if p.Origin != event.OriginConsole {
		return p, nil
	}
	p.Changed, err = contextChanged(g, n)
	return p, err
}

// timeAt is when event i was appended; zero when not recorded.
func (p provenance) timeAt(i engine.EventIndex) event.Millis {
	if p.g == nil {
		return 0
	}
	e, err := p.g.Event(i)
	if err != nil {
		return 0
	}
	return e.AppendedAt
}

// rowTimes reads, for each row of l that shows a node, when the node was
// made and when its parent was.
func rowTimes(g *project.Graph, l lanes.Layout) (map[engine.NodeID]span, error) {
	out := make(map[engine.NodeID]span, len(l.Rows))
	for _, row := range l.Rows {
		if row.Kind != lanes.NodeRow {
			continue
		}
		n, err := g.Node(row.Node)
		if err != nil {
			return nil, err
		}
		s := span{To: n.CreatedTime}
		if n.Parent != 0 {
			p, err := g.Node(n.Parent)
			if err != nil {
				return nil, err
			}
			s.From = p.CreatedTime
		}
		out[row.Node] = s
	}
	return out, nil
}
