package console

import (
	"cmp"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workrail/workrail/console/lanes"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/workflow"
)

// runFilter is the closed set of the run page's filters.
type runFilter string

const (
	filterAll     runFilter = "all"
	filterGaps    runFilter = "gaps"
	filterBlocked runFilter = "blocked"
	filterForks   runFilter = "forks"
)

var runFilters = []runFilter{filterAll, filterGaps, filterBlocked, filterForks}

// runView is the run page, read from the run's projection: its header
// (the verdict, what needs the reader, where the run stands), its rows
// laid out in lanes (or, under a filter, the rows it picks) and the row
// open in the side panel.
type runView struct {
	Session engine.SessionID
	P       *project.Projection
	Pinned  pinned
	// Repo is the repository and commit the run's version was read from.
	Repo   event.RepoPin
	Layout lanes.Layout
	Filter runFilter
	Expand string // the expand query, kept on every link
	Panel  *rowPanel
	// Loops names the loop of each loop fold, by the fold's first row.
	Loops map[engine.NodeID]string
	Drift *catalog.Drift // nil while the pin is what the id means
	// Head is the last event the page shows; Health what is known of the
	// session's log.
	Head      engine.EventIndex
	Health    health
	Workspace string // where the session started: the catalog its pin is compared with
	// Restarts are the runs of the session that start this one over.
	Restarts []restartRef
	// Rows are the rows the page lists, a page at a time (?rows= is the
	// first; by default the page holding the open row).
	Rows   []rowView
	RowsAt pager
	// PanelLists are the pages of the open row's attempts the panel
	// shows (?attempts=).
	PanelLists panelLists
	Now        time.Time
	// Counts are the rows each filter picks.
	Counts   map[runFilter]int
	Progress project.Progress
	// Needs are what stands in the run's way now, worst first.
	Needs []need
	// Prefs are the preferences at the tip.
	Prefs workflow.Preferences
	// picked are the rows the filter picks, in the order the rows run.
	picked []project.Row
}

// flat says the page lists the rows a filter picks rather than the lanes.
func (v runView) flat() bool { return v.Filter != filterAll }

// panelLists are the pages of the open row's lists.
type panelLists struct {
	Attempts   []attemptView
	AttemptsAt pager
	query      url.Values
}

// runRequest is what a run page's URL names.
type runRequest struct {
	session engine.SessionID
	run     engine.RunID
	json    bool // runs/{run}.json
	expand  map[engine.NodeID]bool
	all     bool   // expand=all: every folded row open
	text    string // the expand query as the URL says it
	node    engine.NodeID
	filter  runFilter
	rows    string // the first row listed, as the URL says it ("" for the default)
	panel   url.Values
}

func parseRunRequest(r *http.Request) (runRequest, bool) {
	q := runRequest{expand: map[engine.NodeID]bool{}, filter: filterAll}
	runParam := chi.URLParam(r, "run")
	if rest, ok := strings.CutSuffix(runParam, ".json"); ok {
		runParam, q.json = rest, true
	}
	if q.session.UnmarshalText([]byte(chi.URLParam(r, "session"))) != nil || q.run.UnmarshalText([]byte(runParam)) != nil {
		return q, false
	}
	q.text = r.URL.Query().Get("expand")
	q.all = q.text == expandAll
	for _, s := range strings.Split(q.text, ",") {
		var id engine.NodeID
		if id.UnmarshalText([]byte(s)) == nil {
			q.expand[id] = true
		}
	}
	if n := r.URL.Query().Get("node"); n != "" && q.node.UnmarshalText([]byte(n)) != nil {
		return q, false
	}
	for _, f := range runFilters {
		if string(f) == r.URL.Query().Get("filter") {
			q.filter = f
		}
	}
	q.rows, q.panel = r.URL.Query().Get("rows"), r.URL.Query()
	return q, true
}

// runShow renders a run: the rows beside their drawing, and the row
// named by ?node= in the side panel; runs/{run}.json is its projection
// as JSON.
func (c *Console) runShow(w http.ResponseWriter, r *http.Request) {
	q, ok := parseRunRequest(r)
	if !ok {
		c.notFound(w, r)
		return
	}
	if q.json {
		c.runJSON(w, r, q)
		return
	}
	m := c.chrome(q.run.String() + " of " + q.session.String())
	v, err := c.run(q)
	if err == nil {
		err = v.pageRows(q, m.Config.PageSize)
	}
	if err == nil && v.Panel != nil {
		err = c.panelLists(&v, q, m.Config.PageSize)
	}
	if errors.Is(err, engine.ErrNotFound) {
		c.notFound(w, r)
		return
	}
	if err != nil {
		c.fail(w, r, q.run.String()+" of "+q.session.String(), err)
		return
	}
	c.render(w, r, http.StatusOK, runPage(m, v))
}

// runJSON serves the run's projection (project.Document), titled from
// its pinned workflow.
func (c *Console) runJSON(w http.ResponseWriter, r *http.Request, q runRequest) {
	p, _, _, err := c.runProjection(q.session, q.run)
	if err == nil {
		var pin pinned
		if pin, err = c.pinned(q.session, p.WorkflowHash); err == nil {
			w.Header().Set("Content-Type", "application/json")
			d := p.Document(q.session, pin.Compiled)
			_ = d.WriteJSON(w) // only a write can fail: the client has gone
			return
		}
	}
	if errors.Is(err, engine.ErrNotFound) {
		c.notFound(w, r)
		return
	}
	c.fail(w, r, q.run.String()+" of "+q.session.String(), err)
}

// runGraph serves the decorative drawing of a run's layout.
func (c *Console) runGraph(w http.ResponseWriter, r *http.Request) {
	q, ok := parseRunRequest(r)
	if !ok {
		c.notFound(w, r)
		return
	}
	p, _, _, err := c.runProjection(q.session, q.run)
	var layout lanes.Layout
	if err == nil {
		layout, _, err = revealed(p, q)
	}
	if errors.Is(err, engine.ErrNotFound) {
		c.notFound(w, r)
		return
	}
	if err != nil {
		c.fail(w, r, "the drawing of "+q.run.String()+" of "+q.session.String(), err)
		return
	}
	from, to := 0, len(layout.Rows) // the rows of the page the drawing is beside
	if f, err := strconv.Atoi(r.URL.Query().Get("from")); err == nil {
		from = f
	}
	if t, err := strconv.Atoi(r.URL.Query().Get("to")); err == nil {
		to = t
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Write([]byte(layout.SVGRows(from, to)))
}

// revealed lays out the run q names as the page shows it: the folds the
// request opens (expand, or all of them) and whatever hides the row open
// in the panel (lanes.Reveal, which returns the ids it opened for that).
func revealed(p *project.Projection, q runRequest) (lanes.Layout, []engine.NodeID, error) {
	expand := q.expand
	if q.all {
		expand = map[engine.NodeID]bool{}
		for _, r := range p.Rows {
			expand[r.Node] = true
		}
	}
	return lanes.Reveal(p, expand, q.node)
}

func (c *Console) run(q runRequest) (runView, error) {
	p, h, head, err := c.runProjection(q.session, q.run)
	if err != nil {
		return runView{}, err
	}
	v := runView{Session: q.session, P: p, Filter: q.filter, Head: head, Health: h, Expand: q.text, Now: c.now()}
	if v.Pinned, err = c.pinned(q.session, p.WorkflowHash); err != nil {
		return v, err
	}
	if v.Repo, err = c.repoOf(q.session, p); err != nil {
		return v, err
	}
	// The row open in the panel always has a row: what folds it opens.
	var opened []engine.NodeID
	if v.Layout, opened, err = revealed(p, q); err != nil {
		return v, err
	}
	if !q.all {
		v.Expand = withAdded(v.Expand, opened)
	}
	v.Loops = loopNames(v.Pinned, v.Layout)
	v.picked = pick(p, v.Filter)
	v.Counts = map[runFilter]int{filterAll: len(p.Rows)}
	for i := range p.Rows {
		for _, f := range runFilters[1:] {
			if picks(&p.Rows[i], f) {
				v.Counts[f]++
			}
		}
	}
	tip, _ := p.Part(p.Tip)
	v.Progress = project.ProgressAt(v.Pinned.Compiled, tip.At)
	if o, err := c.store.Overview(q.session); err == nil {
		v.Workspace = o.Workspace
		for _, r := range o.Runs {
			if r.RestartOf == p.Run {
				pin, err := c.pinned(q.session, r.WorkflowHash)
				if err != nil {
					return v, err
				}
				v.Restarts = append(v.Restarts, restartRef{Run: r.ID, Version: pin.Version, Short: pin.Short()})
			}
		}
	}
	v.Drift = c.drift(v.Workspace, p.WorkflowID, p.WorkflowHash)
	if v.Prefs, err = c.prefsAt(q.session, p.Tip); err != nil {
		return v, err
	}
	if v.Needs, err = c.needs(q.session, p, v.Pinned); err != nil {
		return v, err
	}
	if q.node != 0 {
		row, ok := p.Row(q.node)
		if !ok {
			return v, engine.ErrNotFound
		}
		panel, err := c.rowPanel(q.session, p, v.Pinned, row)
		if err != nil {
			return v, err
		}
		v.Panel = &panel
	}
	return v, nil
}

// prefsAt are the effective preferences at node n.
func (c *Console) prefsAt(sid engine.SessionID, n engine.NodeID) (workflow.Preferences, error) {
	var prefs workflow.Preferences
	err := c.store.View(sid, func(tx execute.ReadTx) error {
		node, err := tx.Node(n)
		if err != nil {
			return err
		}
		snap, err := c.cachedSnapshots(sid)(node.Snapshot)
		prefs = snap.Preferences
		return err
	})
	return prefs, err
}

// pick are the rows filter f lists, in the order the rows were made.
func pick(p *project.Projection, f runFilter) []project.Row {
	var out []project.Row
	for i := range p.Rows {
		if picks(&p.Rows[i], f) {
			out = append(out, p.Rows[i])
		}
	}
	return out
}

// picks says filter f lists row r: a row with open gaps or gaps that
// were not recorded, a row with blocked attempts, a row branches leave
// or start at.
func picks(r *project.Row, f runFilter) bool {
	switch f {
	case filterGaps:
		return r.Outcome.OpenGaps > 0 || r.Outcome.NotRecorded > 0
	case filterBlocked:
		return r.Outcome.Blocked > 0
	case filterForks:
		return len(r.Forks) > 0 || r.Starts
	}
	return false
}

// pageRows picks the rows the page lists: under a filter, the rows it
// picks; else the layout's. A page is ?rows=, else the page holding the
// row open in the panel, else the first.
func (v *runView) pageRows(q runRequest, size int) error {
	kept := url.Values{}
	for k, val := range map[string]string{"filter": string(v.Filter), "expand": v.Expand, "rows": q.rows} {
		if val != "" && !(k == "filter" && val == string(filterAll)) {
			kept.Set(k, val)
		}
	}
	path := runURL(v.Session, v.P.Run)
	if v.flat() {
		if v.Panel != nil {
			kept.Set("node", v.Panel.Row.Node.String())
		}
		rows, at := pageOf(v.picked, path, kept, "rows", "step", "steps", size)
		v.RowsAt = at
		v.Rows = make([]rowView, 0, len(rows))
		for _, r := range rows {
			v.Rows = append(v.Rows, v.flatRow(r))
		}
		return nil
	}
	if v.Panel != nil {
		kept.Set("node", v.Panel.Row.Node.String())
		if q.rows == "" {
			for i, row := range v.Layout.Rows {
				if row.Node == v.Panel.Row.Node {
					kept.Set("rows", strconv.Itoa(i/max(size, 1)*max(size, 1)))
				}
			}
		}
	}
	rows, at := pageOf(v.Layout.Rows, path, kept, "rows", "row", "rows", size)
	v.RowsAt = at
	v.Rows = make([]rowView, 0, len(rows))
	for _, r := range rows {
		v.Rows = append(v.Rows, v.rowOf(r))
	}
	return nil
}

// loopNames names the loop of each loop fold, from the pinned workflow:
// its title, else its id.
func loopNames(p pinned, l lanes.Layout) map[engine.NodeID]string {
	names := map[engine.NodeID]string{}
	for _, row := range l.Rows {
		if row.Kind != lanes.LoopRow {
			continue
		}
		loops := project.ProgressAt(p.Compiled, row.At).Loops
		if row.LoopDepth < len(loops) {
			lp := loops[row.LoopDepth]
			names[row.Node] = cmp.Or(lp.Title, string(lp.LoopID))
		}
	}
	return names
}

// link is the run page's URL with one query value changed.
func (v runView) link(key, value string) string {
	q := map[string]string{"filter": string(v.Filter), "expand": v.Expand}
	if v.Panel != nil {
		q["node"] = v.Panel.Row.Node.String()
	}
	q[key] = value
	if v.RowsAt.First > 0 && key != "expand" && key != "filter" {
		q["rows"] = strconv.Itoa(v.RowsAt.First) // the rows stay where the reader is
	}
	var parts []string
	for _, k := range []string{"filter", "expand", "node", "rows"} {
		if q[k] != "" && !(k == "filter" && q[k] == string(filterAll)) {
			parts = append(parts, k+"="+q[k])
		}
	}
	u := runURL(v.Session, v.P.Run)
	if len(parts) > 0 {
		u += "?" + strings.Join(parts, "&")
	}
	return u
}

// here is node n of the run page v shows.
func (v runView) here(n engine.NodeID) execute.Place {
	return execute.Place{Session: v.Session, Run: v.P.Run, Node: n}
}

// self is the page as it is, the panel's page too.
func (v runView) self() string {
	if v.Panel == nil {
		return v.link("node", "")
	}
	u := v.link("node", v.Panel.Row.Node.String())
	if len(v.PanelLists.query) > 0 {
		u += "&" + v.PanelLists.query.Encode()
	}
	return u
}

// runAnnounce sums the run up for the live region.
func runAnnounce(v runView) string {
	s := v.P.Run.String() + " " + verdictText(v.P.Verdict())
	if t := v.nextTitle(); t != "" {
		s += " at " + t
	}
	return s + ", " + branchCount(len(v.P.Branches))
}

// nextTitle is the title of the step pending at the tip ("" when the run
// is complete).
func (v runView) nextTitle() string {
	tip, _ := v.P.Part(v.P.Tip)
	if tip.Step == "" {
		return ""
	}
	return stepTitle(v.Pinned.Compiled, tip.Step)
}

// expandLink opens a folded row, keeping what is already open.
func (v runView) expandLink(id engine.NodeID) string {
	ids := v.Expand
	if ids != "" {
		ids += ","
	}
	return v.link("expand", ids+id.String())
}

// graphURL is the drawing of the same layout. The URL names the log's
// head too: a live refresh that adds rows changes the URL, so the
// browser fetches the new drawing instead of stretching the old one.
func (v runView) graphURL() string {
	u := runURL(v.Session, v.P.Run) + "/graph.svg?at=" + strconv.FormatUint(uint64(v.Head), 10)
	if v.Expand != "" {
		u += "&expand=" + v.Expand
	}
	if v.RowsAt.Paged() {
		u += "&from=" + strconv.Itoa(v.RowsAt.First) + "&to=" + strconv.Itoa(v.RowsAt.First+v.RowsAt.Shown)
	}
	if v.Panel != nil {
		u += "&node=" + v.Panel.Row.Node.String() // the folds it opens
	}
	return u
}

// expandAll is the expand query value that opens every folded row.
const expandAll = "all"

// folded says some row of the layout stands for more than one row.
func folded(l lanes.Layout) bool {
	for _, r := range l.Rows {
		if r.Kind != lanes.NodeRow {
			return true
		}
	}
	return false
}

// withAdded is the expand query value with ids appended.
func withAdded(expand string, ids []engine.NodeID) string {
	for _, id := range ids {
		if expand != "" {
			expand += ","
		}
		expand += id.String()
	}
	return expand
}

func shortHash(h string) string {
	if len(h) > len("sha256:")+12 {
		return h[:len("sha256:")+12]
	}
	return h
}

func ariaCurrent(on bool) string {
	if on {
		return "page"
	}
	return "false"
}

func graphWidth(v runView) string  { return strconv.Itoa(max(v.Layout.Lanes, 1) * lanes.LaneWidth) }
func graphHeight(v runView) string { return strconv.Itoa(len(v.Rows) * lanes.RowHeight) }
