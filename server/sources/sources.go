// Package sources reads workflow files from the places they live — the
// bundled set handed in at start, the user's folder, a project's
// .workrail/workflows, folders named in config — and assembles the
// catalog one call sees. Folders are re-read when their files change, so
// a new workflow appears without a restart.
package sources

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/workflow"
)

// Registry knows every workflow source.
type Registry struct {
	bundled []catalog.Entry
	dirs    []catalog.Source // user and config folders, in precedence order

	mu    sync.Mutex
	cache map[string]*dirCache // folder → parsed files
}

// New compiles the bundled workflows (a bad bundled file is a programmer
// error and fails start-up) and remembers the folder sources.
func New(bundled fs.FS, dirs []catalog.Source) (*Registry, error) {
	r := &Registry{dirs: dirs, cache: map[string]*dirCache{}}
	entries, problems := catalog.LoadFS(bundled, catalog.Source{Kind: catalog.Bundled})
	if len(problems) > 0 {
		return nil, fmt.Errorf("bundled workflow %s: %v", problems[0].File, problems[0].Problems)
	}
	r.bundled = entries
	return r, nil
}

// Catalog assembles the workflows visible from workspace ("" for none):
// bundled, user, the workspace's .workrail/workflows, then config folders.
func (r *Registry) Catalog(workspace string) *catalog.Catalog {
	entries := append([]catalog.Entry(nil), r.bundled...)
	var problems []catalog.LoadProblem
	if workspace != "" {
		if fi, err := os.Stat(workspace); err != nil || !fi.IsDir() {
			problems = append(problems, catalog.LoadProblem{Source: catalog.Source{Kind: catalog.Project, Path: workspace}, File: workspace,
				Problems: workflow.Problems{{Message: "workspacePath is not an existing folder, so no project workflows were loaded from it; send the root folder of the project open in the IDE"}}})
		}
	}
	for _, src := range r.sources(workspace) {
		e, p := r.readDir(src)
		entries, problems = append(entries, e...), append(problems, p...)
	}
	return catalog.New(entries, problems)
}

func (r *Registry) sources(workspace string) []catalog.Source {
	var out []catalog.Source
	for _, s := range r.dirs {
		if s.Kind == catalog.User {
			out = append(out, s)
		}
	}
	if workspace != "" {
		out = append(out, catalog.Source{Kind: catalog.Project, Path: filepath.Join(workspace, ".workrail", "workflows")})
	}
	for _, s := range r.dirs {
		if s.Kind == catalog.Config {
			out = append(out, s)
		}
	}
	return out
}

// dirCache remembers the parsed files of one folder by name, size and
// modification time.
type dirCache struct {
	files map[string]cachedFile
}

type cachedFile struct {
	size    int64
	modTime time.Time
	entry   *catalog.Entry
	problem *catalog.LoadProblem
}

func (r *Registry) readDir(src catalog.Source) ([]catalog.Entry, []catalog.LoadProblem) {
	r.mu.Lock()
	defer r.mu.Unlock()
	names, err := filepath.Glob(filepath.Join(src.Path, "*.json"))
	if err != nil || len(names) == 0 {
		delete(r.cache, src.Path)
		return nil, nil
	}
	old := r.cache[src.Path]
	fresh := &dirCache{files: map[string]cachedFile{}}
	var entries []catalog.Entry
	var problems []catalog.LoadProblem
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
func loadAll(old *dirCache, src catalog.Source, paths []string) []cachedFile {
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

func cachedOrLoad(old *dirCache, src catalog.Source, path string) cachedFile {
	problem := func(err error) *catalog.LoadProblem {
		return &catalog.LoadProblem{Source: src, File: path, Problems: workflow.Problems{{Message: err.Error()}}}
	}
	info, err := os.Stat(path)
	if err != nil {
		return cachedFile{problem: problem(err)}
	}
	if old != nil {
		if f, ok := old.files[path]; ok && f.size == info.Size() && f.modTime.Equal(info.ModTime()) {
			return f
		}
	}
	f := cachedFile{size: info.Size(), modTime: info.ModTime()}
	b, err := os.ReadFile(path)
	if err != nil {
		f.problem = problem(err)
		return f
	}
	e, problems := catalog.Load(b, src, path)
	if problems != nil {
		f.problem = &catalog.LoadProblem{Source: src, File: path, Problems: problems}
		return f
	}
	f.entry = &e
	return f
}
