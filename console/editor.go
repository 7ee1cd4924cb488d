package console

import (
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workrail/workrail/console/diff"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/workflow"
)

// WorkflowFiles reads and writes workflow source files in the folders the
// catalog reads; bundled workflows are never written. An error a person
// can act on (a conflict, invalid text, a folder or file that may not be
// written) is a *catalog.WriteError, and nothing was written.
type WorkflowFiles interface {
	// Folder is the folder new workflows of kind go in: the user's, or
	// the project folder of workspace.
	Folder(kind catalog.SourceKind, workspace string) (catalog.Source, error)
	// Read returns a file's bytes as they are now.
	Read(src catalog.Source, name string) ([]byte, error)
	// Save replaces a file with text if its bytes still hash to base.
	Save(src catalog.Source, name string, base catalog.FileHash, text []byte) error
	// Create writes a new file, never over an existing one.
	Create(src catalog.Source, name string, text []byte) error
}

// starter is the workflow a new one begins as, its id replaced.
//
//go:embed starter.json
var starter []byte

// editorView is the editor of one workflow file: the text in the
// textarea, the hash of the bytes it was loaded from, and what the
// validator says about the text.
type editorView struct {
	ID        engine.WorkflowID // the workflow the page was opened for
	Workspace string            // the catalog's workspace, kept in every link
	Source    catalog.Source
	File      string // the file's name in Source.Path
	Text      string
	Base      catalog.FileHash
	CRLF      bool   // the file's lines end in CRLF, and are saved so
	Check     check  // what the validator says about Text
	Err       string // why the last save did not happen
	Builtins  []builtinGroup
}

// path is the file's place, as the page shows it.
func (v editorView) path() string { return filepath.Join(v.Source.Path, v.File) }

func (v editorView) editURL() string { return editURL(v.ID, v.Workspace) }
func (v editorView) showURL() string {
	return workflowURL(v.ID, v.Workspace, viewSource, engine.WorkflowHash{})
}

// eol is the form's account of the file's line ends.
func (v editorView) eol() string {
	if v.CRLF {
		return "crlf"
	}
	return "lf"
}

// conflictView is a save refused because the file changed on disk: the
// reader's text, kept, the file as it is now, and what differs.
type conflictView struct {
	editorView        // Text is the reader's; Base is the file's hash now
	Disk       string // the file on disk now
	Gone       bool   // the file was removed
	Diff       []diff.Hunk
}

// check is what the validator says about one text: its problems, each
// marked where it is, or the workflow it compiles to.
type check struct {
	Problems []markedProblem
	Notices  []catalog.Notice
	Compiled *compile.Compiled // nil while the text does not load
	// Refusal says why text that loads may still not be saved from here:
	// the legacy shape or a dot-less id, which only files already on
	// disk keep.
	Refusal string
}

// markedProblem is a problem with the line it is on and a caret under
// its column, so it is found without a script.
type markedProblem struct {
	workflow.Problem
	Source string // the problem's line of the text
	Caret  string // white space as wide as the line up to the column, then ^; "" when the problem has no line
}

// summary says in one line what the validator found.
func (k check) summary() string {
	switch n := len(k.Problems); {
	case n == 1:
		return "1 problem: not saved until it is fixed"
	case n > 1:
		return strconv.Itoa(n) + " problems: not saved until they are fixed"
	}
	if k.Refusal != "" {
		return "Loads, but not saved from here: " + k.Refusal
	}
	return "No problems: " + string(k.Compiled.ID) + " version " + k.Compiled.Version + " loads"
}

// checkText validates text as a file of kind, with the validator
// `workrail validate` uses.
func checkText(text string, kind catalog.SourceKind) check {
	c, notices, problems := catalog.Validate([]byte(text), kind)
	if len(problems) == 0 {
		return check{Notices: notices, Compiled: &c, Refusal: saveRefusal(c, kind)}
	}
	return check{Problems: mark(text, problems)}
}

// saveRefusal says why a workflow that loads may not be saved from the
// editor, or "": the Console writes only WorkRail's own format under a
// namespaced id (seed 004), while files already on disk in the legacy
// shape or with a legacy id keep loading and running as they are.
func saveRefusal(c compile.Compiled, kind catalog.SourceKind) string {
	if c.Dialect != "" {
		return "the text is in " + dialectTitle(c.Dialect) + ", and the Console saves only WorkRail's own format. " +
			"Rewrite what the warnings point at (the compiled view of the file shows WorkRail's form), " +
			"or keep editing it outside the Console: files already in that format keep loading and running as they are."
	}
	if status, _ := workflow.StatusOf(c.ID); status == workflow.Legacy {
		return fmt.Sprintf("the id %q has no namespace, and the Console saves only namespaced ids: change it to %q. "+
			"Files already on disk with a legacy id keep loading and running as they are.", c.ID, catalog.SuggestedID(c.ID, kind))
	}
	return ""
}

// mark finds each problem's line in text and puts a caret under its
// column (in runes, as the validator counts). Tabs stay tabs under the
// line, so the caret lines up however wide they are drawn.
func mark(text string, problems workflow.Problems) []markedProblem {
	lines := strings.Split(text, "\n")
	out := make([]markedProblem, len(problems))
	for i, p := range problems {
		out[i].Problem = p
		if p.Line < 1 || p.Line > len(lines) {
			continue
		}
		line := lines[p.Line-1]
		var caret strings.Builder
		for j, r := range []rune(line) {
			if j >= p.Column-1 {
				break
			}
			if r == '\t' {
				caret.WriteRune('\t')
			} else {
				caret.WriteRune(' ')
			}
		}
		out[i].Source, out[i].Caret = line, caret.String()+"^"
	}
	return out
}

// builtinGroup is one kind of builtin for the editor's side panel.
type builtinGroup struct {
	Kind  compile.BuiltinKind
	Items []compile.Builtin
}

// builtins groups the catalog's builtins by kind, in the kinds' order:
// the panel shows what the compiler's registries and the loaded routines
// hold, nothing kept by hand. A kind with nothing in it is left out.
func builtins(cat *catalog.Catalog) []builtinGroup {
	all := cat.Builtins()
	var out []builtinGroup
	for _, k := range compile.BuiltinKinds() {
		g := builtinGroup{Kind: k}
		for _, b := range all {
			if b.Kind == k {
				g.Items = append(g.Items, b)
			}
		}
		if len(g.Items) > 0 {
			out = append(out, g)
		}
	}
	return out
}

var builtinTitles = map[compile.BuiltinKind]string{
	compile.BuiltinFeature:    "Features",
	compile.BuiltinTemplate:   "Templates",
	compile.BuiltinContract:   "Contract packs",
	compile.BuiltinCapability: "Capabilities",
	compile.BuiltinOperator:   "Condition operators",
	compile.BuiltinLoop:       "Loops",
	compile.BuiltinLoopVar:    "Loop variables",
	compile.BuiltinCriterion:  "Notes checks",
	compile.BuiltinEffect:     "Assessment effects",
	compile.BuiltinUserDep:    "User dependencies",
	compile.BuiltinMetrics:    "Metrics profiles",
	compile.BuiltinNotes:      "Notes policies",
	compile.BuiltinRoutine:    "Routines",
	compile.BuiltinRef:        "Prompt references (TypeScript format)",
}

func builtinTitle(k compile.BuiltinKind) string { return builtinTitles[k] }

// originText says who defines a builtin and where.
func originText(o compile.BuiltinOrigin) string {
	if o.By == compile.ByWorkRail {
		return "WorkRail (" + o.File + ")"
	}
	return "the " + o.By + " file " + o.File
}

func editURL(id engine.WorkflowID, workspace string) string {
	return "/workflows/" + string(id) + "/edit" + workspaceQuery(workspace)
}

func workspaceQuery(workspace string) string {
	if workspace == "" {
		return ""
	}
	return "?workspace=" + url.QueryEscape(workspace)
}

// knownWorkspace says whether ws is "" or a workspace sessions were
// started in: the only project folders the Console reads or writes.
func (c *Console) knownWorkspace(ws string) (bool, error) {
	if ws == "" {
		return true, nil
	}
	_, workspaces, err := c.pinnedRuns()
	return slices.Contains(workspaces, ws), err
}

// fileOf is the file behind workflow id in cat: the
// definition that wins the id or, while the file fails to load, the file
// that names it.
func fileOf(cat *catalog.Catalog, id engine.WorkflowID) (catalog.Source, string, bool) {
	if e, ok := cat.Get(id); ok {
		return e.Source, inFolder(e.Source, e.File), true
	}
	for _, p := range cat.Problems {
		if p.ID == id && catalog.Writable(p.Source.Kind) {
			return p.Source, inFolder(p.Source, p.File), true
		}
	}
	return catalog.Source{}, "", false
}

// inFolder is file's path within its source folder: its name, or
// "routines/check.json" for a file of a subfolder the folder is read
// with.
func inFolder(src catalog.Source, file string) string {
	if rel, err := filepath.Rel(src.Path, file); err == nil && src.Path != "" && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return filepath.Base(file)
}

// workflowEdit renders the editor of a workflow's file, or, for a bundled
// workflow, the offer to fork it.
func (c *Console) workflowEdit(w http.ResponseWriter, r *http.Request) {
	id := engine.WorkflowID(chi.URLParam(r, "id"))
	ws := r.URL.Query().Get("workspace")
	if ok, err := c.knownWorkspace(ws); err != nil {
		c.fail(w, r, "the workspaces", err)
		return
	} else if !ok {
		c.notFound(w, r)
		return
	}
	cat := c.workflows.Catalog(ws)
	src, name, ok := fileOf(cat, id)
	if !ok {
		c.notFound(w, r)
		return
	}
	if !catalog.Writable(src.Kind) {
		v := newFileView{ID: id, Workspace: ws, Name: forkedName(id)}
		if e, ok := cat.Get(id); ok {
			v.Title = forkTitle(e.Compiled.Name)
		}
		c.forkWorkflowOffer(w, r, http.StatusOK, v)
		return
	}
	b, err := c.files.Read(src, name)
	var we *catalog.WriteError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.notFound(w, r)
		return
	case errors.As(err, &we):
		c.render(w, r, http.StatusForbidden, errorPage(c.chrome("Not editable"), we.Message))
		return
	case err != nil:
		c.fail(w, r, "the file of "+string(id), err)
		return
	}
	v := editorView{ID: id, Workspace: ws, Source: src, File: name, Base: catalog.HashFile(b), CRLF: strings.Contains(string(b), "\r\n"),
		Text: lf(string(b)), Builtins: builtins(cat)}
	v.Check = checkText(v.Text, src.Kind)
	c.render(w, r, http.StatusOK, editorPage(c.chrome("Edit "+string(id)), v))
}

// writableKind says whether k, read from a form, is a source kind whose
// files may be written.
func writableKind(k catalog.SourceKind) bool {
	return slices.Contains(catalog.SourceKinds(), k) && catalog.Writable(k)
}

// lf is text with CRLF line ends made LF: browsers send a textarea's lines
// ending in CRLF, whatever the file had.
func lf(text string) string { return strings.ReplaceAll(text, "\r\n", "\n") }

// editForm reads the editor's form. The file it names is checked again by
// the writer (a folder the catalog reads, a plain name), and a project
// folder must belong to a workspace sessions were started in.
func (c *Console) editForm(w http.ResponseWriter, r *http.Request) (editorView, bool, error) {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	v := editorView{ID: engine.WorkflowID(chi.URLParam(r, "id")), Workspace: r.URL.Query().Get("workspace"),
		Source: catalog.Source{Kind: catalog.SourceKind(r.PostFormValue("kind")), Path: r.PostFormValue("folder")},
		File:   r.PostFormValue("file"), Text: lf(r.PostFormValue("text")), CRLF: r.PostFormValue("eol") == "crlf"}
	if v.Base.UnmarshalText([]byte(r.PostFormValue("base"))) != nil || !writableKind(v.Source.Kind) {
		return v, false, nil
	}
	ok, err := c.knownWorkspace(v.Workspace)
	if ok && v.Source.Kind == catalog.Project {
		ok, err = c.knownWorkspace(filepath.Dir(filepath.Dir(v.Source.Path)))
	}
	return v, ok, err
}

// workflowSave saves the editor's text ("save"), or only checks it
// ("check", the editor's button for a reader without scripts). A save
// that is refused shows the editor again with the reader's text: a
// conflict (409) beside the file on disk, invalid text (422) with its
// problems, a file that may not be written (403) with why.
func (c *Console) workflowSave(w http.ResponseWriter, r *http.Request) {
	v, ok, err := c.editForm(w, r)
	switch {
	case err != nil:
		c.fail(w, r, "the workspaces", err)
		return
	case !ok:
		c.render(w, r, http.StatusUnprocessableEntity, errorPage(c.chrome("Not saved"),
			"The editor's form was incomplete, so nothing was saved. Open the workflow's editor again."))
		return
	}
	m := c.chrome("Edit " + string(v.ID))
	if r.PostFormValue("action") == "check" {
		v.Check = checkText(v.Text, v.Source.Kind)
		c.renderEditor(w, r, http.StatusOK, m, v)
		return
	}
	if m.Relogin = c.stale(r); m.Relogin > 0 {
		v.Check = checkText(v.Text, v.Source.Kind)
		c.renderEditor(w, r, reloginStatus, m, v)
		return
	}
	if k := checkText(v.Text, v.Source.Kind); k.Refusal != "" {
		v.Err, v.Check = "Not saved: "+k.Refusal, k
		c.renderEditor(w, r, http.StatusUnprocessableEntity, m, v)
		return
	}
	text := v.Text
	if v.CRLF {
		text = strings.ReplaceAll(text, "\n", "\r\n")
	}
	err = c.files.Save(v.Source, v.File, v.Base, []byte(text))
	if err == nil {
		id := catalog.IDOf([]byte(text))
		http.Redirect(w, r, workflowURL(id, v.Workspace, viewSource, engine.WorkflowHash{}), http.StatusSeeOther)
		return
	}
	var we *catalog.WriteError
	if !errors.As(err, &we) {
		c.logf("console: save %s: %v", v.path(), err)
		v.Err = "WorkRail could not save the file: " + err.Error() + ". Your text is below; nothing was lost."
		v.Check = checkText(v.Text, v.Source.Kind)
		c.renderEditor(w, r, http.StatusInternalServerError, m, v)
		return
	}
	if we.Kind == catalog.WriteConflict {
		cv := conflictView{editorView: v, Disk: lf(string(we.Current)), Gone: we.Current == nil}
		cv.Base = catalog.HashFile(we.Current)
		cv.Diff = diff.Lines(cv.Disk, v.Text, 3)
		c.render(w, r, http.StatusConflict, saveConflictPage(c.chrome("Changed on disk: "+string(v.ID)), cv))
		return
	}
	v.Err = "Not saved: " + we.Message + "."
	v.Check = checkText(v.Text, v.Source.Kind)
	c.renderEditor(w, r, writeStatus(we.Kind), m, v)
}

// renderEditor shows the editor again after a post, its builtins panel
// read from the catalog only then: a save that succeeds needs none.
func (c *Console) renderEditor(w http.ResponseWriter, r *http.Request, status int, m chrome, v editorView) {
	v.Builtins = builtins(c.workflows.Catalog(v.Workspace))
	c.render(w, r, status, editorPage(m, v))
}

// writeStatus is the status of a page refusing a write.
func writeStatus(k catalog.WriteErrorKind) int {
	switch k {
	case catalog.WriteConflict, catalog.WriteExists:
		return http.StatusConflict
	case catalog.WriteNotWritable:
		return http.StatusForbidden
	}
	return http.StatusUnprocessableEntity
}

// workflowCheck answers the editor as the reader types: the problems
// panel and the compiled steps of the text, for a file of the form's kind.
func (c *Console) workflowCheck(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	kind := catalog.SourceKind(r.PostFormValue("kind"))
	if !writableKind(kind) {
		c.notFound(w, r)
		return
	}
	c.render(w, r, http.StatusOK, checkPanel(checkText(lf(r.PostFormValue("text")), kind)))
}

// newFileView is the offer to fork a bundled workflow, or to start a new
// one: where it goes and under what name, and why the last try failed.
type newFileView struct {
	ID         engine.WorkflowID // the bundled workflow (fork only)
	Workspace  string            // the catalog's workspace; preselected as the place
	Workspaces []string          // whose project folders a workflow may go in
	Name       string            // the new id's name part
	Title      string            // the fork's name people see (fork only)
	Err        string
	Existing   string        // the URL of a workflow already under the name
	Relogin    time.Duration // the fresh-login window an old login missed (chrome.Relogin)
}

// forkedName is the name part of id, proposed for its fork.
func forkedName(id engine.WorkflowID) string {
	_, name, _ := strings.Cut(string(id), ".")
	return name
}

// forkTitle is the name a fork of a workflow named name is offered, so
// the two are told apart in lists and pickers.
func forkTitle(name string) string { return name + " (fork)" }

// forkWorkflowOffer renders the fork offer with the workspaces a fork may go in.
func (c *Console) forkWorkflowOffer(w http.ResponseWriter, r *http.Request, status int, v newFileView) {
	_, workspaces, err := c.pinnedRuns()
	if err != nil {
		c.fail(w, r, "the workspaces", err)
		return
	}
	v.Workspaces = workspaces
	m := c.chrome("Fork " + string(v.ID))
	m.Relogin = v.Relogin
	c.render(w, r, status, forkWorkflowPage(m, v))
}

// newWorkflowOffer renders the new-workflow form.
func (c *Console) newWorkflowOffer(w http.ResponseWriter, r *http.Request, status int, v newFileView) {
	_, workspaces, err := c.pinnedRuns()
	if err != nil {
		c.fail(w, r, "the workspaces", err)
		return
	}
	v.Workspaces = workspaces
	m := c.chrome("New workflow")
	m.Relogin = v.Relogin
	c.render(w, r, status, newWorkflowPage(m, v))
}

// workflowNew renders the form for a new workflow.
func (c *Console) workflowNew(w http.ResponseWriter, r *http.Request) {
	c.newWorkflowOffer(w, r, http.StatusOK, newFileView{Workspace: r.URL.Query().Get("workspace")})
}

// workflowCreate creates a new workflow from the starter and opens it in
// the editor.
func (c *Console) workflowCreate(w http.ResponseWriter, r *http.Request) {
	c.createFrom(w, r, newFileView{}, starter, c.newWorkflowOffer)
}

// workflowFork copies a bundled workflow into the user's or a project's
// namespace under a new id and opens the copy in the editor. Only bundled
// workflows are forked: the others are edited where they are.
func (c *Console) workflowFork(w http.ResponseWriter, r *http.Request) {
	id := engine.WorkflowID(chi.URLParam(r, "id"))
	e, ok := c.workflows.Catalog("").Get(id)
	if !ok || e.Source.Kind != catalog.Bundled {
		c.notFound(w, r)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	v := newFileView{ID: id, Title: strings.TrimSpace(r.PostFormValue("title"))}
	if v.Title == "" {
		v.Title = forkTitle(e.Compiled.Name)
	}
	text, ok := catalog.WithName(e.Text, v.Title)
	if !ok {
		text = e.Text // a bundled workflow always has a name; keep it if not
	}
	c.createFrom(w, r, v, text, c.forkWorkflowOffer)
}

// createFrom writes text, its id replaced by the form's namespaced name, as a
// new file in the folder the form chose, then opens it in the editor. A
// refusal shows the form again, through again.
func (c *Console) createFrom(w http.ResponseWriter, r *http.Request, v newFileView, text []byte,
	again func(http.ResponseWriter, *http.Request, int, newFileView)) {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	v.Workspace, v.Name = r.PostFormValue("workspace"), strings.TrimSpace(r.PostFormValue("name"))
	if ok, err := c.knownWorkspace(v.Workspace); err != nil || !ok {
		c.notFound(w, r)
		return
	}
	if v.Relogin = c.stale(r); v.Relogin > 0 {
		again(w, r, reloginStatus, v)
		return
	}
	kind, ns := catalog.User, "user"
	if v.Workspace != "" {
		kind, ns = catalog.Project, "project"
	}
	id := engine.WorkflowID(ns + "." + v.Name)
	if status, err := workflow.StatusOf(id); err != nil || status != workflow.Namespaced {
		v.Err = "A name is lower-case letters, digits, '_' or '-', starting with a letter, like my_review."
		again(w, r, http.StatusUnprocessableEntity, v)
		return
	}
	named, _ := catalog.WithID(text, id)
	src, err := c.files.Folder(kind, v.Workspace)
	if err == nil {
		err = c.files.Create(src, catalog.FileName(id), named)
	}
	var we *catalog.WriteError
	switch {
	case err == nil:
		http.Redirect(w, r, editURL(id, v.Workspace), http.StatusSeeOther)
	case errors.As(err, &we):
		v.Err = "Not created: " + we.Message + "."
		if we.Kind == catalog.WriteExists {
			v.Existing = editURL(id, v.Workspace)
		}
		again(w, r, writeStatus(we.Kind), v)
	default:
		c.fail(w, r, "a new workflow file", err)
	}
}
