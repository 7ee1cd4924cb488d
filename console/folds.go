package console

import (
	"sync"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/project"
)

// foldCache keeps the last folds of recently viewed sessions: reading and
// verifying a 1,000-step log takes tens of milliseconds, and a session's
// log only grows, so a fold is good until its head moves.
type foldCache struct {
	mu    sync.Mutex
	folds map[engine.SessionID]fold
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
	err := c.store.View(id, func(tx execute.Tx) error { head = tx.Head(); return nil })
	if err != nil {
		return nil, execute.Health{}, err
	}
	c.folds.mu.Lock()
	f, ok := c.folds.folds[id]
	c.folds.mu.Unlock()
	if ok && f.graph.Head() == head && f.health.LastGood == head {
		return f.graph, f.health, nil
	}
	evs, h, err := c.store.Events(id)
	if err != nil {
		return nil, h, err
	}
	g, err := project.Fold(id, evs, c.snapshots(id))
	if err != nil {
		return nil, h, err
	}
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
	c.folds.folds[id] = fold{graph: g, health: h}
	return g, h, nil
}
