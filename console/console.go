package console

import (
	"net/http"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workrail/workrail/engine"
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
