package console

import (
	"sync"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/execute"
)

// pinned is the workflow a run is pinned to, as its header names it.
type pinned struct {
	ID      engine.WorkflowID
	Name    string
	Version string
	Hash    engine.WorkflowHash
	// Compiled is the pinned workflow's outline (compile.RestoreOutline):
	// its step tree with ids, titles and loops, what rows, headers and
	// progress read. One step whole (its prompt, user dependency) is
	// read with its DecodeStep, the contracts with DecodeContracts, the
	// whole workflow through Full.
	Compiled *compile.Compiled
	full     *fullPin
}

// fullPin is a pinned workflow decoded whole, once, when first asked
// for: the workflow page describes a version whole; a run page never
// needs it.
type fullPin struct {
	once     sync.Once
	compiled compile.Compiled
	err      error
}

// Full is the whole pinned workflow.
func (p pinned) Full() (*compile.Compiled, error) {
	f := p.full
	f.once.Do(func() { f.compiled, f.err = compile.Restore(p.Compiled.Canonical, p.Hash) })
	return &f.compiled, f.err
}

// Short is the hash as pages show it.
func (p pinned) Short() string { return shortHash(p.Hash.String()) }

// pinnedCache keeps pinned workflows, decoded: a pin is content-addressed,
// so an entry never goes stale.
type pinnedCache struct {
	mu sync.Mutex
	m  map[engine.WorkflowHash]pinned
}

// maxPinned bounds the cache; past it, it starts over.
const maxPinned = 64

// pinned reads the workflow pinned under hash through session id.
func (c *Console) pinned(id engine.SessionID, hash engine.WorkflowHash) (pinned, error) {
	c.pins.mu.Lock()
	p, ok := c.pins.m[hash]
	c.pins.mu.Unlock()
	if ok {
		return p, nil
	}
	err := c.store.View(id, func(tx execute.ReadTx) error {
		wf, err := tx.WorkflowOutline(hash)
		if err != nil {
			return err
		}
		p = pinned{ID: wf.ID, Name: wf.Name, Version: wf.Version, Hash: hash, Compiled: &wf, full: &fullPin{}}
		return nil
	})
	if err != nil {
		return p, err
	}
	c.pins.mu.Lock()
	defer c.pins.mu.Unlock()
	if c.pins.m == nil || len(c.pins.m) >= maxPinned {
		c.pins.m = map[engine.WorkflowHash]pinned{}
	}
	c.pins.m[hash] = p
	return p, nil
}
