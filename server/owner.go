package server

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/workrail/workrail/server/login"
)

// Login codes: what /login?token= takes. Each is minted for one person
// at one moment (the banner, `workrail console`), so it is single-use and
// short-lived; a few outstanding at once are plenty.
const (
	loginTTL      = 10 * time.Minute
	maxLoginCodes = 16
)

// owner admits the Console's owner and no one else: a request carrying
// auth.token as a Bearer (scripts, tests), or the cookie of a live login
// (the browser), which a one-time login code starts. Everyone else gets
// the login page, which says how to get in and nothing more.
type owner struct {
	token  []byte // auth.token: only its owner can read it
	cookie string // the login cookie's name, one per port so two daemons do not clobber each other
	logins *login.Logins
	now    func() time.Time
	logf   func(string, ...any)

	mu    sync.Mutex
	codes []loginCode // oldest first
}

type loginCode struct {
	code    []byte
	expires time.Time
}

func newOwner(token string, port int, now func() time.Time, logins *login.Logins, logf func(string, ...any)) *owner {
	return &owner{token: []byte(token), cookie: "workrail_console_" + strconv.Itoa(port), logins: logins, now: now, logf: logf}
}

// mint makes a fresh login code. Expired codes are dropped; past
// maxLoginCodes the oldest gives way.
func (o *owner) mint() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand, Go 1.24+)
	code := base64.RawURLEncoding.EncodeToString(b)
	o.mu.Lock()
	defer o.mu.Unlock()
	now := o.now()
	live := o.codes[:0]
	for _, c := range o.codes {
		if now.Before(c.expires) {
			live = append(live, c)
		}
	}
	if len(live) == maxLoginCodes {
		live = live[1:]
	}
	o.codes = append(live, loginCode{code: []byte(code), expires: now.Add(loginTTL)})
	return code
}

// redeem spends code: true once for a code minted less than loginTTL ago.
// Every outstanding code is compared, in constant time, whatever matches.
func (o *owner) redeem(code string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	got, now, found := []byte(code), o.now(), -1
	for i, c := range o.codes {
		if subtle.ConstantTimeCompare(got, c.code) == 1 {
			found = i
		}
	}
	if found < 0 {
		return false
	}
	ok := now.Before(o.codes[found].expires)
	o.codes = append(o.codes[:found], o.codes[found+1:]...)
	return ok
}

// access is how a request the owner check let through got in; the
// check puts it in the request's context.
type access struct {
	o      *owner
	bearer bool        // it carried auth.token
	id     string      // else the login's id, from its cookie
	login  login.Login // and the login
}

type accessKey struct{}

// ended is what the login page says to a browser whose login has ended.
var ended = fmt.Sprintf("Your login to this Console has ended. A login lasts %s, ends after %s unused, and ends when you log out "+
	"or every login is ended (<code>workrail console --logout-all</code>, <code>workrail keys rotate</code>).",
	hours(login.MaxAge), hours(login.IdleTimeout))

func hours(d time.Duration) string { return strconv.Itoa(int(d.Hours())) + " hours" }

// admit says how r gets in, or, when it does not, why not ("" when it
// carries no credential at all).
func (o *owner) admit(r *http.Request) (access, bool, string) {
	if scheme, got, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Bearer") {
		ok := subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), o.token) == 1
		return access{o: o, bearer: true}, ok, ""
	}
	c, err := r.Cookie(o.cookie)
	if err != nil {
		return access{}, false, ""
	}
	l, ok := o.logins.Check(c.Value)
	if !ok {
		return access{}, false, ended
	}
	return access{o: o, id: c.Value, login: l}, true, ""
}

// check lets the owner through; anyone else gets the login page (401),
// htmx requests included, before any handler reads anything. An open
// page whose login has ended reloads at its next poll and shows the login
// page; an htmx POST does not, so a form's text stays on the page.
func (o *owner) check(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok, why := o.admit(r)
		if ok {
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), accessKey{}, a)))
			return
		}
		if r.Method == http.MethodGet && r.Header.Get("HX-Request") == "true" {
			w.Header().Set("HX-Refresh", "true")
		}
		loginPage(w, http.StatusUnauthorized, why)
	})
}

// FreshLogin says whether r, which the owner check let through, may
// change what an agent will run: it carries auth.token, or the cookie of
// a login made less than login.FreshFor ago.
func FreshLogin(r *http.Request) bool {
	a, ok := r.Context().Value(accessKey{}).(access)
	return ok && (a.bearer || a.login.Fresh(a.o.now()))
}

// Logout ends the login r came with (r went through the owner check; the
// Console's POST /logout checks its form token first) and answers the
// login page saying so.
func Logout(w http.ResponseWriter, r *http.Request) {
	if a, ok := r.Context().Value(accessKey{}).(access); ok && !a.bearer {
		if err := a.o.logins.End(a.id); err != nil {
			a.o.logf("console: log out: %v", err)
		}
		http.SetCookie(w, &http.Cookie{Name: a.o.cookie, Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	}
	loginPage(w, http.StatusOK, "You are logged out of the Console in this browser.")
}

// login answers /login?token=CODE: a good code starts a login, sets its
// cookie (ending the login the browser had, if any) and redirects to the
// Console's home, so the code leaves the address bar; a spent, expired
// or unknown one gets the login page.
func (o *owner) login(w http.ResponseWriter, r *http.Request) {
	if !o.redeem(r.URL.Query().Get("token")) {
		loginPage(w, http.StatusUnauthorized, "This login link was used already, has expired (links last 10 minutes) or was not made by this daemon.")
		return
	}
	if c, err := r.Cookie(o.cookie); err == nil {
		if err := o.logins.End(c.Value); err != nil {
			o.logf("console: end the login a browser logs in again from: %v", err)
		}
	}
	id, err := o.logins.Start()
	if err != nil {
		o.logf("console: %v; this login ends when the daemon stops", err)
	}
	http.SetCookie(w, &http.Cookie{Name: o.cookie, Value: id, Path: "/", MaxAge: int(login.MaxAge / time.Second),
		HttpOnly: true, SameSite: http.SameSiteStrictMode})
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// endAll ends every login and forgets the login codes not yet used: a
// link left in a terminal or a log opens nothing after it.
func (o *owner) endAll() (int, error) {
	o.mu.Lock()
	o.codes = nil
	o.mu.Unlock()
	return o.logins.EndAll()
}

// loginPage says how to get in, and nothing else: no CSRF token, no
// version, no session or workflow, nothing from the home folder. It
// loads only the stylesheet, which reveals nothing either.
func loginPage(w http.ResponseWriter, status int, why string) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("WWW-Authenticate", `Bearer realm="workrail"`)
	w.WriteHeader(status)
	if why != "" {
		why = "<p class=\"meta\">" + why + "</p>\n"
	}
	w.Write([]byte(loginHead + why + loginBody))
}

const loginHead = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>WorkRail Console: log in</title><link rel="stylesheet" href="/static/console.css"></head>
<body><header><h1>WorkRail Console</h1></header>
<main><section class="error" data-testid="login">
<h2>Log in to the Console</h2>
`

var loginBody = `<p>The Console belongs to the user who runs this WorkRail daemon. To open it, run this in a terminal as that user:</p>
<pre><code>workrail console</code></pre>
<p>It opens a one-time login link in your browser (<code>workrail console --print</code> prints it instead).
The link the daemon printed when it started works as well, once, for 10 minutes.</p>
<p>A login lasts ` + hours(login.MaxAge) + ` and ends after ` + hours(login.IdleTimeout) + ` unused; <b>Log out</b>, at the top of every Console page, ends it sooner.</p>
<p>Scripts send the token in <code>auth.token</code> (in the WorkRail home folder) in the header <code>Authorization: Bearer &lt;token&gt;</code>.</p>
<p><a href="/">Logged in already? Open the Console.</a></p>
</section></main></body></html>
`

// LoginURL mints a one-time login link to the Console.
func (d *Daemon) LoginURL() string { return d.url + "/login?token=" + d.owner.mint() }

// loginLink answers POST /api/login-link (socket only): `workrail console`.
func (d *Daemon) loginLink(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(LoginLink{URL: d.LoginURL()})
}

// LoginLink is what POST /api/login-link answers.
type LoginLink struct {
	URL string `json:"url"`
}

// logoutAll answers POST /api/logout-all (socket only): `workrail console
// --logout-all` and `workrail keys rotate`.
func (d *Daemon) logoutAll(w http.ResponseWriter, _ *http.Request) {
	n, err := d.owner.endAll()
	if err != nil {
		d.cfg.Log.Error("ending every Console login", "err", err)
		http.Error(w, "every Console login ended, but "+err.Error(), http.StatusInternalServerError)
		return
	}
	d.cfg.Log.Info("ended every Console login", "ended", n)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(LoggedOut{Ended: n})
}

// LoggedOut is what POST /api/logout-all answers: how many logins were live.
type LoggedOut struct {
	Ended int `json:"ended"`
}
