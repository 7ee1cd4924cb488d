package console

import (
	"net/http"
	"strconv"
	"time"
)

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
