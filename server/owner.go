package server

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Login codes: what /login?token= takes. Each is minted for one person
// at one moment (the banner, `workrail console`), so it is single-use and
// short-lived; a few outstanding at once are plenty.
const (
	loginTTL      = 10 * time.Minute
	maxLoginCodes = 16
)

// owner admits the Console's owner and no one else: a request carrying
// auth.token as a Bearer (scripts, tests), or the session cookie a
// one-time login code sets (the browser). Everyone else gets the login
// page, which says how to get in and nothing more.
type owner struct {
	token  []byte // auth.token: only its owner can read it
	cookie string // the session cookie's name, one per port so two daemons do not clobber each other
	// session is the cookie's value: an HMAC under auth.token, so it is
	// stable across restarts (an open page keeps working) and does not
	// give away auth.token, which also opens /mcp and /api.
	session []byte
	now     func() time.Time

	mu    sync.Mutex
	codes []loginCode // oldest first
}

type loginCode struct {
	code    []byte
	expires time.Time
}

func newOwner(token string, port int, now func() time.Time) *owner {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("workrail console session v1"))
	return &owner{token: []byte(token), cookie: "workrail_console_" + strconv.Itoa(port),
		session: []byte(hex.EncodeToString(m.Sum(nil))), now: now}
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

// admits says whether r carries the owner's credential.
func (o *owner) admits(r *http.Request) bool {
	if scheme, got, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Bearer") {
		return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), o.token) == 1
	}
	c, err := r.Cookie(o.cookie)
	return err == nil && subtle.ConstantTimeCompare([]byte(c.Value), o.session) == 1
}

// check lets the owner through; anyone else gets the login page (401),
// htmx requests included, before any handler reads anything. An open
// page whose login is gone (auth.token was replaced) reloads at its next
// poll and shows the login page; an htmx POST does not, so a form's text
// stays on the page.
func (o *owner) check(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o.admits(r) {
			next.ServeHTTP(w, r)
			return
		}
		if r.Method == http.MethodGet && r.Header.Get("HX-Request") == "true" {
			w.Header().Set("HX-Refresh", "true")
		}
		loginPage(w, http.StatusUnauthorized, "")
	})
}

// login answers /login?token=CODE: a good code sets the session cookie
// and redirects to the Console's home, so the code leaves the address
// bar; a spent, expired or unknown one gets the login page.
func (o *owner) login(w http.ResponseWriter, r *http.Request) {
	if !o.redeem(r.URL.Query().Get("token")) {
		loginPage(w, http.StatusUnauthorized, "This login link was used already, has expired (links last 10 minutes) or was not made by this daemon.")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: o.cookie, Value: string(o.session), Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, "/", http.StatusSeeOther)
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

const loginBody = `<p>The Console belongs to the user who runs this WorkRail daemon. To open it, run this in a terminal as that user:</p>
<pre><code>workrail console</code></pre>
<p>It opens a one-time login link in your browser (<code>workrail console --print</code> prints it instead).
The link the daemon printed when it started works as well, once, for 10 minutes.</p>
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
