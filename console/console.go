// Package console serves the browser Console: server-rendered templ pages
// over projections of the store, made live with htmx. It reads; it never
// becomes a second execution path.
package console

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workrail/workrail/console/markdown"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/project"
)

// Store is what the Console reads: the sessions, each one's verified
// health and, through the store port, its records. The bbolt store and
// the in-memory one both provide it.
type Store interface {
	// Changes is a cursor that moves whenever anything is written.
	Changes() uint64
	SessionIDs() ([]engine.SessionID, error)
	Health(engine.SessionID) (execute.Health, error)
	// Checked counts the sessions verified so far, by health status.
	Checked() map[execute.HealthStatus]int
	// Events is a session's log up to its last good event.
	Events(engine.SessionID) ([]event.Event, execute.Health, error)
	// EventsAfter is the part of a session's log after an index, verified
	// on from there: what a fold read up to that index lacks.
	EventsAfter(engine.SessionID, engine.EventIndex) ([]event.Event, execute.Health, error)
	// View reads a session's records in one read transaction.
	View(engine.SessionID, func(execute.ReadTx) error) error
	// Overviews walks the sessions' overviews newest first, from the
	// first id below before (0: the newest), until fn returns false; a
	// session whose overview cannot be read is passed with the error.
	Overviews(before engine.SessionID, fn func(engine.SessionID, project.Overview, error) bool) error
	// Overview is one session's overview.
	Overview(engine.SessionID) (project.Overview, error)
	// Recent walks the sessions the most recently written first (by the
	// store's write sequence, never by clock), those written before below
	// when it is not 0, until fn returns false.
	Recent(below execute.Write, fn func(engine.SessionID, execute.Write, project.Overview, error) bool) error
	// Projection is a run's projection as the store keeps it (folded with
	// every append); Projections every run's of a session, in start
	// order.
	Projection(engine.SessionID, engine.RunID) (*project.Projection, error)
	Projections(engine.SessionID) ([]*project.Projection, error)
	// KnownHealth is a session's health if it was verified already; a
	// page that must answer at once never verifies a log.
	KnownHealth(engine.SessionID) (execute.Health, bool)
}

// About is what the Console says about the daemon serving it.
type About struct {
	Version   string
	Home      string
	StartedAt time.Time // shown as uptime; never used to order anything
	Log       string    // the daemon's log file, named under its recent errors
	// Snippets register WorkRail in an IDE, shown until the first session.
	Snippets []Snippet
}

// Snippet is one IDE's registration: where it goes and what to paste.
type Snippet struct {
	Client, Where, Text string
}

// Console holds the Console's handlers and their dependencies.
type Console struct {
	store Store
	// workflows is the catalog the use cases start from: what a run's pin
	// is compared with.
	workflows execute.Workflows
	files     WorkflowFiles // where the editor reads and writes workflow files
	folds     foldCache
	projected projectionCache
	gapRefs   gapRefCache
	pins      pinnedCache
	about     About
	version   string
	csrf      string // the token every state-changing request carries
	now       func() time.Time
	logf      func(string, ...any)
	// runs are the use cases a person's actions on a run go through.
	runs   Runs
	errors ErrorLog // nil: no errors are listed
	// config reads the daemon's configuration; restart restarts it.
	config  func() Settings
	restart func() error
	resumer Resumer // nil: no search
	// bundles export and import sessions (nil: no sharing); uploads
	// holds the bundles previewed until they are confirmed, and importMu
	// lets one confirmation import at a time.
	bundles  Bundles
	uploads  uploads
	importMu sync.Mutex
	budget   ImportBudget // nil: previews are not bounded together
	logins   Logins       // nil: no login, no log out
	sources  Sources      // nil: no sources page
}

// Config is what the Console is built from.
type Config struct {
	Store     Store
	Workflows execute.Workflows // the catalog the use cases read
	Files     WorkflowFiles     // the folders' files, for the editor
	About     About
	// Secret is private to this daemon's home; the Console derives the
	// CSRF token of its forms from it.
	Secret []byte
	Now    func() time.Time // uptime is read from it
	Logf   func(string, ...any)
	// Runs are the use cases the Console's actions on a run (fork here,
	// restart on the current version, continue in a chat) go through.
	Runs Runs
	// Errors are the daemon's recent errors, listed on the home page.
	Errors ErrorLog
	// Settings reads desired vs applied configuration (nil: the defaults,
	// nothing to show).
	Settings func() Settings
	// Restart restarts the daemon in place, or says why it would not
	// start again.
	Restart func() error
	// Resumer is resume_session's search, which the search page lists
	// (nil: the tool is off, and the Console has no search).
	Resumer Resumer
	// Bundles export a session as a download and import a bundle as a
	// new session (nil: neither is offered).
	Bundles Bundles
	// ImportBudget bounds the memory previews take together (nil: none).
	ImportBudget ImportBudget
	// Sources are the workflow sources, which the sources page lists and
	// whose repositories it fetches on demand (nil: no such page).
	Sources Sources
	// Logins are the owner's logins to the Console, which the daemon
	// checks before any page (nil: none, as in tests: every request may
	// write, and no header offers to log out).
	Logins Logins
}

// New returns a Console over cfg.
func New(cfg Config) *Console {
	return &Console{store: cfg.Store, workflows: cfg.Workflows, runs: cfg.Runs, files: cfg.Files, about: cfg.About, version: cfg.About.Version,
		csrf: csrfToken(cfg.Secret), now: cfg.Now, logf: cfg.Logf, errors: cfg.Errors,
		config: cfg.Settings, restart: cfg.Restart, resumer: cfg.Resumer, bundles: cfg.Bundles, budget: cfg.ImportBudget, logins: cfg.Logins, sources: cfg.Sources}
}

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

// Routes mounts the Console's pages on r, every one of them (and the
// not-found page) behind the CSRF check. r may already have routes of its
// own, so the check is a group's middleware, not r's.
func (c *Console) Routes(r chi.Router) {
	r.Group(func(r chi.Router) {
		r.Use(c.checkCSRF)
		r.Get("/", c.sessionList)
		r.Get("/config", c.configPage)
		r.Get("/config/banner", c.configBanner)
		r.Post("/config/restart", c.configRestart)
		r.Get("/changes", c.changes)
		r.Get("/sessions/{session}", c.sessionShow)
		r.Get("/sessions/{session}/events", c.sessionEvents)
		r.Get("/sessions/{session}/events.json", c.sessionEventsJSON)
		r.Get("/sessions/{session}/runs/{run}", c.runShow)
		r.Get("/sessions/{session}/runs/{run}/graph.svg", c.runGraph)
		c.runRoutes(r)
		if c.resumer != nil {
			r.Get("/search", c.search)
		}
		if c.bundles != nil {
			c.shareRoutes(r)
		}
		r.Get("/gaps", c.gapList)
		r.Get("/workflows", c.workflowList)
		r.Get("/sources", c.sourcesPage)
		r.Post("/sources/sync", c.sourcesSync)
		r.Get("/workflows/{id}", c.workflowShow)
		r.Get("/workflows/new", c.workflowNew)
		r.Post("/workflows/new", c.workflowCreate)
		r.Post("/workflows/check", c.workflowCheck)
		r.Get("/workflows/{id}/edit", c.workflowEdit)
		r.Post("/workflows/{id}/edit", c.workflowSave)
		r.Post("/workflows/{id}/fork", c.workflowFork)
		if c.logins != nil {
			r.Post("/logout", c.logout)
		}
	})
	r.NotFound(c.checkCSRF(http.HandlerFunc(c.notFound)).ServeHTTP)
}

// chrome is what every page's frame shows: its title, the daemon's
// version and the change cursor the page was read at.
type chrome struct {
	Title, Version, Cursor string
	CSRF                   string   // carried by every form and htmx request
	Config                 Settings // for the restart banner and the poll interval
	Search                 bool     // the header offers the search
	Import                 bool     // the header links the import page
	Logout                 bool     // the header offers to log out
	// Relogin, when not zero, is the fresh-login window a refused write
	// needed: the page says to log in again, above its form.
	Relogin time.Duration
}

// chrome is read before the page's data, so a write that lands while the
// page is read moves the cursor past the page and the next poll refreshes
// it.
func (c *Console) chrome(title string) chrome {
	s := c.settings()
	return chrome{Title: title, Version: c.version, Cursor: c.cursor(s), CSRF: c.csrf, Config: s, Search: c.resumer != nil, Import: c.bundles != nil,
		Logout: c.logins != nil}
}

// cursor names what a page shows: the store's change cursor and the
// configuration's generation, so an edit of config.json refreshes open
// pages too.
func (c *Console) cursor(s Settings) string {
	return strconv.FormatUint(c.store.Changes(), 10) + "." + strconv.FormatUint(s.Generation, 10)
}

// changes answers the pages' 2 s poll: 204, reading nothing, while the
// store's change cursor is the one the page has; otherwise a new poller and
// HX-Trigger: wr-changed, on which every live panel fetches itself again.
func (c *Console) changes(w http.ResponseWriter, r *http.Request) {
	s := c.settings()
	cursor := c.cursor(s)
	if r.URL.Query().Get("since") == cursor {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	w.Header().Set("HX-Trigger", "wr-changed")
	c.render(w, r, http.StatusOK, poller(cursor, s.PollSeconds))
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

func healthText(h execute.Health) string {
	switch h.Status {
	case execute.Healthy:
		return string(h.Status)
	case execute.IndexesDamaged:
		return "indexes damaged (run workrail doctor --rebuild-indexes)"
	default:
		return fmt.Sprintf("%s at event %d", statusWords(h.Status), h.FirstBad)
	}
}

// statusWords is a health status as the pages say it: corrupt tail.
func statusWords(s execute.HealthStatus) string { return strings.ReplaceAll(string(s), "_", " ") }

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
