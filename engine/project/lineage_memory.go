package project

import (
	"maps"
	"slices"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
)

// Lineage keeps a session's projection records in memory: what the
// in-memory store keeps, and what a fold of a bundle's log makes. It
// implements Parts.
type Lineage struct {
	parts map[engine.NodeID]Part
	heads map[engine.RunID]RunHead
}

// NewLineage returns an empty Lineage.
func NewLineage() *Lineage {
	return &Lineage{parts: map[engine.NodeID]Part{}, heads: map[engine.RunID]RunHead{}}
}

// Part implements Parts.
func (l *Lineage) Part(id engine.RunID, n engine.NodeID) (Part, error) {
	p, ok := l.parts[n]
	if !ok || p.Run != id {
		return p, notFound("projection of node", n)
	}
	return p, nil
}

// PutPart implements Parts. The part is kept as it is: the caller gives
// up the slices it holds.
func (l *Lineage) PutPart(p Part) error { l.parts[p.Node] = p; return nil }

// RunHead implements Parts.
func (l *Lineage) RunHead(id engine.RunID) (RunHead, error) {
	h, ok := l.heads[id]
	if !ok {
		return h, notFound("projection of run", id)
	}
	return h, nil
}

// PutRunHead implements Parts.
func (l *Lineage) PutRunHead(h RunHead) error { l.heads[h.Run] = h; return nil }

// Runs lists the runs projected, in the order they started.
func (l *Lineage) Runs() []engine.RunID {
	ids := slices.Collect(maps.Keys(l.heads))
	slices.Sort(ids)
	return ids
}

// Projection assembles run id's projection; o is the session's
// overview, folded from the same events.
func (l *Lineage) Projection(o *Overview, id engine.RunID) (*Projection, error) {
	h, err := l.RunHead(id)
	if err != nil {
		return nil, err
	}
	var parts []Part
	for _, p := range l.parts {
		if p.Run == id {
			parts = append(parts, p)
		}
	}
	ro := o.Run(id)
	if ro == nil {
		return nil, notFound("run", id)
	}
	return Assemble(h, *ro, parts), nil
}

// Heads lists the run heads in run order.
func (l *Lineage) Heads() []RunHead {
	out := make([]RunHead, 0, len(l.heads))
	for _, id := range l.Runs() {
		out = append(out, l.heads[id])
	}
	return out
}

// AllParts lists every part, in node order.
func (l *Lineage) AllParts() []Part {
	out := slices.Collect(maps.Values(l.parts))
	slices.SortFunc(out, func(a, b Part) int { return int(a.Node) - int(b.Node) })
	return out
}

// Clone returns a copy that later folds into either do not change the
// other. Parts are copied deeply where a fold appends to them.
func (l *Lineage) Clone() *Lineage {
	c := &Lineage{parts: make(map[engine.NodeID]Part, len(l.parts)), heads: make(map[engine.RunID]RunHead, len(l.heads))}
	for k, p := range l.parts {
		c.parts[k] = p.clone()
	}
	for k, h := range l.heads {
		h.Branches = slices.Clone(h.Branches)
		c.heads[k] = h
	}
	return c
}

func (p Part) clone() Part {
	p.At = slices.Clone(p.At)
	p.Attempts = slices.Clone(p.Attempts)
	for i := range p.Attempts {
		p.Attempts[i].Facts = p.Attempts[i].Facts.clone()
	}
	p.Arrival = p.Arrival.clone()
	return p
}

func (f Facts) clone() Facts {
	f.Outputs, f.Gaps, f.Resolutions = slices.Clone(f.Outputs), slices.Clone(f.Gaps), slices.Clone(f.Resolutions)
	f.Divergences, f.Capabilities, f.Traces = slices.Clone(f.Divergences), slices.Clone(f.Capabilities), slices.Clone(f.Traces)
	return f
}

// Folder folds a session's log into every record derived from it, in
// memory and one event at a time, as the stores fold each append: the
// node records (Graph), then the overview, then the projection.
type Folder struct {
	Graph    *Graph
	Overview Overview
	Lineage  *Lineage
}

// NewFolder returns a Folder of an empty log of session id.
func NewFolder(id engine.SessionID, snap SnapshotFunc) *Folder {
	return &Folder{Graph: NewGraph(id, snap), Lineage: NewLineage()}
}

// Add folds the next event of the log.
func (f *Folder) Add(e event.Event) error {
	if err := f.Graph.Add(e); err != nil {
		return err
	}
	if err := f.Overview.Add(f.Graph, e); err != nil {
		return err
	}
	return Project(f.Lineage, f.Graph, &f.Overview, e)
}

// Projection assembles run id's projection.
func (f *Folder) Projection(id engine.RunID) (*Projection, error) {
	return f.Lineage.Projection(&f.Overview, id)
}

// FoldAll folds a whole log.
func FoldAll(id engine.SessionID, evs []event.Event, snap SnapshotFunc) (*Folder, error) {
	f := NewFolder(id, snap)
	for _, e := range evs {
		if err := f.Add(e); err != nil {
			return nil, err
		}
	}
	return f, nil
}
