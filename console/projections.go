package console

import (
	"sync"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/project"
)

// Every page that shows a run reads its projection (project.Projection):
// the record the store keeps with every append, never a fold of the log
// made on a page view. A session known to be damaged is shown from a
// fold of its good events instead, which the same code projects.

// projected is a session's runs' projections at a head of its log.
type projected struct {
	head  engine.EventIndex
	runs  []*project.Projection
	whole bool // every run, not only the one a run page asked for
}

// projectionCache keeps the projections of the sessions viewed last: a
// log only grows, so they are good until its head moves.
type projectionCache struct {
	mu sync.Mutex
	m  map[engine.SessionID]projected
}

// maxProjected bounds the cache; past it, one entry is dropped.
const maxProjected = 32

// runProjection is run id of session sid as pages show it, with the
// session's known health (Verified false when no check has run yet).
func (c *Console) runProjection(sid engine.SessionID, id engine.RunID) (*project.Projection, health, engine.EventIndex, error) {
	runs, h, head, err := c.projections(sid, id)
	if err != nil {
		return nil, h, head, err
	}
	for _, p := range runs {
		if p.Run == id {
			return p, h, head, nil
		}
	}
	return nil, h, head, engine.ErrNotFound
}

// health is a session's health as far as it is known.
type health struct {
	execute.Health
	Verified bool
}

// Healthy says nothing known stands against acting on the session.
func (h health) Healthy() bool { return !h.Verified || h.Status == execute.Healthy }

// projections are the runs of session sid (run id alone when not 0; all
// of them when 0), from the cache while the log's head has not moved,
// and the head they were read at.
func (c *Console) projections(sid engine.SessionID, id engine.RunID) ([]*project.Projection, health, engine.EventIndex, error) {
	var h health
	h.Health, h.Verified = c.store.KnownHealth(sid)
	var head engine.EventIndex
	if err := c.store.View(sid, func(tx execute.ReadTx) error { head = tx.Head(); return nil }); err != nil {
		return nil, h, head, err
	}
	if h.Verified && h.Status != execute.Healthy {
		runs, err := c.damagedProjections(sid)
		return runs, h, h.LastGood, err
	}
	c.projected.mu.Lock()
	kept, ok := c.projected.m[sid]
	c.projected.mu.Unlock()
	if ok && kept.head == head && (kept.whole || (id != 0 && len(kept.runs) == 1 && kept.runs[0].Run == id)) {
		return kept.runs, h, head, nil
	}
	var runs []*project.Projection
	var err error
	if id != 0 {
		var p *project.Projection
		if p, err = c.store.Projection(sid, id); err == nil {
			runs = []*project.Projection{p}
		}
	} else {
		runs, err = c.store.Projections(sid)
	}
	if err != nil {
		return nil, h, head, err
	}
	c.keepProjected(sid, projected{head: head, runs: runs, whole: id == 0})
	return runs, h, head, nil
}

// damagedProjections projects what could be read of a damaged session:
// its events up to its last good one.
func (c *Console) damagedProjections(sid engine.SessionID) ([]*project.Projection, error) {
	g, _, err := c.fold(sid)
	if err != nil {
		return nil, err
	}
	f, err := project.FoldAll(sid, g.Events(), c.cachedSnapshots(sid))
	if err != nil {
		return nil, err
	}
	var out []*project.Projection
	for _, id := range f.Lineage.Runs() {
		p, err := f.Projection(id)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

func (c *Console) keepProjected(sid engine.SessionID, p projected) {
	c.projected.mu.Lock()
	defer c.projected.mu.Unlock()
	if c.projected.m == nil {
		c.projected.m = map[engine.SessionID]projected{}
	}
	if len(c.projected.m) >= maxProjected {
		for k := range c.projected.m {
			delete(c.projected.m, k)
			break
		}
	}
	c.projected.m[sid] = p
}
