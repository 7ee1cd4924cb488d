// Package console serves the browser Console: server-rendered templ pages
// over projections of the store, made live with htmx. It reads; it never
// becomes a second execution path.
package console

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
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
	// Events is a session's log up to its last good event.
	Events(engine.SessionID) ([]event.Event, execute.Health, error)
	View(engine.SessionID, func(execute.Tx) error) error
}

// About is what the Console says about the daemon serving it.
type About struct {
	Version   string
	Home      string
	StartedAt time.Time // shown as uptime; never used to order anything
	// Snippets register WorkRail in an IDE, shown until the first session.
	Snippets []Snippet
}

// Snippet is one IDE's registration: where it goes and what to paste.
type Snippet struct {
	Client, Where, Text string
}

// Console holds the Console's handlers and their dependencies.
type Console struct {
	store   Store
	folds   foldCache
	pins    pinnedCache
	about   About
	version string
	now     func() time.Time
	logf    func(string, ...any)
}

// New returns a Console over store; now is the clock uptime is read
// from.
func New(store Store, about About, now func() time.Time, logf func(string, ...any)) *Console {
	return &Console{store: store, about: about, version: about.Version, now: now, logf: logf}
}

// sessionRow is what the sessions table shows of one session.
type sessionRow struct {
	ID        engine.SessionID
	CreatedAt string // informational, from session_created
	Runs      []project.Run
	Events    engine.EventIndex
	Health    execute.Health
}

// pageSize is how many sessions one page of the list shows.
const pageSize = 50

// sessionsList is one page of the sessions list, newest first (by id:
// never by clock), and where the next, older page starts.
type sessionsList struct {
	Rows   []sessionRow
	Total  int
	Before engine.SessionID // the page lists ids below this; 0 for the newest
	Older  engine.SessionID // the next page's Before; 0 when this is the last
}

// sessions reads one page: only its sessions are touched, so the list
// costs the same at 10,000 sessions as at 50.
func (c *Console) sessions(before engine.SessionID) (sessionsList, error) {
	ids, err := c.store.SessionIDs()
	if err != nil {
		return sessionsList{}, err
	}
	p := sessionsList{Total: len(ids), Before: before}
	end := len(ids)
	if before != 0 {
		end = sort.Search(len(ids), func(i int) bool { return ids[i] >= before })
	}
	start := max(0, end-pageSize)
	if start > 0 {
		p.Older = ids[start]
	}
	for i := end - 1; i >= start; i-- {
		row, err := c.row(ids[i])
		if err != nil {
			return p, err
		}
		p.Rows = append(p.Rows, row)
	}
	return p, nil
}

func (c *Console) row(id engine.SessionID) (sessionRow, error) {
	h, err := c.store.Health(id)
	if err != nil {
		return sessionRow{}, err
	}
	row := sessionRow{ID: id, Health: h}
	err = c.store.View(id, func(tx execute.Tx) error {
		row.Events = tx.Head()
		if e, err := tx.Event(1); err == nil {
			if d, ok := e.Data.(*event.SessionCreatedData); ok {
				row.CreatedAt = d.CreatedAt
			}
		}
		row.Runs, err = tx.Runs()
		return err
	})
	return row, err
}

// Routes mounts the Console's pages on r.
func (c *Console) Routes(r chi.Router) {
	r.Get("/", c.sessionList)
	r.Get("/changes", c.changes)
	r.Get("/sessions/{session}", c.sessionShow)
	r.Get("/sessions/{session}/runs/{run}", c.runShow)
	r.Get("/sessions/{session}/runs/{run}/graph.svg", c.runGraph)
	r.Get("/gaps", c.gapList)
	r.NotFound(c.notFound)
}

// chrome is what every page's frame shows: its title, the daemon's
// version and the change cursor the page was read at.
type chrome struct {
	Title, Version, Cursor string
}

// chrome is read before the page's data, so a write that lands while the
// page is read moves the cursor past the page and the next poll refreshes
// it.
func (c *Console) chrome(title string) chrome {
	return chrome{Title: title, Version: c.version, Cursor: strconv.FormatUint(c.store.Changes(), 10)}
}

// changes answers the pages' 2 s poll: 204, reading nothing, while the
// store's change cursor is the one the page has; otherwise a new poller and
// HX-Trigger: wr-changed, on which every live panel fetches itself again.
func (c *Console) changes(w http.ResponseWriter, r *http.Request) {
	cursor := strconv.FormatUint(c.store.Changes(), 10)
	if r.URL.Query().Get("since") == cursor {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	w.Header().Set("HX-Trigger", "wr-changed")
	c.render(w, r, http.StatusOK, poller(cursor))
}

// sessionList renders the sessions page. When the first session appears
// under the first-run help, a live refresh reloads the whole page.
func (c *Console) sessionList(w http.ResponseWriter, r *http.Request) {
	m := c.chrome("Sessions")
	var before engine.SessionID
	if b := r.URL.Query().Get("before"); b != "" && before.UnmarshalText([]byte(b)) != nil {
		c.notFound(w, r)
		return
	}
	sessions, err := c.sessions(before)
	if err != nil {
		c.fail(w, r, "the sessions", err)
		return
	}
	if r.Header.Get("HX-Request") == "true" && r.URL.Query().Get("empty") == "1" && len(sessions.Rows) > 0 {
		w.Header().Set("HX-Refresh", "true")
	}
	c.render(w, r, http.StatusOK, sessionsPage(m, c.status(sessions), sessions))
}

func eventCount(s sessionRow) string { return strconv.FormatUint(uint64(s.Events), 10) }

func healthText(h execute.Health) string {
	switch h.Status {
	case execute.Healthy:
		return string(h.Status)
	case execute.IndexesDamaged:
		return "indexes damaged (run workrail doctor --rebuild-indexes)"
	default:
		return fmt.Sprintf("%s at event %d", h.Status, h.FirstBad)
	}
}

// status is the home page's account of the daemon.
type status struct {
	About
	Uptime   string
	Sessions int
}

func (c *Console) status(p sessionsList) status {
	return status{About: c.about, Uptime: c.now().Sub(c.about.StartedAt).Round(time.Second).String(), Sessions: p.Total}
}

// url is where the sessions panel fetches itself: the same page and,
// under the first-run help, that it had no session yet.
func (p sessionsList) url() string {
	u := "/"
	if p.Before != 0 {
		u += "?before=" + p.Before.String()
	}
	if p.Total == 0 {
		u += "?empty=1"
	}
	return u
}

func (p sessionsList) announce() string {
	return strconv.Itoa(p.Total) + " sessions"
}
