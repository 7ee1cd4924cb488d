package server

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/server/login"
)

// testOwner is the owner of a Console on port 7421 whose logins live in
// a temporary home, on the clock now.
func testOwner(t testing.TB, now func() time.Time) *owner {
	t.Helper()
	logins, err := login.Open(home.Dir(t.TempDir()), now, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logins.Close() })
	return newOwner(testToken, 7421, now, logins, t.Logf)
}

// followLink follows a login link on h: the answer, and the login cookie
// it set (nil when none).
func followLink(t *testing.T, h http.Handler, link string, cookies ...*http.Cookie) (*httptest.ResponseRecorder, *http.Cookie) {
	t.Helper()
	r := httptest.NewRequest("GET", link, nil)
	for _, c := range cookies {
		r.AddCookie(c)
	}
	rec := record(h, httptest.NewRecorder(), r)
	for _, c := range rec.Result().Cookies() {
		if c.Name == "workrail_console_7421" {
			return rec, c
		}
	}
	return rec, nil
}

// withCookie is method path on h with the login cookie c.
func withCookie(h http.Handler, method, path string, c *http.Cookie) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, "http://127.0.0.1:7421"+path, nil)
	r.AddCookie(c)
	return record(h, httptest.NewRecorder(), r)
}

func loginLinkOf(t *testing.T, socket http.Handler) string {
	t.Helper()
	var link LoginLink
	rec := request(socket, "POST", "/api/login-link", "", "")
	if err := json.Unmarshal(rec.Body.Bytes(), &link); err != nil || !strings.HasPrefix(link.URL, "http://127.0.0.1:7421/login?token=") {
		t.Fatalf("POST /api/login-link = %d %q (%v)", rec.Code, rec.Body, err)
	}
	return link.URL
}

// A login link sets the login cookie (HttpOnly, SameSite=Strict, the
// whole site, not auth.token itself) and redirects home, once; the cookie
// then opens the Console.
func TestLoginLinkWorksOnce(t *testing.T) {
	tcp, socket := surfaces(t)
	link := loginLinkOf(t, socket)
	rec, c := followLink(t, tcp, link)
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/" || c == nil {
		t.Fatalf("login = %d, Location %q, cookie %v; want 303 to / with the cookie", rec.Code, rec.Header().Get("Location"), c)
	}
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.Domain != "" || c.Secure || c.MaxAge != int(login.MaxAge.Seconds()) {
		t.Errorf("cookie %+v; want HttpOnly, SameSite=Strict, Path=/, host-only, for login.MaxAge", c)
	}
	if strings.Contains(c.Value, testToken) || len(c.Value) != 43 {
		t.Errorf("cookie value %q: want a random 43-character id, not auth.token", c.Value)
	}
	page := httptest.NewRequest("GET", "http://127.0.0.1:7421/", nil)
	page.AddCookie(c)
	if rec := record(tcp, httptest.NewRecorder(), page); rec.Code != http.StatusOK || rec.Body.String() != "console" {
		t.Fatalf("the Console with the cookie = %d %q", rec.Code, rec.Body)
	}
	again, c2 := followLink(t, tcp, link)
	if again.Code != http.StatusUnauthorized || c2 != nil || !strings.Contains(again.Body.String(), "used already") {
		t.Fatalf("a spent link = %d, cookie %v:\n%s", again.Code, c2, again.Body)
	}
	// Another daemon's cookie, or a forged one, opens nothing.
	for _, v := range []string{testToken, strings.Repeat("0", 64), strings.Repeat("A", 43), c.Value[:42], ""} {
		page := httptest.NewRequest("GET", "http://127.0.0.1:7421/", nil)
		page.AddCookie(&http.Cookie{Name: c.Name, Value: v})
		if rec := record(tcp, httptest.NewRecorder(), page); rec.Code != http.StatusUnauthorized {
			t.Errorf("cookie %q = %d; want 401", v, rec.Code)
		}
	}
}

func record(h http.Handler, rec *httptest.ResponseRecorder, r *http.Request) *httptest.ResponseRecorder {
	h.ServeHTTP(rec, r)
	return rec
}

// Codes expire, a guess matches none, and only the newest maxLoginCodes
// are kept.
func TestLoginCodes(t *testing.T) {
	now := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	o := testOwner(t, func() time.Time { return now })
	late := o.mint()
	now = now.Add(loginTTL)
	if o.redeem(late) {
		t.Error("a code redeemed loginTTL after it was minted")
	}
	first := o.mint()
	for range maxLoginCodes - 1 {
		o.mint()
	}
	kept := o.mint() // pushes first out
	for _, tc := range []struct {
		name, code string
		want       bool
	}{
		{"a guess", strings.Repeat("A", 43), false},
		{"nothing", "", false},
		{"a code pushed out by newer ones", first, false},
		{"a fresh code", kept, true},
		{"the same code again", kept, false},
	} {
		if got := o.redeem(tc.code); got != tc.want {
			t.Errorf("%s: redeem = %v; want %v", tc.name, got, tc.want)
		}
	}
}

// Without a credential every Console request, htmx's included, gets the
// login page: it says how to get in and holds nothing else, and its
// handler never runs.
func TestLoginPageRevealsNothing(t *testing.T) {
	ran := false
	o := testOwner(t, time.Now)
	h := o.check(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { ran = true }))
	for _, r := range []*http.Request{
		httptest.NewRequest("GET", "http://127.0.0.1:7421/sessions/1", nil),
		htmx(httptest.NewRequest("GET", "http://127.0.0.1:7421/changes?since=1.1", nil)),
		htmx(httptest.NewRequest("POST", "http://127.0.0.1:7421/workflows/new", strings.NewReader("csrf=x"))),
		bearer401(httptest.NewRequest("GET", "http://127.0.0.1:7421/", nil)),
	} {
		rec := record(h, httptest.NewRecorder(), r)
		body, _ := io.ReadAll(rec.Body)
		if rec.Code != http.StatusUnauthorized || ran {
			t.Fatalf("%s %s = %d (handler ran: %v)", r.Method, r.URL, rec.Code, ran)
		}
		for _, want := range []string{"workrail console", "Log in to the Console"} {
			if !strings.Contains(string(body), want) {
				t.Errorf("the login page lacks %q", want)
			}
		}
		if strings.Contains(string(body), "csrf") || strings.Contains(string(body), testToken) {
			t.Errorf("the login page gives away a secret:\n%s", body)
		}
		if rec.Header().Get("Set-Cookie") != "" {
			t.Errorf("the login page sets a cookie")
		}
		// An htmx GET (a poll, a panel) reloads its page into the login
		// page; an htmx POST leaves the page, and a form's text, alone.
		want := ""
		if r.Method == "GET" && r.Header.Get("HX-Request") == "true" {
			want = "true"
		}
		if got := rec.Header().Get("HX-Refresh"); got != want {
			t.Errorf("%s %s: HX-Refresh %q; want %q", r.Method, r.URL, got, want)
		}
	}
}

func htmx(r *http.Request) *http.Request { r.Header.Set("HX-Request", "true"); return r }

func bearer401(r *http.Request) *http.Request {
	r.Header.Set("Authorization", "Bearer "+testToken[1:])
	return r
}

// A login link names this daemon's Console and carries a 256-bit code.
func TestLoginURLNamesThisDaemon(t *testing.T) {
	_, socket := surfaces(t)
	u, err := url.Parse(loginLinkOf(t, socket))
	if err != nil || len(u.Query().Get("token")) != 43 {
		t.Fatalf("link %v (%v): want a 43-character code", u, err)
	}
}

// Log out ends this browser's login only, and clears its cookie: replayed
// afterwards, the cookie gets the login page saying the login ended.
func TestLogout(t *testing.T) {
	tcp, socket := surfaces(t)
	_, mine := followLink(t, tcp, loginLinkOf(t, socket))
	_, other := followLink(t, tcp, loginLinkOf(t, socket))
	rec := withCookie(tcp, "POST", "/logout", mine)
	cleared := rec.Result().Cookies()
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "You are logged out") ||
		len(cleared) != 1 || cleared[0].Name != mine.Name || cleared[0].MaxAge >= 0 {
		t.Fatalf("log out = %d, cookies %v:\n%s", rec.Code, cleared, rec.Body)
	}
	replay := withCookie(tcp, "GET", "/", mine)
	if replay.Code != http.StatusUnauthorized || !strings.Contains(replay.Body.String(), "Your login to this Console has ended") {
		t.Fatalf("the cookie replayed after log out = %d:\n%s", replay.Code, replay.Body)
	}
	if rec := withCookie(tcp, "GET", "/", other); rec.Code != http.StatusOK {
		t.Fatalf("another browser's login after log out = %d; want it to stay", rec.Code)
	}
}

// POST /api/logout-all ends every login and spends the links not yet
// followed; a new link logs in again.
func TestLogoutAll(t *testing.T) {
	tcp, socket := surfaces(t)
	_, a := followLink(t, tcp, loginLinkOf(t, socket))
	_, b := followLink(t, tcp, loginLinkOf(t, socket))
	unused := loginLinkOf(t, socket)
	rec := request(socket, "POST", "/api/logout-all", "", "")
	var out LoggedOut
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || rec.Code != http.StatusOK || out.Ended != 2 {
		t.Fatalf("POST /api/logout-all = %d %q (%v); want 2 ended", rec.Code, rec.Body, err)
	}
	for _, c := range []*http.Cookie{a, b} {
		if rec := withCookie(tcp, "GET", "/", c); rec.Code != http.StatusUnauthorized {
			t.Errorf("a login after logout-all = %d; want 401", rec.Code)
		}
	}
	if rec, c := followLink(t, tcp, unused); rec.Code != http.StatusUnauthorized || c != nil {
		t.Errorf("a link minted before logout-all = %d, cookie %v; want 401", rec.Code, c)
	}
	if _, c := followLink(t, tcp, loginLinkOf(t, socket)); c == nil || withCookie(tcp, "GET", "/", c).Code != http.StatusOK {
		t.Error("a link minted after logout-all does not log in")
	}
}

// A browser that follows a new link while logged in gets a new login, and
// its old one ends: an id never outlives the login it was made for.
func TestLoggingInAgainEndsTheOldLogin(t *testing.T) {
	tcp, socket := surfaces(t)
	_, old := followLink(t, tcp, loginLinkOf(t, socket))
	_, fresh := followLink(t, tcp, loginLinkOf(t, socket), old)
	if fresh == nil || fresh.Value == old.Value {
		t.Fatalf("logging in again set %v; want a new id", fresh)
	}
	if withCookie(tcp, "GET", "/", old).Code != http.StatusUnauthorized || withCookie(tcp, "GET", "/", fresh).Code != http.StatusOK {
		t.Error("want the old login ended and the new one live")
	}
}

// Through the check, on an injected clock: a login is fresh for
// login.FreshFor, then still admitted but not fresh, and refused once
// idle for login.IdleTimeout or login.MaxAge after it was made; the
// Bearer is always fresh.
func TestLoginAgeThroughTheCheck(t *testing.T) {
	start := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name      string
		uses      []time.Duration // after the login, each after the one before
		status    int
		fresh     bool
		withEnded bool // the login page says the login ended
	}{
		{"just logged in", []time.Duration{0}, 200, true, false},
		{"a minute short of the fresh window", []time.Duration{login.FreshFor - time.Minute}, 200, true, false},
		{"past the fresh window", []time.Duration{login.FreshFor}, 200, false, false},
		{"idle too long", []time.Duration{login.IdleTimeout}, 401, false, true},
		{"used every 4 hours until its max age", []time.Duration{4 * time.Hour, 4 * time.Hour, 4 * time.Hour, 4 * time.Hour, 4 * time.Hour, 4 * time.Hour}, 401, false, true},
		{"used every 4 hours for 20 hours", []time.Duration{4 * time.Hour, 4 * time.Hour, 4 * time.Hour, 4 * time.Hour, 4 * time.Hour}, 200, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := start
			o := testOwner(t, func() time.Time { return now })
			h := o.check(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, map[bool]string{true: "fresh", false: "stale"}[FreshLogin(r)])
			}))
			id, err := o.logins.Start()
			if err != nil {
				t.Fatal(err)
			}
			c := &http.Cookie{Name: o.cookie, Value: id}
			var rec *httptest.ResponseRecorder
			for _, d := range tc.uses {
				now = now.Add(d)
				rec = withCookie(h, "GET", "/", c)
			}
			if rec.Code != tc.status || rec.Code == 200 && rec.Body.String() != map[bool]string{true: "fresh", false: "stale"}[tc.fresh] ||
				strings.Contains(rec.Body.String(), "has ended") != tc.withEnded {
				t.Fatalf("= %d %q; want %d, fresh %v, ended %v", rec.Code, rec.Body, tc.status, tc.fresh, tc.withEnded)
			}
			bearer := httptest.NewRequest("GET", "http://127.0.0.1:7421/", nil)
			bearer.Header.Set("Authorization", "Bearer "+testToken)
			if got := record(h, httptest.NewRecorder(), bearer).Body.String(); got != "fresh" {
				t.Errorf("the Bearer = %q; want fresh", got)
			}
		})
	}
}

// FreshLogin refuses a request the check never saw.
func TestFreshLoginNeedsTheCheck(t *testing.T) {
	if FreshLogin(httptest.NewRequest("POST", "http://127.0.0.1:7421/workflows/new", nil)) {
		t.Fatal("a request without the check's access is fresh")
	}
}
