package sources

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/workflow"
)

// Loading a folder is budgeted. A project's .workrail/workflows comes
// from whatever repository an agent points at, and is read when an IDE
// lists prompts for it, with no action from the user: each file is
// bounded (1 MiB read, the limits of package compile once compiled), and
// a folder of many files is bounded too. Compiles run at most one a core
// across the daemon (Registry.compiling), so folders read at once do not
// multiply what compiling holds; one call compiles a folder's files for
// at most compileTime (a file unchanged since it was compiled costs its
// stamp only), and the files it did not reach are compiled by the next
// calls; and what a folder's workflows hold once loaded (each file
// and its compiled form, or a broken file's bytes kept to retry it) is at
// most folderBytes, counted in name order: the files past it are
// problems, not loaded. A hostile file is over its own limits long
// before it could take the folder's, so it never keeps the other files
// of its folder from loading; nor can any folder take the memory or the
// cores a running agent's calls need.
const (
	folderBytes = 64 << 20
	compileTime = 5 * time.Second
)

// weight is what a loaded file holds of its folder's budget.
func (f cachedFile) weight() int {
	if f.entry != nil {
		return len(f.entry.Text) + len(f.entry.Compiled.Canonical)
	}
	return len(f.data)
}

// loadAll loads the files of one folder on every core, within the
// folder's budget; results keep the order of paths. Files are loaded a
// few ahead of the one being counted and counted in name order, so which
// files the budget leaves out depends on the files alone. left is what
// remains of the budget, for retrying the files that did not load.
func (r *Registry) loadAll(old *dirCache, src catalog.Source, paths []string) (_ []cachedFile, left int) {
	left = r.folderBytes
	deadline := time.Now().Add(r.compileTime)
	workers := runtime.GOMAXPROCS(0)
	var full atomic.Bool
	done := make([]chan cachedFile, len(paths))
	for i := range done {
		done[i] = make(chan cachedFile, 1)
	}
	ahead := make(chan struct{}, 2*workers) // loaded and not yet counted
	next := make(chan int)
	go func() {
		defer close(next)
		for i := range paths {
			ahead <- struct{}{}
			next <- i
		}
	}()
	for range workers {
		go func() {
			for i := range next {
				if full.Load() {
					done[i] <- r.overBudget(src, paths[i])
				} else {
					done[i] <- r.load(old, src, paths[i], deadline)
				}
			}
		}()
	}
	out := make([]cachedFile, len(paths))
	for i := range paths {
		f := <-done[i]
		<-ahead
		if w := f.weight(); !full.Load() && w <= left {
			left -= w
		} else { // this file and every later one, whatever a worker made of it
			full.Store(true)
			f = r.overBudget(src, paths[i])
		}
		out[i] = f
	}
	return out, left
}

// overBudget is a file left out because its folder's budget is spent.
// It is read again on every call, for the budget may free.
func (r *Registry) overBudget(src catalog.Source, path string) cachedFile {
	return cachedFile{failed: true, problem: &catalog.LoadProblem{Source: src, File: path, Problems: workflow.Problems{{Message: fmt.Sprintf(
		"not loaded: the workflows before it in its folder (in name order) hold the limit of %s bytes for one folder, counting each file and its compiled form; "+
			"move some to another folder, or remove those not used", compile.Bytes(r.folderBytes))}}}}
}

// notYet is a file left out because compiling its folder took the time
// one call may spend on it; the next call compiles it.
func (r *Registry) notYet(src catalog.Source, path string) cachedFile {
	return cachedFile{failed: true, problem: &catalog.LoadProblem{Source: src, File: path, Problems: workflow.Problems{{Message: fmt.Sprintf(
		"not compiled yet: compiling its folder took more than %v on this call; it is compiled on the next", r.compileTime)}}}}
}

// compile loads one file's bytes, holding one of the daemon's compile
// slots meanwhile. A file that reads but does not compile comes back
// with its Read, to be compiled again once the catalog's routines are
// known (compileRead).
func (r *Registry) compile(b []byte, src catalog.Source, path string, routines catalog.Routines, looked ...string) (catalog.Entry, *catalog.Read, workflow.Problems) {
	r.compiling <- struct{}{}
	defer func() { <-r.compiling }()
	rd, p := catalog.ReadFile(b, src)
	if p != nil {
		return catalog.Entry{}, nil, p
	}
	e, p := rd.Load(path, routines, looked...)
	if p != nil {
		return catalog.Entry{}, &rd, p
	}
	return e, nil, nil
}

// compileRead compiles a file read before, holding a compile slot.
func (r *Registry) compileRead(rd catalog.Read, path string, routines catalog.Routines, looked ...string) (catalog.Entry, workflow.Problems) {
	r.compiling <- struct{}{}
	defer func() { <-r.compiling }()
	return rd.Load(path, routines, looked...)
}
