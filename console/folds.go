package console

import (
	"maps"
	"slices"
	"sync"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/run"
)

// foldCache keeps the last folds of recently viewed sessions, for the
// pages that show the log itself (the event history), act on a node
// (Fork here) or show a damaged session: reading and verifying a
// 1,000-step log takes tens of milliseconds, and a session's log only
// grows, so a fold is good until its head moves. Every other page reads
// the projections the store keeps.
type foldCache struct {
	mu    sync.Mutex
	folds map[engine.SessionID]fold
	snaps map[engine.SnapshotRef]run.Snapshot
}

type fold struct {
	graph  *project.Graph
	health execute.Health
}

// maxFolds bounds the cache; past it, one entry is dropped.
const maxFolds = 32

// fold returns session id folded, reading its log only when its head
// moved since the last fold.
func (c *Console) fold(id engine.SessionID) (*project.Graph, execute.Health, error) {
	var head engine.EventIndex
	err := c.store.View(id, func(tx execute.ReadTx) error { head = tx.Head(); return nil })
	if err != nil {
		return nil, execute.Health{}, err
	}
	c.folds.mu.Lock()
	f, ok := c.folds.folds[id]
	c.folds.mu.Unlock()
	if ok && f.graph.Head() == head && f.health.LastGood == head {
		return f.graph, f.health, nil
	}
	if ok && f.health.Status == execute.Healthy && f.graph.Head() < head {
		if g, h, ok := c.foldOn(id, f.graph); ok {
			c.keepFold(id, fold{graph: g, health: h})
			return g, h, nil
		}
	}
	evs, h, err := c.store.Events(id)
	if err != nil {
		return nil, h, err
	}
	g, err := project.Fold(id, evs, c.cachedSnapshots(id))
	if err != nil {
		return nil, h, err
	}
	c.keepFold(id, fold{graph: g, health: h})
	return g, h, nil
}

// foldOn folds what was appended to session id since g was folded into
// a copy of g: only the new events are read and verified. ok is false
// when that part is not healthy (the caller then reads the whole log,
// which says where the damage is).
func (c *Console) foldOn(id engine.SessionID, g *project.Graph) (*project.Graph, execute.Health, bool) {
	evs, h, err := c.store.EventsAfter(id, g.Head())
	if err != nil || h.Status != execute.Healthy {
		return nil, h, false
	}
	next := g.Clone()
	for _, e := range evs {
		if next.Add(e) != nil {
			return nil, h, false
		}
	}
	return next, h, true
}

// keepFold caches f as session id's fold.
func (c *Console) keepFold(id engine.SessionID, f fold) {
	c.folds.mu.Lock()
	defer c.folds.mu.Unlock()
	if c.folds.folds == nil {
		c.folds.folds = map[engine.SessionID]fold{}
	}
	if len(c.folds.folds) >= maxFolds {
		for k := range c.folds.folds {
			delete(c.folds.folds, k)
			break
		}
	}
	c.folds.folds[id] = f
}

// maxSnapshots bounds the snapshots kept; past it, one entry is dropped
// for each one added. A 1,000-node run needs 1,000.
const maxSnapshots = 4096

// cachedSnapshots reads node snapshots of session id through a cache
// keyed by reference: a page reads one per node, every time it is drawn,
// and a snapshot is content-addressed, so what was read (and checked
// against its digest) once is what every later read would return. Each
// caller gets its own copy, as it would from the store.
func (c *Console) cachedSnapshots(id engine.SessionID) project.SnapshotFunc {
	read := c.snapshots(id)
	return func(ref engine.SnapshotRef) (run.Snapshot, error) {
		c.folds.mu.Lock()
		s, ok := c.folds.snaps[ref]
		c.folds.mu.Unlock()
		if ok {
			return copySnapshot(s), nil
		}
		s, err := read(ref)
		if err != nil {
			return s, err
		}
		c.folds.mu.Lock()
		defer c.folds.mu.Unlock()
		if c.folds.snaps == nil {
			c.folds.snaps = map[engine.SnapshotRef]run.Snapshot{}
		}
		if len(c.folds.snaps) >= maxSnapshots {
			for k := range c.folds.snaps {
				delete(c.folds.snaps, k)
				break
			}
		}
		c.folds.snaps[ref] = copySnapshot(s)
		return s, nil
	}
}

// copySnapshot copies everything of s that a caller could change in
// place: the cursor, the context (as encoding/json decodes it) and the
// capabilities.
func copySnapshot(s run.Snapshot) run.Snapshot {
	s.Position.Path = slices.Clone(s.Position.Path)
	s.Capabilities = maps.Clone(s.Capabilities)
	if s.Context != nil {
		s.Context = copyJSON(s.Context).(map[string]any)
	}
	return s
}

func copyJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = copyJSON(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = copyJSON(e)
		}
		return l
	}
	return v
}
