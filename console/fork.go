package console

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/workrail/workrail/console/diff"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
)

// Runs is what the Console asks of the use cases, the only way it changes
// anything: each call is built from the calls an agent makes and runs
// through their own paths (execute.Service provides them); the Console
// shows the answer.
type Runs interface {
	// Fork starts a branch at a node under an edited context; at a run's
	// first node, a new run of its pinned version in the session.
	Fork(ctx context.Context, at execute.Place, edited []byte) (protocol.Result, execute.Place)
	// Restart starts a run over on its workflow's current version, in
	// its session.
	Restart(ctx context.Context, at execute.Place, edited []byte) (protocol.Result, execute.Place)
	// Resume reads a node as an agent picking it up with its stateToken
	// alone reads it: the stateToken to hand a chat.
	Resume(ctx context.Context, at execute.Place) protocol.Result
}

// runRoutes are the run actions: fork at a node, hand a node to a chat,
// restart on the current version.
func (c *Console) runRoutes(r chi.Router) {
	r.Get("/sessions/{session}/runs/{run}/fork", c.forkForm)
	r.Post("/sessions/{session}/runs/{run}/fork", c.forkPost)
	r.Get("/sessions/{session}/runs/{run}/handoff", c.handoff)
	r.Get("/sessions/{session}/runs/{run}/restart", c.restartForm)
	r.Post("/sessions/{session}/runs/{run}/restart", c.restartPost)
}

// placeOf reads the session, the run and ?node= (0 when absent) a run
// action's URL names.
func placeOf(r *http.Request) (execute.Place, bool) {
	var at execute.Place
	if at.Session.UnmarshalText([]byte(chi.URLParam(r, "session"))) != nil || at.Run.UnmarshalText([]byte(chi.URLParam(r, "run"))) != nil {
		return at, false
	}
	if n := r.URL.Query().Get("node"); n != "" && at.Node.UnmarshalText([]byte(n)) != nil {
		return at, false
	}
	return at, true
}

// forkView is the Fork here page: the node, what a fork of it does, the
// context to edit, and what became of a submission that did not branch.
type forkView struct {
	At     execute.Place
	Pinned pinned
	// Step is the step pending at the node; nil where the run is complete.
	Step *workflow.StepID
	// Parent is the node the fork advances from, and ParentStep the step
	// it acknowledges again; 0 at the run's first node, where a fork is a
	// new run.
	Parent     engine.NodeID
	ParentStep workflow.StepID
	// Prefs are the node's preferences when the acknowledgement that made
	// it changed them: a fork runs under the parent's and says so.
	Prefs, ParentPrefs *workflow.Preferences
	Context            string // the text the form shows
	Refused            *engine.Error
	Blocked            *protocol.BlockedResult
	BlockedAt          engine.NodeID
}

// forkView reads node at.Node of its run; not found unless it is one.
func (c *Console) forkView(at execute.Place) (forkView, error) {
	g, _, err := c.fold(at.Session)
	if err != nil {
		return forkView{}, err
	}
	n, err := g.Node(at.Node)
	if err != nil || n.Run != at.Run {
		return forkView{}, engine.ErrNotFound
	}
	snap, err := g.Snapshot(n.Snapshot)
	if err != nil {
		return forkView{}, err
	}
	v := forkView{At: at, Parent: n.Parent, Context: contextText(snap.Context)}
	if snap.Position.Step != "" {
		v.Step = &snap.Position.Step
	}
	if v.Pinned, err = c.pinned(at.Session, snap.WorkflowHash); err != nil {
		return v, err
	}
	if n.Parent != 0 {
		parent, err := g.Node(n.Parent)
		if err != nil {
			return v, err
		}
		ps, err := g.Snapshot(parent.Snapshot)
		if err != nil {
			return v, err
		}
		v.ParentStep = ps.Position.Step
		if ps.Preferences != snap.Preferences {
			v.Prefs, v.ParentPrefs = &snap.Preferences, &ps.Preferences
		}
	}
	return v, nil
}

// contextText is a context as the form shows it: indented JSON, keys in
// order.
func contextText(ctx map[string]any) string {
	if len(ctx) == 0 {
		return "{}"
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // the page escapes it; the person reads it as written
	enc.SetIndent("", "  ")
	if err := enc.Encode(ctx); err != nil {
		return "{}" // a stored context is JSON; this cannot happen
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// forkTarget reads the node a fork form is for (?node=) and its view;
// when it cannot, it has answered (404 or 500) and ok is false.
func (c *Console) forkTarget(w http.ResponseWriter, r *http.Request) (at execute.Place, v forkView, ok bool) {
	at, ok = placeOf(r)
	if !ok || at.Node == 0 {
		c.notFound(w, r)
		return at, v, false
	}
	v, err := c.forkView(at)
	if c.missing(w, r, "fork "+at.Node.String(), err) {
		return at, v, false
	}
	return at, v, true
}

// forkForm renders Fork here for ?node=.
func (c *Console) forkForm(w http.ResponseWriter, r *http.Request) {
	at, v, ok := c.forkTarget(w, r)
	if !ok {
		return
	}
	c.render(w, r, http.StatusOK, forkPage(c.chrome("Fork "+at.Node.String()), v))
}

// forkPost forks the node with the context submitted. A fork that
// branched goes on to the page that hands its new node to a chat (so a
// reload never forks twice); a refused one shows the form again with why,
// the text as submitted; a blocked one shows its blockers.
func (c *Console) forkPost(w http.ResponseWriter, r *http.Request) {
	at, v, ok := c.forkTarget(w, r)
	if !ok {
		return
	}
	v.Context = r.PostFormValue("context")
	m := c.chrome("Fork " + at.Node.String())
	if m.Relogin = c.stale(r); m.Relogin > 0 {
		c.render(w, r, reloginStatus, forkPage(m, v))
		return
	}
	res, to := c.runs.Fork(r.Context(), at, []byte(v.Context))
	switch res := res.(type) {
	case protocol.ErrorResult:
		v.Refused = res.Error
		c.render(w, r, http.StatusUnprocessableEntity, forkPage(m, v))
	case protocol.BlockedResult:
		v.Blocked, v.BlockedAt = &res, to.Node
		c.render(w, r, http.StatusOK, forkPage(m, v))
	default:
		http.Redirect(w, r, handoffURL(to), http.StatusSeeOther)
	}
}

// handoffView hands a node to a chat: its stateToken and the line to
// paste, as Resume read it.
type handoffView struct {
	At         execute.Place
	StateToken string
	Pending    *protocol.Pending // nil where the run is complete
	Workflow   protocol.WorkflowRef
	Warnings   []protocol.Warning
}

// Prompt is the one line a person pastes into a chat.
func (v handoffView) Prompt() string {
	if v.Pending == nil {
		return `Look at my WorkRail run: call continue_workflow with stateToken "` + v.StateToken + `"; it is complete.`
	}
	return `Continue my WorkRail run: call continue_workflow with stateToken "` + v.StateToken + `" and do the pending step.`
}

// handoff renders ?node= of a run as an agent resuming it would read it.
func (c *Console) handoff(w http.ResponseWriter, r *http.Request) {
	at, ok := placeOf(r)
	if !ok || at.Node == 0 {
		c.notFound(w, r)
		return
	}
	v := handoffView{At: at}
	switch res := c.runs.Resume(r.Context(), at).(type) {
	case protocol.StepResult:
		v.StateToken, v.Pending, v.Workflow, v.Warnings = res.StateToken, &res.Pending, res.Workflow, res.Warnings
	case protocol.CompleteResult:
		v.StateToken, v.Workflow, v.Warnings = res.StateToken, res.Workflow, res.Warnings
	case protocol.ErrorResult:
		c.refused(w, r, res.Error)
		return
	default:
		c.fail(w, r, at.Node.String(), errors.New("resume answered "+string(res.ResultKind())))
		return
	}
	c.render(w, r, http.StatusOK, handoffPage(c.chrome("Continue from "+at.Node.String()), v))
}

// restartView is the preview of a restart on the current version: what
// changed since the run's pin, and the start context to edit.
type restartView struct {
	At      execute.Place
	Pinned  pinned
	Drift   catalog.Drift
	Current catalog.Entry
	Diff    []diff.Hunk
	Context string
	Refused *engine.Error
}

// restartView reads run at.Run; one whose workflow id means nothing to
// start now cannot be restarted.
func (c *Console) restartView(at execute.Place) (restartView, *catalog.Drift, error) {
	g, _, err := c.fold(at.Session)
	if err != nil {
		return restartView{}, nil, err
	}
	rn, err := g.Run(at.Run)
	if err != nil {
		return restartView{}, nil, err
	}
	root, err := g.Node(rn.Root)
	if err != nil {
		return restartView{}, nil, err
	}
	snap, err := g.Snapshot(root.Snapshot)
	if err != nil {
		return restartView{}, nil, err
	}
	v := restartView{At: at, Context: contextText(snap.Context)}
	if v.Pinned, err = c.pinned(at.Session, rn.WorkflowHash); err != nil {
		return v, nil, err
	}
	workspace := g.Created().WorkspacePath
	d := c.drift(workspace, rn.WorkflowID, rn.WorkflowHash)
	if d == nil || !restartable(*d) {
		return v, d, nil
	}
	v.Drift = *d
	v.Current, _ = c.workflows.Catalog(workspace).Get(rn.WorkflowID)
	v.Diff = diff.Lines(indent(v.Pinned.Compiled.Canonical), indent(v.Current.Compiled.Canonical), 3)
	return v, d, nil
}

// restartable says whether a drifted run's workflow id means a version to
// start now: edited or shadowed, not removed or unloadable.
func restartable(d catalog.Drift) bool {
	return d.Kind == catalog.DriftEdited || d.Kind == catalog.DriftShadowed
}

// restartTarget reads the run a restart form or its post is for, or
// answers why there is none to restart; ok says the caller goes on.
func (c *Console) restartTarget(w http.ResponseWriter, r *http.Request) (at execute.Place, v restartView, ok bool) {
	at, ok = placeOf(r)
	if !ok {
		c.notFound(w, r)
		return at, v, false
	}
	v, d, err := c.restartView(at)
	if c.missing(w, r, "the restart of "+at.Run.String(), err) || c.notRestartable(w, r, v, d) {
		return at, v, false
	}
	return at, v, true
}

// restartForm previews a restart on the current version.
func (c *Console) restartForm(w http.ResponseWriter, r *http.Request) {
	at, v, ok := c.restartTarget(w, r)
	if !ok {
		return
	}
	c.render(w, r, http.StatusOK, restartPage(c.chrome("Restart "+at.Run.String()), v))
}

// restartPost restarts the run with the context submitted and goes on to
// the new run; a refused restart shows the preview again with why.
func (c *Console) restartPost(w http.ResponseWriter, r *http.Request) {
	at, v, ok := c.restartTarget(w, r)
	if !ok {
		return
	}
	v.Context = r.PostFormValue("context")
	m := c.chrome("Restart " + at.Run.String())
	if m.Relogin = c.stale(r); m.Relogin > 0 {
		c.render(w, r, reloginStatus, restartPage(m, v))
		return
	}
	res, to := c.runs.Restart(r.Context(), at, []byte(v.Context))
	if e, refused := res.(protocol.ErrorResult); refused {
		v.Refused = e.Error
		c.render(w, r, http.StatusUnprocessableEntity, restartPage(m, v))
		return
	}
	http.Redirect(w, r, nodeURL(to.Session, to.Run, to.Node), http.StatusSeeOther)
}

// notRestartable answers a restart of a run whose pin is what its id
// means now, or whose id means nothing to start: 409, nothing done.
func (c *Console) notRestartable(w http.ResponseWriter, r *http.Request, v restartView, d *catalog.Drift) bool {
	if d != nil && restartable(*d) {
		return false
	}
	why := string(v.Pinned.ID) + " still means the version this run is pinned to: there is no newer version to restart on."
	if d != nil {
		why = driftText(*d) + " There is no current version to restart on."
	}
	c.render(w, r, http.StatusConflict, errorPage(c.chrome("Nothing to restart on"), why))
	return true
}

// missing answers a lookup that failed: not found, or the 500 page. It
// says whether it answered.
func (c *Console) missing(w http.ResponseWriter, r *http.Request, what string, err error) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, engine.ErrNotFound):
		c.notFound(w, r)
	default:
		c.fail(w, r, what, err)
	}
	return true
}

// refused shows an error the use cases answered with: an unknown node is
// not found; anything else (a damaged session) is said as it is.
func (c *Console) refused(w http.ResponseWriter, r *http.Request, e *engine.Error) {
	if e.Code == engine.CodeTokenUnknownNode {
		c.notFound(w, r)
		return
	}
	c.render(w, r, http.StatusConflict, errorPage(c.chrome("Refused"), "WorkRail refused this ("+string(e.Code)+"): "+e.Message))
}

// restartRef is a run that restarts the run a page shows.
type restartRef struct {
	Run     engine.RunID
	Version string
	Short   string
}

// forkURL is Fork here for node at.Node; handoffURL hands it to a chat;
// restartURL previews a restart of at.Run.
func forkURL(at execute.Place) string {
	return runURL(at.Session, at.Run) + "/fork?node=" + at.Node.String()
}
func handoffURL(at execute.Place) string {
	return runURL(at.Session, at.Run) + "/handoff?node=" + at.Node.String()
}
func restartURL(at execute.Place) string { return runURL(at.Session, at.Run) + "/restart" }

// rowsFor is how many rows a textarea gives text: all of it, within
// reason.
func rowsFor(text string) int {
	return min(max(strings.Count(text, "\n")+2, 4), 24)
}

// prefsText says preferences as the pages do: the mode in words.
func prefsText(p workflow.Preferences) string {
	return modeText(p.Autonomy) + "; risk " + string(p.RiskPolicy)
}
