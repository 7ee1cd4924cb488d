package server

import (
	"fmt"
	"io/fs"
	"sort"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/workflow"
)

// Source is the closed set of places a workflow can come from.
type Source string

// Sources, in precedence order.
const (
	SourceBundled Source = "bundled"
)

// Entry is one workflow the daemon can start.
type Entry struct {
	Source   Source
	Compiled compile.Compiled
}

// Registry holds every startable workflow, compiled once at start-up.
type Registry struct {
	byID map[engine.WorkflowID]Entry
	ids  []engine.WorkflowID
}

// LoadRegistry compiles every *.json file at the top of fsys as a workflow
// from source src. Any invalid file fails the whole load, naming the file.
func LoadRegistry(fsys fs.FS, src Source) (*Registry, error) {
	r := &Registry{byID: map[engine.WorkflowID]Entry{}}
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		w, err := workflow.Parse(b)
		if err != nil {
			return nil, fmt.Errorf("workflow %s: %w", name, err)
		}
		c, err := compile.Compile(w)
		if err != nil {
			return nil, fmt.Errorf("workflow %s: %w", name, err)
		}
		if _, dup := r.byID[w.ID]; dup {
			return nil, fmt.Errorf("workflow %s: id %s is defined twice", name, w.ID)
		}
		r.byID[w.ID] = Entry{Source: src, Compiled: c}
		r.ids = append(r.ids, w.ID)
	}
	sort.Slice(r.ids, func(i, j int) bool { return r.ids[i] < r.ids[j] })
	return r, nil
}

// Get returns the workflow with id.
func (r *Registry) Get(id engine.WorkflowID) (Entry, bool) {
	e, ok := r.byID[id]
	return e, ok
}

// All returns every workflow in list order.
func (r *Registry) All() []Entry {
	out := make([]Entry, len(r.ids))
	for i, id := range r.ids {
		out[i] = r.byID[id]
	}
	return out
}

// IDs returns every workflow id in list order.
func (r *Registry) IDs() []engine.WorkflowID { return r.ids }
