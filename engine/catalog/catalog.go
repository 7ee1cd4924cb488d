// Package catalog owns what can be started: workflow files loaded from
// their sources (bundled, user, project, config folders) into compiled
// entries, the namespace rules of each source, and the catalog one call
// sees, with shadowing and load problems reported. It is pure: the bytes
// of each file are handed in; reading folders is the caller's business.
package catalog

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/engine/workflow/legacy"
)

// SourceKind is the closed set of places workflows come from, in
// precedence order: on an id collision the earlier kind wins.
type SourceKind string

// Source kinds, highest precedence first.
const (
	Bundled SourceKind = "bundled"
	User    SourceKind = "user"
	Project SourceKind = "project"
	Config  SourceKind = "config"
	// Repo is a git repository of config.json's workflowRepos, read at
	// the commit last fetched. Unlike the other kinds, of two
	// repositories defining one id the later in the list wins, as a
	// team's repository layered over a company's is meant to.
	Repo SourceKind = "repo"
)

// SourceKinds lists every source kind, highest precedence first.
func SourceKinds() []SourceKind { return []SourceKind{Bundled, User, Project, Config, Repo} }

func precedence(k SourceKind) int {
	switch k {
	case Bundled:
		return 0
	case User:
		return 1
	case Project:
		return 2
	case Config:
		return 3
	}
	return 4
}

// Source is one place workflows are read from.
type Source struct {
	Kind SourceKind `json:"kind"`
	Path string     `json:"path,omitempty"` // folder; empty for bundled
	// Repo names the repository and commit a Repo source's folder holds.
	Repo RepoRef `json:"repo,omitzero"`
}

// RepoRef is where a repository source's files come from: the
// repository's address (never with credentials), the ref followed as
// config.json names it (empty: the remote's default branch), and the
// 40-hex commit they were read at.
type RepoRef struct {
	URL    string `json:"url"`
	Ref    string `json:"ref,omitempty"`
	Commit string `json:"commit"`
}

// Label names s for a person: its kind, and the repository and short
// commit of a Repo source or the folder of any other.
func (s Source) Label() string {
	switch {
	case s.Kind == Repo:
		return fmt.Sprintf("repo %s@%s", s.Repo.URL, s.Repo.Short())
	case s.Path != "":
		return fmt.Sprintf("%s %s", s.Kind, s.Path)
	}
	return string(s.Kind)
}

// Short is the commit's first 12 hex digits.
func (r RepoRef) Short() string { return r.Commit[:min(len(r.Commit), 12)] }

// Entry is one workflow that can be started.
type Entry struct {
	Source Source
	File   string
	// Text is the file as it was read and compiled: what the Console
	// shows as the workflow's source.
	Text     []byte
	Compiled compile.Compiled
	IDStatus workflow.IDStatus
	Warnings []Notice
	// Workflow is the source as read (normalized, for a legacy file, and
	// under its loaded id): what a routine call in another file expands.
	Workflow workflow.Workflow
	// RefPlaces say where each reference read from the package
	// (resolveFrom "package") was found, or where it was looked for: the
	// sources, which read folders, fill them in (not part of the
	// compiled form, whose hash must not depend on where a library sits).
	RefPlaces []RefPlace
}

// RefPlace is where a workflow's reference to a document of the package
// it came with was found (Path), or, when it was not, every place it was
// looked for (LookedIn).
type RefPlace struct {
	ID       string   `json:"id"`
	Path     string   `json:"path,omitempty"`
	LookedIn []string `json:"lookedIn,omitempty"`
}

// Place is the place of reference id, if one was looked for.
func (e Entry) Place(id string) (RefPlace, bool) {
	for _, p := range e.RefPlaces {
		if p.ID == id {
			return p, true
		}
	}
	return RefPlace{}, false
}

// Legacy reports whether the entry's file is in the TypeScript WorkRail
// format: it runs, but a new file must not be saved in that shape.
func (e Entry) Legacy() bool { return e.Compiled.Dialect != "" }

// Notice is a structured note about an entry.
type Notice struct {
	Code    event.NoticeCode `json:"code"`
	Message string           `json:"message"`
	Pointer string           `json:"pointer,omitempty"`
	Suggest string           `json:"suggestedId,omitempty"`
	// Rewrite is what normalizing a legacy file changed at Pointer
	// (NoticeLegacyFormat).
	Rewrite legacy.Code `json:"rewrite,omitempty"`
}

// Routines finds a routine by id for a template call: among the files
// loaded together, then the bundled ones. Nil finds none.
type Routines func(engine.WorkflowID) (workflow.Workflow, bool)

// Shadow records an id defined by two sources: the winner is used.
type Shadow struct {
	ID       engine.WorkflowID `json:"id"`
	Winner   Source            `json:"winner"`
	Shadowed Source            `json:"shadowed"`
	File     string            `json:"shadowedFile"`
}

// LoadProblem is a workflow file that could not be loaded, and why. ID is
// the id the file names when that much of it can be read (IDOf), so a
// broken file is known for the workflow it was meant to define.
type LoadProblem struct {
	Source   Source            `json:"source"`
	File     string            `json:"file"`
	ID       engine.WorkflowID `json:"id,omitempty"`
	Problems workflow.Problems `json:"problems"`
}

// Catalog is the set of workflows visible to one call.
type Catalog struct {
	entries map[engine.WorkflowID]Entry
	order   []engine.WorkflowID
	// losers are the definitions each winner shadows, as given to New.
	losers   map[engine.WorkflowID][]Entry
	Shadowed []Shadow
	Problems []LoadProblem
	// Warnings are about sources that serve less than they name (a
	// repository that could not be fetched), set by WithWarnings.
	Warnings []SourceWarning
}

// New assembles a catalog: on an id defined twice the source of higher
// precedence wins (of two of the same kind, the one given first, but for
// repositories, where the later wins; within one source, the file given
// first), and every other definition is reported as shadowed by the
// winner.
func New(entries []Entry, problems []LoadProblem) *Catalog {
	c := &Catalog{entries: map[engine.WorkflowID]Entry{}, Problems: problems}
	for _, e := range entries {
		if prev, dup := c.entries[e.Compiled.ID]; !dup || wins(e.Source, prev.Source) {
			c.entries[e.Compiled.ID] = e
		}
	}
	for _, e := range entries {
		if w := c.entries[e.Compiled.ID]; !sameEntry(w, e) {
			c.Shadowed = append(c.Shadowed, Shadow{ID: e.Compiled.ID, Winner: w.Source, Shadowed: e.Source, File: e.File})
			if c.losers == nil {
				c.losers = map[engine.WorkflowID][]Entry{}
			}
			c.losers[e.Compiled.ID] = append(c.losers[e.Compiled.ID], e)
		}
	}
	c.sort()
	return c
}

// wins reports whether a definition from a, given after one from b,
// takes the id from it.
func wins(a, b Source) bool {
	if pa, pb := precedence(a.Kind), precedence(b.Kind); pa != pb {
		return pa < pb
	}
	return a.Kind == Repo && a != b
}

func sameEntry(a, b Entry) bool { return a.Source == b.Source && a.File == b.File }

// Get returns the workflow with id.
func (c *Catalog) Get(id engine.WorkflowID) (Entry, bool) {
	e, ok := c.entries[id]
	return e, ok
}

// Definition is the definition of id, the winning one or one it
// shadows, that compiles to hash: where a run pinned to that version
// could take it from again.
func (c *Catalog) Definition(id engine.WorkflowID, hash engine.WorkflowHash) (Entry, bool) {
	if e, ok := c.entries[id]; ok && e.Compiled.Hash == hash {
		return e, true
	}
	for _, e := range c.losers[id] {
		if e.Compiled.Hash == hash {
			return e, true
		}
	}
	return Entry{}, false
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

func (c *Catalog) sort() {
	c.order = c.order[:0]
	for id := range c.entries {
		c.order = append(c.order, id)
	}
	kindRank := func(k workflow.Kind) int {
		if k == workflow.KindWorkflow {
			return 0
		}
		return 1
	}
	sort.Slice(c.order, func(i, j int) bool {
		a, b := c.entries[c.order[i]].Compiled, c.entries[c.order[j]].Compiled
		if na, nb := workflow.Namespace(a.ID), workflow.Namespace(b.ID); na != nb {
			return na < nb
		}
		if kindRank(a.Kind) != kindRank(b.Kind) {
			return kindRank(a.Kind) < kindRank(b.Kind)
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.ID < b.ID
	})
}

// Load parses one file (in either dialect), checks its source's id rules
// and compiles it, with the bundled routines only.
func Load(b []byte, src Source, file string) (Entry, workflow.Problems) {
	return LoadWith(b, src, file, nil)
}

// LoadWith is Load with the routines template calls may expand. looked
// says where those routines were read from (besides the bundled ones),
// e.g. "/lib (and its subfolders)": the problem of a call that none of
// them resolves names it.
func LoadWith(b []byte, src Source, file string, routines Routines, looked ...string) (Entry, workflow.Problems) {
	r, p := ReadFile(b, src)
	if p != nil {
		return Entry{}, p
	}
	return r.Load(file, routines, looked...)
}

// Read is one file normalized and held to its source's id rules, not yet
// compiled: a file whose routine calls resolve only once every file of
// its catalog is known compiles again from here, without being parsed
// again (parsing is most of the cost of loading a file).
type Read struct {
	text []byte
	src  Source
	w    workflow.Workflow
	res  legacy.Result
}

// ReadFile normalizes one file (in either dialect) and checks its
// source's id rules.
func ReadFile(b []byte, src Source) (Read, workflow.Problems) {
	w, res, p := read(b, src)
	if p != nil {
		return Read{}, p
	}
	return Read{text: b, src: src, w: w, res: res}, nil
}

// Load compiles r as LoadWith does.
func (r Read) Load(file string, routines Routines, looked ...string) (Entry, workflow.Problems) {
	b, src, w, res := r.text, r.src, r.w, r.res
	status, _ := workflow.StatusOf(w.ID)
	opts := compile.Options{Routines: routines, Rewrites: res.Rewrites()}
	if res.Legacy() {
		opts.Dialect = compile.DialectTS
	}
	c, warnings, err := compile.CompileWith(w, opts)
	var over *compile.LimitError
	var missing *compile.MissingRoutineError
	switch {
	case errors.As(err, &over):
		return Entry{}, workflow.Problems{workflow.Locate(b, workflow.Problem{Pointer: over.Pointer, Message: over.Error()})}
	case errors.As(err, &missing):
		return Entry{}, workflow.Problems{workflow.Locate(b, workflow.Problem{Pointer: missing.Pointer, Message: missingRoutine(missing, looked)})}
	case err != nil:
		return Entry{}, workflow.Problems{{Message: err.Error()}}
	}
	e := Entry{Source: src, File: file, Text: b, Compiled: c, IDStatus: status, Workflow: w}
	if claimed := IDOf(b); claimed != w.ID && workflow.Reserved(claimed) {
		e.Warnings = append(e.Warnings, Notice{Code: event.NoticeReservedIDRenamed, Suggest: string(w.ID), Pointer: "/id",
			Message: fmt.Sprintf("%q is in the wr namespace, which is WorkRail's own; it loads as %q (rename it in the file to keep that id)", claimed, w.ID)})
	}
	for _, x := range res.Warnings {
		e.Warnings = append(e.Warnings, Notice{Code: event.NoticeLegacyFormat, Rewrite: x.Code, Pointer: x.Pointer, Message: x.Message})
	}
	for _, x := range warnings {
		code := event.NoticeRoutineArgUnused
		if x.Code == compile.WarnDelegationRetargeted {
			code = event.NoticeDelegationRetargeted
		}
		e.Warnings = append(e.Warnings, Notice{Code: code, Pointer: x.Pointer, Message: x.Message})
	}
	if status == workflow.Legacy {
		s := SuggestedID(w.ID, src.Kind)
		e.Warnings = append(e.Warnings, Notice{Code: event.NoticeLegacyWorkflowID, Pointer: "/id", Suggest: string(s),
			Message: fmt.Sprintf("workflow id %q has no namespace; it still runs, but rename it to %q", w.ID, s)})
	}
	return e, nil
}

// missingRoutine says which routine a call names, where WorkRail looked
// for it, and what to do: most often, add the folder that holds it.
func missingRoutine(m *compile.MissingRoutineError, looked []string) string {
	where := "the files loaded with this one"
	if len(looked) > 0 {
		where = strings.Join(looked, ", ")
	}
	return fmt.Sprintf("step %s calls routine %q, which is not loaded: WorkRail looked for it in %s and among its bundled routines. "+
		"Add the folder that holds the routine's file (a library keeps its routines in routines/ beside its workflows) "+
		"to the folders WorkRail reads (workflowPaths in config.json, or the folders given to workrail validate), or check the routine's id",
		m.Step, m.Routine, where)
}

// read normalizes one file and applies its source's id rules: a file
// outside the bundled source that claims a wr.* id loads under
// SuggestedID of its name part.
func read(b []byte, src Source) (workflow.Workflow, legacy.Result, workflow.Problems) {
	res, err := legacy.Normalize(b)
	if err != nil {
		var p workflow.Problems
		if errors.As(err, &p) {
			return workflow.Workflow{}, res, p
		}
		return workflow.Workflow{}, res, workflow.Problems{{Message: err.Error()}}
	}
	w := res.Workflow
	status, _ := workflow.StatusOf(w.ID)
	if src.Kind == Bundled && (status != workflow.Namespaced || !workflow.Reserved(w.ID)) {
		return w, res, workflow.Problems{workflow.Locate(b, workflow.Problem{Pointer: "/id", Message: "bundled workflows must use the wr namespace"})}
	}
	if src.Kind != Bundled && workflow.Reserved(w.ID) {
		w.ID = SuggestedID(w.ID[len("wr."):], src.Kind)
	}
	return w, res, nil
}

// SuggestedID is the deterministic namespaced rename of a legacy id.
func SuggestedID(id engine.WorkflowID, kind SourceKind) engine.WorkflowID {
	ns := "user"
	switch kind {
	case Project:
		ns = "project"
	case Config, Repo:
		ns = "repo"
	}
	return engine.WorkflowID(ns + "." + string(id))
}

// Validate checks one workflow file as it would be written to a source of
// the given kind: everything Parse checks, the source's namespace rules,
// and compilation. A wr.* id outside the bundled source is refused here,
// though loading such a file renames it: an author picks the id a new
// file loads under. The Console editor uses it.
func Validate(b []byte, kind SourceKind) (compile.Compiled, []Notice, workflow.Problems) {
	if id := IDOf(b); kind != Bundled && workflow.Reserved(id) {
		return compile.Compiled{}, nil, workflow.Problems{workflow.Locate(b, workflow.Problem{Pointer: "/id", Message: fmt.Sprintf(
			"the wr namespace is reserved for workflows bundled with WorkRail; rename %q to e.g. %q", id, SuggestedID(id[len("wr."):], kind))})}
	}
	e, p := Load(b, Source{Kind: kind}, "")
	return e.Compiled, e.Warnings, p
}

// File is one workflow file's name and bytes.
type File struct {
	Name string
	Data []byte
}

// LoadSet loads files that belong together (one folder, or the files
// given to validate) as a source of kind src.Kind, in the order given: a
// routine call resolves among them (by the id the routine's file claims,
// or the one it loads under), then among fallback (e.g. the bundled
// routines). looked names where the files were read from (LoadWith).
func LoadSet(files []File, src Source, fallback Routines, looked ...string) ([]Entry, []LoadProblem) {
	set := map[engine.WorkflowID]workflow.Workflow{}
	for _, f := range files {
		w, _, p := read(f.Data, src)
		if p == nil && w.Kind == workflow.KindRoutine {
			set[w.ID] = w
			claimed := IDOf(f.Data)
			set[claimed] = w
			if strings.HasPrefix(string(claimed), "routine-") {
				set["wr."+claimed] = w
			}
		}
	}
	find := func(id engine.WorkflowID) (workflow.Workflow, bool) {
		if w, ok := set[id]; ok {
			return w, true
		}
		if fallback != nil {
			return fallback(id)
		}
		return workflow.Workflow{}, false
	}
	var entries []Entry
	var problems []LoadProblem
	for _, f := range files {
		e, p := LoadWith(f.Data, src, f.Name, find, looked...)
		if p != nil {
			problems = append(problems, LoadProblem{Source: src, File: f.Name, ID: IDOf(f.Data), Problems: p})
			continue
		}
		entries = append(entries, e)
	}
	return entries, problems
}

// RoutinesOf finds routines among entries by id: the id each loaded
// under, or the wr.* id its file claims.
func RoutinesOf(entries ...[]Entry) Routines {
	return func(id engine.WorkflowID) (workflow.Workflow, bool) {
		for _, list := range entries {
			for _, e := range list {
				if e.Compiled.Kind == workflow.KindRoutine && (e.Compiled.ID == id || claims(e.Text, id)) {
					return e.Workflow, true
				}
			}
		}
		return workflow.Workflow{}, false
	}
}

// claims reports whether a routine's file b claims id: its own id, or,
// for a dot-less routine-x of the TypeScript format, wr.routine-x, the
// id its template calls name.
func claims(b []byte, id engine.WorkflowID) bool {
	claimed := IDOf(b)
	return claimed == id || (strings.HasPrefix(string(claimed), "routine-") && "wr."+claimed == id)
}

// LoadFS loads every *.json file at the top of fsys as a source of kind
// src.Kind, in name order, routine calls resolving among them.
func LoadFS(fsys fs.FS, src Source) ([]Entry, []LoadProblem) {
	names, _ := fs.Glob(fsys, "*.json")
	var files []File
	var problems []LoadProblem
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			problems = append(problems, LoadProblem{Source: src, File: name, Problems: workflow.Problems{{Message: err.Error()}}})
			continue
		}
		files = append(files, File{Name: name, Data: b})
	}
	entries, p := LoadSet(files, src, nil)
	return entries, append(problems, p...)
}

// IDOf is the id a workflow file names, read as far as the file allows:
// the string value of its top-level "id" key, found before any syntax
// error. It is "" when the file is not a JSON object or names no id there.
// It decides nothing about the file; LoadProblem uses it to say which
// workflow a broken file was meant to define.
func IDOf(b []byte) engine.WorkflowID {
	id, _, _ := idValue(b)
	return id
}

// idValue finds the string value of b's top-level "id" key, as far as the
// file allows: the id, and where its quoted value starts and ends in b
// (end 0 when there is none).
func idValue(b []byte) (id engine.WorkflowID, start, end int) {
	v, start, end := stringValue(b, "id")
	return engine.WorkflowID(v), start, end
}

// stringValue finds the string value of b's top-level key, as idValue;
// like encoding/json, jsontext takes a name twice and invalid UTF-8 on
// the way.
func stringValue(b []byte, key string) (value string, start, end int) {
	d := jsontext.NewDecoder(bytes.NewReader(b), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if t, err := d.ReadToken(); err != nil || t.Kind() != '{' {
		return "", 0, 0
	}
	for d.PeekKind() == '"' {
		k, err := d.ReadToken()
		if err != nil {
			return "", 0, 0
		}
		if k.String() == key {
			afterKey := int(d.InputOffset())
			v, err := d.ReadToken()
			if err != nil || v.Kind() != '"' {
				return "", 0, 0
			}
			// Between the key and its value only the colon and white space.
			end := int(d.InputOffset())
			return v.String(), afterKey + bytes.IndexByte(b[afterKey:end], '"'), end
		}
		if d.SkipValue() != nil {
			return "", 0, 0
		}
	}
	return "", 0, 0
}
