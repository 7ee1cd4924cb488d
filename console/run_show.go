package console

import (
	"cmp"
	"errors"
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workrail/workrail/console/lanes"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/run"
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

// runView is the run page: the run's summary, its lane layout, which rows
// the filter picks, and the node open in the side panel (if any).
type runView struct {
	Session engine.SessionID
	Summary project.RunSummary
	Layout  lanes.Layout
	Filter  runFilter
	Expand  string // the expand query, kept on every link
	Marked  map[engine.NodeID]bool
	Panel   *nodeView
	Pinned  pinned
	// Loops names the loop of each loop fold, by the fold's first node.
	Loops map[engine.NodeID]string
	Drift *catalog.Drift // nil while the pin is what the id means
	// Head is the last event the page shows; Health says whether that is
	// the whole log.
	Head      engine.EventIndex
	Health    execute.Health
	Workspace string // where the session started: the catalog its pin is compared with
	// Restarts are the runs of the session that start this one over.
	Restarts []restartRef
	// Rows are the layout's rows the page lists, a page at a time (?rows=
	// is the first; by default the page holding the open node).
	Rows   []lanes.Row
	RowsAt pager
	// PanelLists are the pages of the open node's lists the panel shows
	// (?outputs=, ?gaps=, ?attempts=).
	PanelLists panelLists
	// Branches says how each branch on show came to be, by first node,
	// and how each fork on show did.
	Branches map[engine.NodeID]branchInfo
	Now      time.Time // what the page's times are relative to
	// Took is, for each node row, from its parent's creation to its own:
	// when the step done into it was done, and how long it took.
	Took map[engine.NodeID]span
	// RowViews are Rows as a reader sees them: the step done at each
	// node, and what came of it.
	RowViews []rowView
	// Outcome sums the run's outcomes; AtTip is what was blocked at the
	// step pending at the tip.
	Outcome, AtTip project.Outcome
	// Counts are the matches of each filter: open gaps, blocked attempts,
	// forks.
	Counts   map[runFilter]int
	Progress progress
	// NextTitle is the title of the step pending at the tip.
	NextTitle string
	graph     *project.Graph
	outcomes  map[engine.NodeID]project.Outcome
}

// panelLists are the pages of a node's outputs, gaps and blocked
// attempts the panel shows.
type panelLists struct {
	Outputs                      []output
	Gaps                         []project.GapState
	Blocked                      []project.BlockedAttempt
	OutputsAt, GapsAt, BlockedAt pager
	query                        url.Values // their keys in the page's URL
}

// runRequest is what a run page's URL names.
type runRequest struct {
	session engine.SessionID
	run     engine.RunID
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
	if q.session.UnmarshalText([]byte(chi.URLParam(r, "session"))) != nil || q.run.UnmarshalText([]byte(chi.URLParam(r, "run"))) != nil {
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

// runShow renders a run: the graph beside its rows, and the node named
// by ?node= in the side panel.
func (c *Console) runShow(w http.ResponseWriter, r *http.Request) {
	q, ok := parseRunRequest(r)
	if !ok {
		c.notFound(w, r)
		return
	}
	m := c.chrome(q.run.String() + " of " + q.session.String())
	v, err := c.run(q)
	v.pageRows(q, m.Config.PageSize)
	if err == nil {
		v.RowViews, err = rowViews(v.graph, v.Pinned.Compiled, v.outcomes, v.Layout.Tip, v.Rows)
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

// runGraph serves the decorative drawing of a run's layout.
func (c *Console) runGraph(w http.ResponseWriter, r *http.Request) {
	q, ok := parseRunRequest(r)
	if !ok {
		c.notFound(w, r)
		return
	}
	layout, err := c.layout(q)
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

// layout is the lane layout of the run q names: all the drawing needs.
func (c *Console) layout(q runRequest) (lanes.Layout, error) {
	g, _, err := c.fold(q.session)
	if err != nil {
		return lanes.Layout{}, err
	}
	if _, err := g.Run(q.run); err != nil {
		return lanes.Layout{}, err
	}
	l, _, err := filteredLayout(g, q, marked(g, q.filter))
	return l, err
}

// filteredLayout lays out the run q names as the page shows it: the folds
// the request opens (expand, or all of them), whatever hides the node
// open in the panel (lanes.Reveal, which returns the ids it opened for
// that), and every fold that holds a row the filter picks, so a filter
// shows its matches instead of dimming the fold that hides them. Opening
// a fold can reveal folds inside it; each round opens one more level.
func filteredLayout(g *project.Graph, q runRequest, picked map[engine.NodeID]bool) (lanes.Layout, []engine.NodeID, error) {
	expand := expandSet(g, q)
	for {
		l, opened, err := lanes.Reveal(g, q.run, expand, q.node)
		if err != nil || len(picked) == 0 {
			return l, opened, err
		}
		more := map[engine.NodeID]bool{}
		for _, row := range l.Rows {
			if row.Kind == lanes.NodeRow || expand[row.Node] {
				continue
			}
			for _, n := range foldNodes(g, row) {
				if picked[n.ID] {
					more[row.Node] = true
					break
				}
			}
		}
		if len(more) == 0 {
			return l, opened, nil
		}
		expand = maps.Clone(expand)
		maps.Copy(expand, more)
	}
}

func (c *Console) run(q runRequest) (runView, error) {
	g, h, err := c.fold(q.session)
	if err != nil {
		return runView{}, err
	}
	rn, err := g.Run(q.run)
	if err != nil {
		return runView{}, err
	}
	v := runView{Session: q.session, Filter: q.filter, Marked: marked(g, q.filter), Head: g.Head(), Health: h, Expand: q.text, Now: c.now(), graph: g}
	if v.Summary, err = project.Summarize(g, rn); err != nil {
		return v, err
	}
	// The node open in the panel always has a row: what folds it opens.
	var opened []engine.NodeID
	if v.Layout, opened, err = filteredLayout(g, q, v.Marked); err != nil {
		return v, err
	}
	if !q.all {
		v.Expand = withAdded(v.Expand, opened)
	}
	if v.Branches, err = branchInfos(g, v.Layout); err != nil {
		return v, err
	}
	if v.Took, err = rowTimes(g, v.Layout); err != nil {
		return v, err
	}
	if v.Pinned, err = c.pinned(q.session, rn.WorkflowHash); err != nil {
		return v, err
	}
	if err := v.outcome(g, c.outcomesOf(q.session, g)); err != nil {
		return v, err
	}
	if v.Loops, err = loopNames(g, v.Pinned, v.Layout); err != nil {
		return v, err
	}
	v.Workspace = g.Created().WorkspacePath
	v.Drift = c.drift(v.Workspace, rn.WorkflowID, rn.WorkflowHash)
	if v.Restarts, err = c.restartsOf(g, rn); err != nil {
		return v, err
	}
	if q.node != 0 {
		n, err := c.nodeDetail(g, q.node)
		if err != nil || n.Node.Run != q.run {
			return v, engine.ErrNotFound
		}
		v.Panel = &n
	}
	return v, nil
}

// outcome sums the run's outcomes, counts each filter's matches and
// reads where the run stands in its workflow.
func (v *runView) outcome(g *project.Graph, all map[engine.NodeID]project.Outcome) error {
	v.outcomes = all
	v.Outcome = runOutcome(g, all, v.Summary.ID)
	v.AtTip.Blocked = all[v.Summary.Tip.ID].Blocked
	v.Counts = map[runFilter]int{filterGaps: v.Outcome.OpenGaps, filterBlocked: v.Outcome.Blocked, filterForks: v.Summary.Forks}
	snap, err := g.Snapshot(v.Summary.Tip.Snapshot)
	if err != nil {
		return err
	}
	v.Progress = progressAt(v.Pinned.Compiled, snap)
	if v.Summary.Pending != "" {
		v.NextTitle = stepTitle(v.Pinned.Compiled, v.Summary.Pending)
	}
	return nil
}

// pageRows picks the rows the page lists: from ?rows=, else the page
// holding the node open in the panel, else the first.
func (v *runView) pageRows(q runRequest, size int) {
	kept := url.Values{}
	for k, val := range map[string]string{"filter": string(v.Filter), "expand": v.Expand, "rows": q.rows} {
		if val != "" && !(k == "filter" && val == string(filterAll)) {
			kept.Set(k, val)
		}
	}
	if v.Panel != nil {
		kept.Set("node", v.Panel.Node.ID.String())
		if q.rows == "" {
			for i, row := range v.Layout.Rows {
				if row.Node == v.Panel.Node.ID {
					kept.Set("rows", strconv.Itoa(i/max(size, 1)*max(size, 1)))
				}
			}
		}
	}
	path := "/sessions/" + v.Session.String() + "/runs/" + v.Summary.ID.String()
	v.Rows, v.RowsAt = pageOf(v.Layout.Rows, path, kept, "rows", "row", "rows", size)
	if v.Panel == nil {
		return
	}
	p := &v.PanelLists
	p.query = url.Values{}
	for _, k := range []string{"outputs", "gaps", "attempts"} {
		if q.panel.Has(k) {
			p.query.Set(k, q.panel.Get(k))
			kept.Set(k, q.panel.Get(k))
		}
	}
	if v.RowsAt.First > 0 {
		kept.Set("rows", strconv.Itoa(v.RowsAt.First))
	}
	p.Outputs, p.OutputsAt = pageOf(v.Panel.Outputs, path, kept, "outputs", "output", "outputs", size)
	p.Gaps, p.GapsAt = pageOf(v.Panel.Gaps, path, kept, "gaps", "gap", "gaps", size)
	p.Blocked, p.BlockedAt = pageOf(v.Panel.Blocked, path, kept, "attempts", "blocked attempt", "blocked attempts", size)
}

// loopNames names the loop each loop fold stands for, from the pinned
// workflow: its title, else its id.
func loopNames(g *project.Graph, p pinned, l lanes.Layout) (map[engine.NodeID]string, error) {
	names := map[engine.NodeID]string{}
	for _, row := range l.Rows {
		if row.Kind != lanes.LoopRow {
			continue
		}
		n, err := g.Node(row.Node)
		if err != nil {
			return nil, err
		}
		snap, err := g.Snapshot(n.Snapshot)
		if err != nil {
			return nil, err
		}
		place, ok := run.PendingStep(*p.Compiled, snap)
		if !ok || row.LoopDepth >= len(place.Loops) {
			continue
		}
		lp := place.Loops[row.LoopDepth]
		names[row.Node] = cmp.Or(lp.Title, string(lp.LoopID))
	}
	return names, nil
}

// marked are the nodes a filter picks; nil for all.
func marked(g *project.Graph, f runFilter) map[engine.NodeID]bool {
	if f == filterAll {
		return nil
	}
	m := map[engine.NodeID]bool{}
	switch f {
	case filterGaps:
		for _, gap := range project.Gaps(g.Events()) {
			m[gap.Node] = true
		}
	case filterBlocked:
		for _, b := range g.BlockedAttempts() {
			m[blockedRow(g, b.Node)] = true
		}
	case filterForks:
		for _, r := range g.Runs() {
			for _, n := range g.Nodes(r.ID) {
				if g.ForksOf(n) > 0 || g.ForkedFrom(n) != 0 {
					m[n.ID] = true
				}
			}
		}
	}
	return m
}

// picked says whether a row shows at full strength under the filter.
func (v runView) picked(row lanes.Row) bool {
	return v.Marked == nil || v.Marked[row.Node] || (row.Last != row.Node && v.Marked[row.Last])
}

// link is the run page's URL with one query value changed.
func (v runView) link(key, value string) string {
	q := map[string]string{"filter": string(v.Filter), "expand": v.Expand}
	if v.Panel != nil {
		q["node"] = v.Panel.Node.ID.String()
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
	u := "/sessions/" + v.Session.String() + "/runs/" + v.Summary.ID.String()
	if len(parts) > 0 {
		u += "?" + strings.Join(parts, "&")
	}
	return u
}

// self is the page as it is, the panel's pages too.
func (v runView) self() string {
	if v.Panel == nil {
		return v.link("node", "")
	}
	u := v.link("node", v.Panel.Node.ID.String())
	if len(v.PanelLists.query) > 0 {
		u += "&" + v.PanelLists.query.Encode()
	}
	return u
}

// runAnnounce sums the run up for the live region.
func runAnnounce(v runView) string {
	s := v.Summary.ID.String() + " " + statusText(v.Summary.Status)
	if v.Summary.Pending != "" {
		s += " at " + string(v.Summary.Pending)
	}
	return s + ", " + branchText(v.Summary)
}

// expandLink opens a folded row, keeping what is already open.
func (v runView) expandLink(id engine.NodeID) string {
	ids := v.Expand
	if ids != "" {
		ids += ","
	}
	return v.link("expand", ids+id.String())
}

// graphURL is the drawing of the same layout.
// The URL names the log's head too: a live refresh that adds rows changes
// the URL, so the browser fetches the new drawing instead of stretching
// the old one.
func (v runView) graphURL() string {
	u := "/sessions/" + v.Session.String() + "/runs/" + v.Summary.ID.String() + "/graph.svg?at=" + strconv.FormatUint(uint64(v.Head), 10)
	if v.Expand != "" {
		u += "&expand=" + v.Expand
	}
	if v.Filter != filterAll {
		u += "&filter=" + string(v.Filter) // a filter opens the folds holding its matches
	}
	if v.RowsAt.Paged() {
		u += "&from=" + strconv.Itoa(v.RowsAt.First) + "&to=" + strconv.Itoa(v.RowsAt.First+v.RowsAt.Shown)
	}
	return u
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

func rowClass(v runView, row lanes.Row) string {
	if v.picked(row) {
		return "row"
	}
	return "row dim"
}

func forkCount(n int) string {
	if n == 1 {
		return "1 fork"
	}
	return strconv.Itoa(n) + " forks"
}

// attemptText counts attempts from 1, as a reader does (they are
// numbered from 0 in the log).
func attemptText(b project.BlockedAttempt) string { return strconv.Itoa(int(b.Attempt) + 1) }
