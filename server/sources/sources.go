// Package sources reads workflow files from the places they live — the
// bundled set handed in at start, the user's folder, a project's
// .workrail/workflows, folders named in config — and assembles the
// catalog one call sees. Folders are re-read when their files change, so
// a new workflow appears without a restart. It is also the only writer of
// those folders: the Console's editor saves and creates files through it
// (write.go). It adapts the file system to the use cases' Workflows
// port (execute.Workflows) and the Console's WorkflowFiles.
package sources

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/workflow"
)

// Registry knows every workflow source.
//
// Folder contents are untrusted (a project's folder comes from whatever
// repository an agent points at), so a file is read only if it is a
// regular file of at most 1 MiB, opening never blocks, and every listing
// and read has a deadline. No I/O happens under mu: one call stuck on a
// slow folder never delays a call that does not read it.
type Registry struct {
	bundled []catalog.Entry
	dirs    []catalog.Source // user and config folders, in precedence order

	timeout time.Duration                  // for one listing or one file
	open    func(string) (*os.File, error) // openFile; tests slow it down
	stuck   stuck
	writing claims // files being saved or created

	// What loading a folder may spend (budget.go): bytes held, time
	// compiling on one call, and the compiles running at once.
	folderBytes int
	compileTime time.Duration
	compiling   chan struct{}

	mu    sync.Mutex           // guards cache, and nothing else
	cache map[string]*dirCache // folder → parsed files; a dirCache is never changed once stored

	assembled assembled // workspace → its last catalog, while its folders' stamps are unchanged

	repos func() []Repository // the repository sources as they are now (repos.go)
}

// New compiles the bundled workflows (a bad bundled file is a programmer
// error and fails start-up) and remembers the folder sources.
func New(bundled fs.FS, dirs []catalog.Source) (*Registry, error) {
	r := &Registry{dirs: dirs, cache: map[string]*dirCache{}, timeout: readTimeout, open: openFile,
		folderBytes: folderBytes, compileTime: compileTime, compiling: make(chan struct{}, runtime.GOMAXPROCS(0))}
	entries, problems := catalog.LoadFS(bundled, catalog.Source{Kind: catalog.Bundled})
	if len(problems) > 0 {
		return nil, fmt.Errorf("bundled workflow %s: %v", problems[0].File, problems[0].Problems)
	}
	r.bundled = entries
	return r, nil
}

// Catalog assembles the workflows visible from workspace ("" for none):
// bundled, user, the workspace's .workrail/workflows, config folders, then
// the repositories' folders. Every call first takes the stamps of those
// folders' files (stamp.go): while they are those of the catalog last
// assembled for workspace, that catalog is what the files hold and is
// answered again; any change, or a stamp that could not be taken,
// assembles it anew. A repository fetched at another commit has another
// folder. The warnings about repositories that could not be fetched are
// those of the moment.
func (r *Registry) Catalog(workspace string) *catalog.Catalog {
	repos := r.repositories()
	stamps, ok := r.stamps(workspace, repos)
	if ok {
		if c := r.assembled.get(workspace, stamps); c != nil {
			return c.WithWarnings(repoWarnings(repos))
		}
	}
	c, complete := r.assemble(workspace, repos)
	// The stamps were taken before the files were read: a file changed in
	// between has a stamp other than the one kept, so the next call
	// assembles again.
	if ok && complete {
		r.assembled.put(workspace, stamps, c)
	}
	return c.WithWarnings(repoWarnings(repos))
}

// assemble reads the catalog workspace sees; complete is false when a
// read failed (slow, or not a file that can be read), so the catalog
// may change with no file's stamp changing.
func (r *Registry) assemble(workspace string, repos []Repository) (*catalog.Catalog, bool) {
	entries := append([]catalog.Entry(nil), r.bundled...)
	problems := skippedProblems(repos)
	complete := true
	if workspace != "" {
		if p, slow := r.checkWorkspace(workspace); p != nil {
			problems = append(problems, *p)
			workspace = "" // nothing to read there
			complete = !slow
		}
	}
	var failed []failedFile
	var looked []string
	for _, src := range r.sources(workspace, repos) {
		e, p, f, ok := r.readDir(src)
		entries, problems, failed = append(entries, e...), append(problems, p...), append(failed, f...)
		complete = complete && ok
		looked = append(looked, src.Path+" (and its subfolders)")
	}
	entries, problems, retried := r.retryWithRoutines(entries, problems, failed, looked)
	r.placeRefs(entries)
	return catalog.New(entries, problems), complete && retried
}

// retargets reports whether e delegates to a routine that find knows
// under another id.
func retargets(e catalog.Entry, find catalog.Routines) bool {
	var walk func([]workflow.Node) bool
	walk = func(list []workflow.Node) bool {
		for _, n := range list {
			if n.Loop != nil {
				if walk(n.Loop.Body) {
					return true
				}
				continue
			}
			for _, d := range n.Step.ParallelDelegations {
				if r, ok := find(d.WorkflowID); ok && r.ID != d.WorkflowID {
					return true
				}
			}
		}
		return false
	}
	return walk(e.Workflow.Steps)
}

// failedFile is a file that did not load, with its bytes: it may call a
// routine of another file of the same catalog. left is what remains of
// its folder's budget, which loading it again spends.
type failedFile struct {
	src  catalog.Source
	path string
	data []byte
	read *catalog.Read // nil: it did not read, and is read again
	left *int
}

// retry loads a file that did not load again, with the routines find
// knows: from its Read when it read and only its compile failed.
func (r *Registry) retry(f failedFile, find catalog.Routines, looked []string) (catalog.Entry, workflow.Problems) {
	if f.read != nil {
		return r.compileRead(*f.read, f.path, find, looked...)
	}
	e, _, p := r.compile(f.data, f.src, f.path, find, looked...)
	return e, p
}

// retryWithRoutines loads again the files that did not load, now that the
// routines of every source (looked, the folders read) are known: the
// files loaded together resolve before the bundled ones, wherever in
// those folders they are. A file that loads replaces its problem; one
// that does not gets its problem as it is now (a call of a routine still
// not found names every folder it was looked for in). The files are
// loaded again within their folders' budgets and for at most
// compileTime; one left out says why instead (complete is false then).
func (r *Registry) retryWithRoutines(entries []catalog.Entry, problems []catalog.LoadProblem, failed []failedFile, looked []string) (_ []catalog.Entry, _ []catalog.LoadProblem, complete bool) {
	bundled := r.bundled
	var routines []catalog.Entry
	for _, e := range entries[len(bundled):] {
		if e.Compiled.Kind == workflow.KindRoutine {
			routines = append(routines, e)
		}
	}
	if len(failed) == 0 && len(routines) == 0 {
		return entries, problems, true
	}
	find := catalog.RoutinesOf(routines, bundled)
	// A file that delegates to a routine by the id its file claims loaded
	// without knowing where that routine went: load it again.
	for i := len(bundled); i < len(entries) && len(routines) > 0; i++ {
		if e := entries[i]; retargets(e, find) {
			if again, _, p := r.compile(e.Text, e.Source, e.File, find); p == nil {
				entries[i] = again
			}
		}
	}
	deadline := time.Now().Add(r.compileTime)
	again := map[string]*catalog.LoadProblem{}
	leftOut := map[string]bool{}
	for _, f := range failed {
		if time.Now().After(deadline) {
			again[f.path], leftOut[f.path] = r.notYet(f.src, f.path).problem, true
			continue
		}
		e, p := r.retry(f, find, looked)
		switch {
		case p != nil:
			again[f.path] = &catalog.LoadProblem{Source: f.src, File: f.path, ID: catalog.IDOf(f.data), Problems: p}
		case len(e.Compiled.Canonical) > *f.left: // its bytes are counted already
			again[f.path], leftOut[f.path] = r.overBudget(f.src, f.path).problem, true
		default:
			*f.left -= len(e.Compiled.Canonical)
			entries = append(entries, e)
			again[f.path] = nil
		}
	}
	kept := problems[:0:0]
	complete = true
	for _, p := range problems {
		q, retried := again[p.File]
		switch {
		case !retried:
			kept = append(kept, p)
		case q != nil:
			kept = append(kept, *q)
			complete = complete && !leftOut[p.File]
		}
	}
	return entries, kept, complete
}

// checkWorkspace reports a workspace that is not an existing folder, and
// whether that is because reading it was given up.
func (r *Registry) checkWorkspace(workspace string) (*catalog.LoadProblem, bool) {
	info, err := within(&r.stuck, workspace, r.timeout, func() (fs.FileInfo, error) { return os.Stat(workspace) })
	msg := "workspacePath is not an existing folder, so no project workflows were loaded from it; send the root folder of the project open in the IDE"
	var slow *slowError
	switch {
	case errors.As(err, &slow):
		msg = "workspacePath " + slow.Error()
	case err == nil && info.IsDir():
		return nil, false
	}
	return &catalog.LoadProblem{Source: catalog.Source{Kind: catalog.Project, Path: workspace}, File: workspace,
		Problems: workflow.Problems{{Message: msg}}}, slow != nil
}

// sources are the folders workspace's catalog is read from, in
// precedence order.
func (r *Registry) sources(workspace string, repos []Repository) []catalog.Source {
	var out []catalog.Source
	for _, s := range r.dirs {
		if s.Kind == catalog.User {
			out = append(out, s)
		}
	}
	if workspace != "" {
		out = append(out, projectSource(workspace))
	}
	for _, s := range r.dirs {
		if s.Kind == catalog.Config {
			out = append(out, s)
		}
	}
	return append(out, repoSources(repos)...)
}

// dirCache remembers the parsed files of one folder by name, size and
// modification time.
type dirCache struct {
	files map[string]cachedFile
}

type cachedFile struct {
	stamp   stamp // zero when the file was not read
	entry   *catalog.Entry
	problem *catalog.LoadProblem
	data    []byte        // a file that did not load, kept to retry with the catalog's routines
	read    *catalog.Read // data read, when only its compile failed
	failed  bool          // not read: problem says why (slow, not a regular file, gone)
}

func problemOf(src catalog.Source, path string, err error) *catalog.LoadProblem {
	return &catalog.LoadProblem{Source: src, File: path, Problems: workflow.Problems{{Message: err.Error()}}}
}

// readDir loads the *.json files of one folder and its subfolders
// (listTree), re-parsing only those
// changed since the last call, within the folder's budget (budget.go);
// ok is false when a read failed or a file was left out. The lock is
// held only to look up and store the folder's cache.
func (r *Registry) readDir(src catalog.Source) (_ []catalog.Entry, _ []catalog.LoadProblem, _ []failedFile, ok bool) {
	t, err := within(&r.stuck, src.Path, r.timeout, func() (tree, error) { return listTree(src.Path) })
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		err = nil
	}
	if err != nil {
		return nil, []catalog.LoadProblem{*problemOf(src, src.Path, err)}, nil, false
	}
	var problems []catalog.LoadProblem
	for _, u := range t.unread {
		problems = append(problems, catalog.LoadProblem{Source: src, File: u.path, Problems: workflow.Problems{{Message: u.why}}})
	}
	names := t.files
	if len(names) == 0 {
		r.setCache(src.Path, nil)
		return nil, problems, nil, true
	}
	fresh := &dirCache{files: make(map[string]cachedFile, len(names))}
	var entries []catalog.Entry
	var failed []failedFile
	ok = true
	loaded, left := r.loadAll(r.cached(src.Path), src, names)
	for i, f := range loaded {
		ok = ok && !f.failed
		fresh.files[names[i]] = f
		if f.entry != nil {
			entries = append(entries, *f.entry)
		}
		if f.problem != nil {
			problems = append(problems, *f.problem)
		}
		if f.data != nil {
			failed = append(failed, failedFile{src: src, path: names[i], data: f.data, read: f.read, left: &left})
		}
	}
	r.setCache(src.Path, fresh)
	return entries, problems, failed, ok
}

func (r *Registry) cached(dir string) *dirCache {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cache[dir]
}

// maxCached bounds how many folders' files are kept: every project an
// agent names has its own folder.
const maxCached = 2 * maxAssembled

// setCache stores the files of dir; nil forgets them.
func (r *Registry) setCache(dir string, c *dirCache) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c == nil {
		delete(r.cache, dir)
		return
	}
	if _, ok := r.cache[dir]; !ok && len(r.cache) >= maxCached {
		for d := range r.cache { // forget any one: it is read again when asked for
			delete(r.cache, d)
			break
		}
	}
	r.cache[dir] = c
}

// load returns the cached copy of path if the file is unchanged, and
// otherwise reads (within the read deadline) and compiles it, unless the
// time to compile its folder on this call ended at deadline.
func (r *Registry) load(old *dirCache, src catalog.Source, path string, deadline time.Time) cachedFile {
	var prev cachedFile
	var known *stamp
	if old != nil {
		if f, ok := old.files[path]; ok && f.stamp != (stamp{}) {
			prev, known = f, &f.stamp
		}
	}
	rd, err := within(&r.stuck, path, r.timeout, func() (fileRead, error) { return readFile(r.open, path, known) })
	if err != nil {
		return cachedFile{problem: problemOf(src, path, err), failed: true}
	}
	if rd.unchanged {
		return prev
	}
	if time.Now().After(deadline) {
		return r.notYet(src, path)
	}
	f := cachedFile{stamp: rd.stamp}
	e, read, problems := r.compile(rd.data, src, path, catalog.RoutinesOf(r.bundled))
	if problems != nil {
		f.problem = &catalog.LoadProblem{Source: src, File: path, ID: catalog.IDOf(rd.data), Problems: problems}
		f.data, f.read = rd.data, read
		return f
	}
	f.entry = &e
	return f
}
