// Package console serves the browser Console: server-rendered templ pages
// over projections of the store, made live with htmx. It reads; it never
// becomes a second execution path.
package console

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/workrail/workrail/store"
)

// Sessions is what the Console needs from the store.
type Sessions interface {
	Summaries() ([]store.SessionSummary, error)
}

// Console holds the Console's handlers and their dependencies.
type Console struct {
	sessions Sessions
	version  string
	logf     func(string, ...any)
}

// New returns a Console over sessions.
func New(sessions Sessions, version string, logf func(string, ...any)) *Console {
	return &Console{sessions: sessions, version: version, logf: logf}
}

// Routes mounts the Console's pages on r.
func (c *Console) Routes(r chi.Router) {
	r.Get("/", c.sessionList)
}

// sessionList renders the sessions page, or only its table for an htmx
// refresh.
func (c *Console) sessionList(w http.ResponseWriter, r *http.Request) {
	sessions, err := c.sessions.Summaries()
	if err != nil {
		c.logf("console: list sessions: %v", err)
		http.Error(w, "internal error; the daemon log has the details", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	page := sessionsPage(c.version, sessions)
	if r.Header.Get("HX-Request") == "true" {
		page = sessionsTable(sessions)
	}
	if err := page.Render(r.Context(), w); err != nil {
		c.logf("console: render sessions: %v", err)
	}
}

func eventCount(s store.SessionSummary) string { return strconv.FormatUint(uint64(s.Events), 10) }

func healthText(h store.Health) string {
	switch h.Status {
	case store.Healthy:
		return string(h.Status)
	case store.IndexesDamaged:
		return "indexes damaged (run workrail doctor --rebuild-indexes)"
	default:
		return fmt.Sprintf("%s at event %d", h.Status, h.FirstBad)
	}
}
