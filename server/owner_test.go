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
)

// login follows a login link on h: the answer, and the session cookie it
// set (nil when none).
func login(t *testing.T, h http.Handler, link string) (*httptest.ResponseRecorder, *http.Cookie) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", link, nil))
	for _, c := range rec.Result().Cookies() {
		if c.Name == "workrail_console_7421" {
			return rec, c
		}
	}
	return rec, nil
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

// A login link sets the session cookie (HttpOnly, SameSite=Strict, the
// whole site, not auth.token itself) and redirects home, once; the cookie
// then opens the Console.
func TestLoginLinkWorksOnce(t *testing.T) {
	tcp, socket := surfaces(t)
	link := loginLinkOf(t, socket)
	rec, c := login(t, tcp, link)
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/" || c == nil {
		t.Fatalf("login = %d, Location %q, cookie %v; want 303 to / with the cookie", rec.Code, rec.Header().Get("Location"), c)
	}
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.Domain != "" || c.Secure {
		t.Errorf("cookie %+v; want HttpOnly, SameSite=Strict, Path=/, host-only", c)
	}
	if c.Value == testToken || strings.Contains(c.Value, testToken) || len(c.Value) != 64 {
		t.Errorf("cookie value %q: want an HMAC, not auth.token", c.Value)
	}
	page := httptest.NewRequest("GET", "http://127.0.0.1:7421/", nil)
	page.AddCookie(c)
	if rec := record(tcp, httptest.NewRecorder(), page); rec.Code != http.StatusOK || rec.Body.String() != "console" {
		t.Fatalf("the Console with the cookie = %d %q", rec.Code, rec.Body)
	}
	again, c2 := login(t, tcp, link)
	if again.Code != http.StatusUnauthorized || c2 != nil || !strings.Contains(again.Body.String(), "used already") {
		t.Fatalf("a spent link = %d, cookie %v:\n%s", again.Code, c2, again.Body)
	}
	// Another daemon's cookie, or a forged one, opens nothing.
	for _, v := range []string{testToken, strings.Repeat("0", 64), ""} {
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
	o := newOwner(testToken, 7421, func() time.Time { return now })
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
	o := newOwner(testToken, 7421, time.Now)
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
		if strings.Contains(string(body), "csrf") || strings.Contains(string(body), testToken) || strings.Contains(string(body), string(o.session)) {
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
