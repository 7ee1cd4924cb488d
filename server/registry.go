package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/workflow"
)

// SourceKind is the closed set of places workflows come from, in
// precedence order: on an id collision the earlier kind wins.
type SourceKind string

// Source kinds, highest precedence first.
const (
	SourceBundled SourceKind = "bundled"
	SourceUser    SourceKind = "user"
	SourceProject SourceKind = "project"
	SourceConfig  SourceKind = "config"
)

var precedence = map[SourceKind]int{SourceBundled: 0, SourceUser: 1, SourceProject: 2, SourceConfig: 3}

// Source is one place workflows are read from.
type Source struct {
	Kind SourceKind `json:"kind"`
	Path string     `json:"path,omitempty"` // folder; empty for bundled
}

// Entry is one workflow that can be started.
type Entry struct {
	Source   Source
	File     string
	Compiled compile.Compiled
	IDStatus workflow.IDStatus
	Warnings []Notice
}

// Notice is a structured note about a catalog entry or file.
type Notice struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Suggest string `json:"suggestedId,omitempty"`
}

// Shadow records an id defined by two sources: the winner is used.
type Shadow struct {
	ID       engine.WorkflowID `json:"id"`
	Winner   Source            `json:"winner"`
	Shadowed Source            `json:"shadowed"`
	File     string            `json:"shadowedFile"`
}

// LoadProblem is a workflow file that could not be loaded, and why.
type LoadProblem struct {
	Source   Source            `json:"source"`
	File     string            `json:"file"`
	Problems workflow.Problems `json:"problems"`
}

// Catalog is the set of workflows visible to one call.
type Catalog struct {
	entries  map[engine.WorkflowID]Entry
	order    []engine.WorkflowID
	Shadowed []Shadow
	Problems []LoadProblem
}

// Get returns the workflow with id.
func (c *Catalog) Get(id engine.WorkflowID) (Entry, bool) {
	e, ok := c.entries[id]
	return e, ok
}

// All returns the entries sorted namespace → kind (workflows first) → name.
func (c *Catalog) All() []Entry {
	out := make([]Entry, len(c.order))
	for i, id := range c.order {
		out[i] = c.entries[id]
	}
	return out
}

// IDs returns every id in catalog order.
func (c *Catalog) IDs() []string {
	out := make([]string, len(c.order))
	for i, id := range c.order {
		out[i] = string(id)
	}
	return out
}

// Registry knows every workflow source. Folders are re-read when their
// files change, so a new user workflow appears without a restart.
type Registry struct {
	bundled []Entry
	dirs    []Source // user and config folders, in precedence order

	mu    sync.Mutex
	cache map[string]*dirCache // folder → parsed files
}

// NewRegistry compiles the bundled workflows (a bad bundled file is a
// programmer error and fails start-up) and remembers the folder sources.
func NewRegistry(bundled fs.FS, dirs []Source) (*Registry, error) {
	r := &Registry{dirs: dirs, cache: map[string]*dirCache{}}
	entries, problems := loadFS(bundled, Source{Kind: SourceBundled})
	if len(problems) > 0 {
		return nil, fmt.Errorf("bundled workflow %s: %v", problems[0].File, problems[0].Problems)
	}
	r.bundled = entries
	return r, nil
}

// Catalog assembles the workflows visible from workspace ("" for none):
// bundled, user, the workspace's .workrail/workflows, then config folders.
func (r *Registry) Catalog(workspace string) *Catalog {
	c := &Catalog{entries: map[engine.WorkflowID]Entry{}}
	c.add(r.bundled)
	if workspace != "" {
		if fi, err := os.Stat(workspace); err != nil || !fi.IsDir() {
			c.Problems = append(c.Problems, LoadProblem{Source: Source{Kind: SourceProject, Path: workspace}, File: workspace,
				Problems: workflow.Problems{{Message: "workspacePath is not an existing folder, so no project workflows were loaded from it; send the root folder of the project open in the IDE"}}})
		}
	}
	for _, src := range r.sources(workspace) {
		entries, problems := r.readDir(src)
		c.add(entries)
		c.Problems = append(c.Problems, problems...)
	}
	c.sort()
	return c
}

func (r *Registry) sources(workspace string) []Source {
	var out []Source
	for _, s := range r.dirs {
		if s.Kind == SourceUser {
			out = append(out, s)
		}
	}
	if workspace != "" {
		out = append(out, Source{Kind: SourceProject, Path: filepath.Join(workspace, ".workrail", "workflows")})
	}
	for _, s := range r.dirs {
		if s.Kind == SourceConfig {
			out = append(out, s)
		}
	}
	return out
}

func (c *Catalog) add(entries []Entry) {
	for _, e := range entries {
		id := e.Compiled.ID
		if prev, dup := c.entries[id]; dup {
			winner, loser := prev, e
			if precedence[e.Source.Kind] < precedence[prev.Source.Kind] {
				winner, loser = e, prev
			}
			c.entries[id] = winner
			c.Shadowed = append(c.Shadowed, Shadow{ID: id, Winner: winner.Source, Shadowed: loser.Source, File: loser.File})
			continue
		}
		c.entries[id] = e
	}
}

func (c *Catalog) sort() {
	c.order = c.order[:0]
	for id := range c.entries {
		c.order = append(c.order, id)
	}
	kindRank := map[workflow.Kind]int{workflow.KindWorkflow: 0, workflow.KindRoutine: 1}
	sort.Slice(c.order, func(i, j int) bool {
		a, b := c.entries[c.order[i]].Compiled, c.entries[c.order[j]].Compiled
		if na, nb := workflow.Namespace(a.ID), workflow.Namespace(b.ID); na != nb {
			return na < nb
		}
		if kindRank[a.Kind] != kindRank[b.Kind] {
			return kindRank[a.Kind] < kindRank[b.Kind]
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.ID < b.ID
	})
}

// dirCache remembers the parsed files of one folder by name, size and
// modification time.
type dirCache struct {
	files map[string]cachedFile
}

type cachedFile struct {
	size    int64
	modTime time.Time
	entry   *Entry
	problem *LoadProblem
}

func (r *Registry) readDir(src Source) ([]Entry, []LoadProblem) {
	r.mu.Lock()
	defer r.mu.Unlock()
	names, err := filepath.Glob(filepath.Join(src.Path, "*.json"))
	if err != nil || len(names) == 0 {
		delete(r.cache, src.Path)
		return nil, nil
	}
	old := r.cache[src.Path]
	fresh := &dirCache{files: map[string]cachedFile{}}
	var entries []Entry
	var problems []LoadProblem
	for i, f := range loadAll(old, src, names) {
		fresh.files[names[i]] = f
		if f.entry != nil {
			entries = append(entries, *f.entry)
		}
		if f.problem != nil {
			problems = append(problems, *f.problem)
		}
	}
	r.cache[src.Path] = fresh
	return entries, problems
}

// loadAll loads the files of one folder on every core; results keep the
// order of paths.
func loadAll(old *dirCache, src Source, paths []string) []cachedFile {
	out := make([]cachedFile, len(paths))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = cachedOrLoad(old, src, paths[i])
			}
		}()
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

func cachedOrLoad(old *dirCache, src Source, path string) cachedFile {
	info, err := os.Stat(path)
	if err != nil {
		return cachedFile{problem: &LoadProblem{Source: src, File: path, Problems: workflow.Problems{{Message: err.Error()}}}}
	}
	if old != nil {
		if f, ok := old.files[path]; ok && f.size == info.Size() && f.modTime.Equal(info.ModTime()) {
			return f
		}
	}
	f := cachedFile{size: info.Size(), modTime: info.ModTime()}
	b, err := os.ReadFile(path)
	if err != nil {
		f.problem = &LoadProblem{Source: src, File: path, Problems: workflow.Problems{{Message: err.Error()}}}
		return f
	}
	e, problems := loadOne(b, src, path)
	if problems != nil {
		f.problem = &LoadProblem{Source: src, File: path, Problems: problems}
		return f
	}
	f.entry = &e
	return f
}

func loadFS(fsys fs.FS, src Source) ([]Entry, []LoadProblem) {
	names, _ := fs.Glob(fsys, "*.json")
	var entries []Entry
	var problems []LoadProblem
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err == nil {
			e, p := loadOne(b, src, name)
			if p == nil {
				entries = append(entries, e)
				continue
			}
			problems = append(problems, LoadProblem{Source: src, File: name, Problems: p})
			continue
		}
		problems = append(problems, LoadProblem{Source: src, File: name, Problems: workflow.Problems{{Message: err.Error()}}})
	}
	return entries, problems
}

// loadOne parses, checks the source's id rules and compiles one file.
func loadOne(b []byte, src Source, file string) (Entry, workflow.Problems) {
	w, err := workflow.Parse(b)
	if err != nil {
		var p workflow.Problems
		if errors.As(err, &p) {
			return Entry{}, p
		}
		return Entry{}, workflow.Problems{{Message: err.Error()}}
	}
	status, _ := workflow.StatusOf(w.ID)
	if p := idRules(w.ID, status, src); p != nil {
		for i := range p {
			p[i] = workflow.Locate(b, p[i])
		}
		return Entry{}, p
	}
	c, err := compile.Compile(w)
	if err != nil {
		return Entry{}, workflow.Problems{{Message: err.Error()}}
	}
	e := Entry{Source: src, File: file, Compiled: c, IDStatus: status}
	if status == workflow.Legacy {
		s := SuggestedID(w.ID, src.Kind)
		e.Warnings = append(e.Warnings, Notice{Code: "LEGACY_WORKFLOW_ID", Suggest: string(s),
			Message: fmt.Sprintf("workflow id %q has no namespace; it still runs, but rename it to %q", w.ID, s)})
	}
	return e, nil
}

// idRules enforces the namespace rules of each source.
func idRules(id engine.WorkflowID, status workflow.IDStatus, src Source) workflow.Problems {
	switch {
	case src.Kind == SourceBundled && (status != workflow.Namespaced || !workflow.Reserved(id)):
		return workflow.Problems{{Pointer: "/id", Message: "bundled workflows must use the wr namespace"}}
	case src.Kind != SourceBundled && workflow.Reserved(id):
		return workflow.Problems{{Pointer: "/id", Message: fmt.Sprintf(
			"the wr namespace is reserved for workflows bundled with WorkRail; rename %q to e.g. %q", id,
			SuggestedID(engine.WorkflowID(id[len("wr."):]), src.Kind))}}
	}
	return nil
}

// SuggestedID is the deterministic namespaced rename of a legacy id.
func SuggestedID(id engine.WorkflowID, kind SourceKind) engine.WorkflowID {
	ns := map[SourceKind]string{SourceUser: "user", SourceProject: "project", SourceConfig: "repo"}[kind]
	if ns == "" {
		ns = "user"
	}
	return engine.WorkflowID(ns + "." + string(id))
}

// Validate checks one workflow file as it would load from a source of the
// given kind: everything Parse checks, the source's namespace rules, and
// compilation. The CLI and the Console editor both use it.
func Validate(b []byte, kind SourceKind) (compile.Compiled, []Notice, workflow.Problems) {
	e, p := loadOne(b, Source{Kind: kind}, "")
	return e.Compiled, e.Warnings, p
}
