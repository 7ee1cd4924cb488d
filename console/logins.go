package console

import (
	"net/http"
	"time"
)

// Logins are the owner's logins to the Console, as the daemon keeps them.
// Every request reaches the Console through the daemon's login check.
type Logins interface {
	// Fresh says whether r may change what an agent will run: its login
	// was made within FreshFor (or it carries the daemon's token).
	Fresh(r *http.Request) bool
	// FreshFor is how recent that login must be.
	FreshFor() time.Duration
	// Logout ends r's login and answers the page that says so.
	Logout(w http.ResponseWriter, r *http.Request)
}

// logout answers the header's Log out button (a form, CSRF-checked like
// every post): it ends this browser's login only.
func (c *Console) logout(w http.ResponseWriter, r *http.Request) {
	c.logins.Logout(w, r)
}

// stale says whether r would change what an agent will run (save or fork
// a workflow, import, restart the daemon, fork or restart a run) with a
// login older than the fresh-login window: it answers that window (0
// when the login is fresh). The caller then shows its page again with
// what the reader sent, under the notice that says how to log in again
// (chrome.Relogin), with reloginStatus; nothing is written.
func (c *Console) stale(r *http.Request) time.Duration {
	if c.logins == nil || c.logins.Fresh(r) {
		return 0
	}
	return c.logins.FreshFor()
}

// reloginStatus answers a write refused for an old login: 401, as a
// request for a newer login (RFC 9470's step-up) is.
const reloginStatus = http.StatusUnauthorized
