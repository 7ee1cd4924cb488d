package console_test

import (
	"bytes"
	"context"
	"html"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workrail/workrail/console"
	"github.com/workrail/workrail/engine/bundle"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/server/sources"
	"github.com/workrail/workrail/workflows"
)

// owner is the daemon's login check as the Console sees it: whether the
// request's login is fresh, and who logged out.
type owner struct {
	fresh     bool
	loggedOut int
}

func (o *owner) Fresh(*http.Request) bool { return o.fresh }
func (o *owner) FreshFor() time.Duration  { return 15 * time.Minute }
func (o *owner) Logout(w http.ResponseWriter, _ *http.Request) {
	o.loggedOut++
	io.WriteString(w, "logged out")
}

// office is a Console with every write that changes what an agent will
// run: the editor over a user folder holding user.greet, run actions on
// ses_1 (a run of user.greet, which has a version 2 since), import, and
// the daemon's restart.
type office struct {
	h        http.Handler
	st       *memstore.Store
	x        *execute.Service
	user     string
	owner    *owner
	restarts int
	csrf     string
}

func newOffice(t *testing.T) *office {
	t.Helper()
	o := &office{st: memstore.New(), user: t.TempDir(), owner: &owner{fresh: true}}
	greet := filepath.Join(o.user, "greet.json")
	if err := os.WriteFile(greet, []byte(greetFile("1")), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, err := sources.New(workflows.FS, []catalog.Source{{Kind: catalog.User, Path: o.user}})
	if err != nil {
		t.Fatal(err)
	}
	o.x = execute.New(o.st, executetest.Ring(t), reg, workflow.Preferences{}, executetest.Clock, t.Logf)
	if _, ok := o.x.Start(context.Background(), []byte(`{"workflowId":"user.greet"}`)).(protocol.StepResult); !ok {
		t.Fatal("start failed")
	}
	if err := os.WriteFile(greet, []byte(greetFile("2")), 0o644); err != nil {
		t.Fatal(err)
	}
	clock := func() time.Time { return time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC) }
	r := chi.NewRouter()
	console.New(console.Config{Store: o.st, Workflows: reg, Files: reg, Runs: o.x, Bundles: o.x, Logins: o.owner,
		Restart: func() error { o.restarts++; return nil }, Secret: []byte("test secret"), Now: clock, Logf: t.Logf,
		Settings: func() console.Settings {
			return console.Settings{PageSize: 50, PollSeconds: 2, Pending: []string{"workflowPaths"}, Entries: []console.SettingEntry{
				{Key: "workflowPaths", Desired: `["/srv/flows"]`, Applied: `[]`, RestartRequired: true, Differs: true}}}
		},
		About: console.About{Version: "test", StartedAt: clock()}}).Routes(r)
	o.h = r
	_, page := getPath(t, r, "/")
	m := regexp.MustCompile(`name="csrf" value="([0-9a-f]{64})"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no CSRF field on the home page")
	}
	o.csrf = m[1]
	return o
}

func (o *office) post(path string, form url.Values) *httptest.ResponseRecorder {
	form.Set("csrf", o.csrf)
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	o.h.ServeHTTP(rec, req)
	return rec
}

// preview uploads ses_1's bundle and returns the path its Confirm posts to.
func (o *office) preview(t *testing.T) string {
	t.Helper()
	b, err := o.x.Export(1, bundle.ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	w.WriteField("csrf", o.csrf)
	f, _ := w.CreateFormFile("bundle", "ses_1.json")
	f.Write(b)
	w.Close()
	req := httptest.NewRequest(http.MethodPost, "/import", &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	rec := httptest.NewRecorder()
	o.h.ServeHTTP(rec, req)
	m := regexp.MustCompile(`action="(/import/[0-9a-f]{64})"`).FindStringSubmatch(rec.Body.String())
	if rec.Code != http.StatusOK || m == nil {
		t.Fatalf("the import preview = %d, no Confirm form:\n%s", rec.Code, rec.Body)
	}
	return m[1]
}

// state is what the writes could change: the user folder's files, the
// sessions and their events, and the restarts asked for.
func (o *office) state(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	entries, _ := os.ReadDir(o.user)
	for _, e := range entries {
		text, _ := os.ReadFile(filepath.Join(o.user, e.Name()))
		b.WriteString(e.Name() + "\n" + string(text) + "\n")
	}
	ids, err := o.st.SessionIDs()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		evs, _, _ := o.st.Events(id)
		b.WriteString(id.String() + " " + strconv.Itoa(len(evs)) + " events\n")
	}
	b.WriteString("restarts: " + strconv.Itoa(o.restarts))
	return b.String()
}

// Each write that changes what an agent will run asks for a new login
// when the request's login is older than the fresh-login window: 401,
// the page again with the notice and with what the reader sent, and
// nothing written. With a fresh login the same request goes through.
func TestWritesAskForAFreshLogin(t *testing.T) {
	edited := strings.Replace(greetFile("2"), "Say hi.", "Say hello, my own words.", 1)
	at := func(path string, form url.Values) func(*testing.T, *office) (string, url.Values) {
		return func(*testing.T, *office) (string, url.Values) { return path, form }
	}
	for _, tc := range []struct {
		name  string
		write func(*testing.T, *office) (string, url.Values)
		kept  string // what the reader sent, shown again
		done  int    // the status when the login is fresh
	}{
		{"save a workflow", func(t *testing.T, o *office) (string, url.Values) {
			_, page := getPath(t, o.h, "/workflows/user.greet/edit")
			return "/workflows/user.greet/edit", editForm(t, page, edited)
		}, "Say hello, my own words.", http.StatusSeeOther},
		{"create a workflow", at("/workflows/new", url.Values{"name": {"my_new_flow"}}), `value="my_new_flow"`, http.StatusSeeOther},
		{"fork a bundled workflow", at("/workflows/wr.hello/fork", url.Values{"name": {"my_hello"}, "title": {"My own hello"}}),
			`value="My own hello"`, http.StatusSeeOther},
		{"fork a run", at("/sessions/ses_1/runs/run_1/fork?node=node_1", url.Values{"context": {`{"planted": "my own context"}`}}),
			"my own context", http.StatusSeeOther},
		{"restart a run on the current version", at("/sessions/ses_1/runs/run_1/restart", url.Values{"context": {`{"planted": "my own context"}`}}),
			"my own context", http.StatusSeeOther},
		{"import a bundle", func(t *testing.T, o *office) (string, url.Values) { return o.preview(t), url.Values{} }, `data-testid="import-confirm"`, http.StatusSeeOther},
		{"restart the daemon", at("/config/restart", url.Values{}), `action="/config/restart"`, http.StatusAccepted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := newOffice(t)
			path, form := tc.write(t, o)
			before := o.state(t)
			o.owner.fresh = false
			rec := o.post(path, cloneForm(form))
			page := html.UnescapeString(rec.Body.String())
			if rec.Code != http.StatusUnauthorized || !strings.Contains(page, `data-testid="relogin"`) ||
				!strings.Contains(page, "workrail console") || !strings.Contains(page, "in the last 15 minutes") {
				t.Fatalf("with an old login = %d; want 401 and the notice:\n%s", rec.Code, page)
			}
			if !strings.Contains(page, html.UnescapeString(tc.kept)) {
				t.Errorf("the page lost what the reader sent (%q):\n%s", tc.kept, page)
			}
			if after := o.state(t); after != before {
				t.Fatalf("a write with an old login changed something:\n%s\nwas\n%s", after, before)
			}
			o.owner.fresh = true
			if rec := o.post(path, cloneForm(form)); rec.Code != tc.done || strings.Contains(rec.Body.String(), `data-testid="relogin"`) {
				t.Fatalf("with a fresh login = %d; want %d:\n%s", rec.Code, tc.done, rec.Body)
			}
			if o.state(t) == before {
				t.Error("the write with a fresh login changed nothing")
			}
		})
	}
}

func cloneForm(f url.Values) url.Values {
	out := url.Values{}
	for k, v := range f {
		out[k] = append([]string(nil), v...)
	}
	return out
}

// An old login still reads every page and makes the posts that change
// nothing an agent runs: checking a workflow's text, previewing an
// import.
func TestAnOldLoginReadsAndChecks(t *testing.T) {
	o := newOffice(t)
	o.owner.fresh = false
	for _, p := range []string{"/", "/sessions/ses_1", "/workflows", "/workflows/user.greet/edit", "/config", "/import"} {
		if code, page := getPath(t, o.h, p); code != http.StatusOK || strings.Contains(page, `data-testid="relogin"`) {
			t.Errorf("GET %s with an old login = %d", p, code)
		}
	}
	if rec := o.post("/workflows/check", url.Values{"text": {greetFile("3")}, "kind": {"user"}}); rec.Code != http.StatusOK {
		t.Errorf("checking a text with an old login = %d", rec.Code)
	}
	_, page := getPath(t, o.h, "/workflows/user.greet/edit")
	form := editForm(t, page, greetFile("3"))
	form.Set("action", "check")
	if rec := o.post("/workflows/user.greet/edit", form); rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), `data-testid="relogin"`) {
		t.Errorf("the editor's Check with an old login = %d", rec.Code)
	}
	o.preview(t) // fails the test unless the preview is shown
}

// Every page's header offers Log out: a form posting to /logout with the
// form token. Without the token nothing is ended; with it, the daemon
// ends this browser's login and answers.
func TestLogoutButton(t *testing.T) {
	o := newOffice(t)
	for _, p := range []string{"/", "/sessions/ses_1", "/workflows/user.greet/edit", "/import", "/no-such-page"} {
		_, page := getPath(t, o.h, p)
		if !regexp.MustCompile(`<form class="logout" method="post" action="/logout"><input type="hidden" name="csrf" value="` + o.csrf +
			`"><button type="submit" data-testid="logout">Log out</button></form></header>`).MatchString(page) {
			t.Errorf("GET %s: no Log out form at the end of the header", p)
		}
	}
	req := httptest.NewRequest(http.MethodPost, "/logout", strings.NewReader("csrf=forged"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	o.h.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden || o.owner.loggedOut != 0 {
		t.Fatalf("a log out without the form token = %d, logged out %d times; want 403 and none", rec.Code, o.owner.loggedOut)
	}
	if rec := o.post("/logout", url.Values{}); rec.Body.String() != "logged out" || o.owner.loggedOut != 1 {
		t.Fatalf("log out = %d %q; want the daemon's answer", rec.Code, rec.Body)
	}
}

// A Console built without logins (tests, tools) offers no Log out.
func TestNoLogoutWithoutLogins(t *testing.T) {
	d := newDesk(t)
	_, page := getPath(t, d.h, "/")
	if strings.Contains(page, "/logout") {
		t.Error("a Console without logins offers Log out")
	}
	if rec := d.post(t, "/logout", url.Values{}); rec.Code != http.StatusNotFound {
		t.Errorf("POST /logout = %d; want 404", rec.Code)
	}
}
