package console

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/workrail/workrail/console/markdown"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/project"
)

// sessionRow is what the sessions table shows of one session: its
// overview, or why it could not be read, and its verified health.
type sessionRow struct {
	ID       engine.SessionID
	Write    execute.Write // its last write's place in the store's sequence
	Overview project.Overview
	Err      error // the overview could not be read: the row shows health only
	Health   execute.Health
	Drifted  int // runs whose workflow id means something else now
	// Progress is where the session's last run stands ("step 3 of 10"),
	// "" when it is complete.
	Progress string
}

// sessionsQuery is what the sessions page's URL asks for.
type sessionsQuery struct {
	Q      string            // words every shown session contains
	Status project.RunStatus // "" for any
	// Before lists the sessions last written before it (0: from the
	// latest). Top and Newest, when the page is refreshed in place, are
	// the latest write and the newest session when the reader first read
	// it: sessions started since are counted in a pill instead of pushing
	// rows down; older ones written since come first, as they are the
	// most recently active (the one an agent is working on stays on top).
	Before, Top execute.Write
	Newest      engine.SessionID
}

// sessionsList is one page of the sessions list, the most recently
// written first (by the store's write sequence: never by clock).
type sessionsList struct {
	Query  sessionsQuery
	Rows   []sessionRow
	Total  int              // sessions in the store
	Top    execute.Write    // the latest write when the page was first read
	Newest engine.SessionID // the newest session then
	Older  execute.Write    // the next page's Before; 0 when this is the last
	New    int              // sessions started since that match
	Now    time.Time        // what the times it shows are relative to
}

// sessions reads one page. Pages and search walk the stored overviews
// the latest written first and stop once a page is full: no session's
// log is read.
func (c *Console) sessions(q sessionsQuery) (sessionsList, error) {
	ids, err := c.store.SessionIDs()
	if err != nil {
		return sessionsList{}, err
	}
	p := sessionsList{Query: q, Total: len(ids), Top: q.Top, Newest: q.Newest, Now: c.now()}
	size := c.settings().PageSize // console.pageSize, applied live
	from := q.Before
	if q.Before == 0 {
		if p.Top == 0 && len(ids) > 0 { // the first read of the page
			p.Newest = ids[len(ids)-1]
		}
		err := c.store.Recent(0, func(id engine.SessionID, w execute.Write, o project.Overview, err error) bool {
			if p.Top == 0 {
				p.Top = w
			}
			if w <= p.Top {
				return false
			}
			switch {
			case !q.shows(id, o, err):
			case id > p.Newest:
				p.New++
			case len(p.Rows) < size:
				p.Rows = append(p.Rows, sessionRow{ID: id, Write: w, Overview: o, Err: err})
			}
			return true
		})
		if err != nil {
			return p, err
		}
		if p.Top != 0 {
			from = p.Top + 1
		}
	}
	err = c.store.Recent(from, func(id engine.SessionID, w execute.Write, o project.Overview, err error) bool {
		if !q.shows(id, o, err) {
			return true
		}
		if len(p.Rows) == size {
			p.Older = p.Rows[size-1].Write
			return false
		}
		p.Rows = append(p.Rows, sessionRow{ID: id, Write: w, Overview: o, Err: err})
		return true
	})
	if err != nil {
		return p, err
	}
	catalogs := map[string]*catalog.Catalog{} // one read per workspace
	for i := range p.Rows {
		row := &p.Rows[i]
		if row.Health, err = c.store.Health(row.ID); err != nil {
			return p, err
		}
		ws := row.Overview.Workspace
		if catalogs[ws] == nil {
			catalogs[ws] = c.workflows.Catalog(ws)
		}
		for _, r := range row.Overview.Runs {
			if _, drifted := catalogs[ws].Drift(r.WorkflowID, r.WorkflowHash); drifted {
				row.Drifted++
			}
		}
		if n := len(row.Overview.Runs); n > 0 {
			last := row.Overview.Runs[n-1]
			if pin, err := c.pinned(row.ID, last.WorkflowHash); err == nil { // a pin that cannot be read shows in the health column
				row.Progress = overviewProgress(pin.Compiled, last)
			}
			if last.StepsDone > 0 {
				if row.Progress != "" {
					row.Progress += " · "
				}
				row.Progress += stepsDoneText(last.StepsDone)
			}
		}
	}
	return p, nil
}

// shows says whether the list shows a session: one that matches the
// query, or, in the unfiltered list, one whose overview cannot be read
// (the row shows its health).
func (q sessionsQuery) shows(id engine.SessionID, o project.Overview, err error) bool {
	if err != nil {
		return q.Q == "" && q.Status == ""
	}
	return q.admit(id, o)
}

// admit says whether a session matches the query: its status, and every
// word of Q (case-insensitive) somewhere in its id, title, workflows, run
// titles, branch or workspace.
func (q sessionsQuery) admit(id engine.SessionID, o project.Overview) bool {
	if q.Status != "" && o.Status() != q.Status {
		return false
	}
	if q.Q == "" {
		return true
	}
	hay := []string{id.String(), o.Title, o.GitBranch, o.Workspace}
	for _, r := range o.Runs {
		hay = append(hay, string(r.WorkflowID), r.Title)
	}
	text := strings.ToLower(strings.Join(hay, "\n"))
	for _, w := range strings.Fields(strings.ToLower(q.Q)) {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

// sessionList renders the sessions page. When the first session appears
// under the first-run help, a live refresh reloads the whole page.
func (c *Console) sessionList(w http.ResponseWriter, r *http.Request) {
	m := c.chrome("Sessions")
	q, ok := parseSessionsQuery(r)
	if !ok {
		c.notFound(w, r)
		return
	}
	sessions, err := c.sessions(q)
	if err != nil {
		c.fail(w, r, "the sessions", err)
		return
	}
	if r.Header.Get("HX-Request") == "true" && r.URL.Query().Get("empty") == "1" && len(sessions.Rows) > 0 {
		w.Header().Set("HX-Refresh", "true")
	}
	c.render(w, r, http.StatusOK, sessionsPage(m, c.status(sessions), sessions))
}

// parseSessionsQuery reads the sessions page's URL; a status outside the
// closed set is ignored, a malformed id is not found.
func parseSessionsQuery(r *http.Request) (sessionsQuery, bool) {
	u := r.URL.Query()
	q := sessionsQuery{Q: strings.TrimSpace(u.Get("q"))}
	if s := project.RunStatus(u.Get("status")); slices.Contains(project.RunStatuses(), s) {
		q.Status = s
	}
	if v := u.Get("newest"); v != "" && q.Newest.UnmarshalText([]byte(v)) != nil {
		return q, false
	}
	for key, w := range map[string]*execute.Write{"before": &q.Before, "top": &q.Top} {
		if v := u.Get(key); v != "" {
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil || n == 0 {
				return q, false
			}
			*w = execute.Write(n)
		}
	}
	return q, true
}

// status is the home page's account of the daemon.
type status struct {
	About
	Uptime   string
	Sessions int
	Health   string
	Errors   []LoggedError // the daemon's last errors, newest first
}

func (c *Console) status(p sessionsList) status {
	return status{About: c.about, Uptime: c.now().Sub(c.about.StartedAt).Round(time.Second).String(), Sessions: p.Total,
		Health: healthSummary(c.store.Checked(), p.Total), Errors: c.lastErrors()}
}

// healthSummary counts the sessions verified since the daemon started by
// health, and says how many were not read yet: the daemon never reads
// every log just to count.
func healthSummary(checked map[execute.HealthStatus]int, total int) string {
	var parts []string
	n := 0
	for _, s := range execute.HealthStatuses() {
		if checked[s] > 0 {
			parts = append(parts, strconv.Itoa(checked[s])+" "+statusWords(s))
			n += checked[s]
		}
	}
	switch {
	case total == 0:
		return "no sessions yet"
	case n == 0:
		parts = append(parts, "none read yet")
	}
	if rest := total - n; rest > 0 && n > 0 {
		parts = append(parts, strconv.Itoa(rest)+" not read since start (workrail doctor checks them all)")
	}
	return strings.Join(parts, ", ")
}

// url is the sessions page for this query with one value changed (key
// "": none; any key drops Before). Under the first-run help every URL says
// the store was empty, so the panel's refresh reloads the whole page.
func (p sessionsList) url(key, value string) string {
	v := url.Values{}
	if p.Query.Q != "" {
		v.Set("q", p.Query.Q)
	}
	if p.Query.Status != "" {
		v.Set("status", string(p.Query.Status))
	}
	if p.Query.Before != 0 {
		v.Set("before", p.Query.Before.String())
	}
	if key != "" {
		v.Del("before")
		if value != "" {
			v.Set(key, value)
		}
	}
	if p.Total == 0 {
		v.Set("empty", "1")
	}
	if len(v) == 0 {
		return "/"
	}
	return "/?" + v.Encode()
}

// shown says how many sessions the page shows of how many: all of them,
// or those that match the query.
func (p sessionsList) shown() string {
	s := "showing " + strconv.Itoa(len(p.Rows))
	if p.Query.Q != "" || p.Query.Status != "" {
		s += " matching"
	}
	return s + " of " + count(p.Total, "session", "sessions")
}

// self is where the live panel fetches itself.
func (p sessionsList) self() string {
	if p.Query.Before != 0 || p.Top == 0 {
		return p.url("", "")
	}
	return p.url("top", p.Top.String()) + "&newest=" + p.Newest.String()
}

func (p sessionsList) announce() string {
	if p.New > 0 {
		return newText(p.New)
	}
	return ""
}

func newText(n int) string {
	if n == 1 {
		return "1 new session"
	}
	return strconv.Itoa(n) + " new sessions"
}

// lastText says what a session's last event did, in words.
func lastText(o project.Overview) string {
	what := map[event.Kind]string{
		event.SessionCreated: "session started", event.ObservationRecorded: "observed the workspace",
		event.RunStarted: "run started", event.NodeCreated: "reached a step", event.EdgeCreated: "reached a step",
		event.NodeOutputAppended: "wrote notes", event.PreferencesChanged: "set preferences",
		event.CapabilityObserved: "observed a capability", event.GapRecorded: "recorded a gap",
		event.DivergenceRecorded: "recorded a divergence", event.DecisionTraceAppended: "traced a decision",
		event.AdvanceRecorded: "acknowledged a step",
	}[o.LastKind]
	if what == "" {
		what = string(o.LastKind)
	}
	return what + " · event " + strconv.FormatUint(uint64(o.Last), 10)
}

// runsText counts a session's runs and, when some run has more than one,
// their branches.
func runsText(o project.Overview) string {
	runs := count(len(o.Runs), "run", "runs")
	if b := o.Branches(); b > len(o.Runs) {
		runs += ", " + count(b, "branch", "branches")
	}
	return runs
}

// sessionVerdict is a session's verdict over its runs', as their
// projections read them: needs you when a run does, else blocked, else
// in progress, else complete.
func sessionVerdict(o project.Overview) project.Verdict {
	rank := map[project.Verdict]int{project.VerdictNeedsUser: 3, project.VerdictBlocked: 2, project.VerdictInProgress: 1, project.VerdictComplete: 0}
	v := project.VerdictComplete
	if len(o.Runs) == 0 {
		v = project.VerdictInProgress
	}
	for _, r := range o.Runs {
		rv := r.Verdict
		if rv == "" { // a run without a root yet
			rv = project.VerdictInProgress
		}
		if rank[rv] > rank[v] {
			v = rv
		}
	}
	return v
}

// title is a session's derived title, or its id when nothing named it.
func (r sessionRow) title() string {
	if r.Overview.Title != "" {
		return markdown.Plain(r.Overview.Title)
	}
	return r.ID.String()
}
