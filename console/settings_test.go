package console_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/workrail/workrail/console"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/golden"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/workflows"
)

// settingsBox is a configuration a test changes under a running Console.
type settingsBox struct {
	mu       sync.Mutex
	s        console.Settings
	restarts int
	refuse   error
}

func (b *settingsBox) get() console.Settings {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.s
}

func (b *settingsBox) set(f func(*console.Settings)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	f(&b.s)
	b.s.Generation++
}

func (b *settingsBox) restart() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.refuse != nil {
		return b.refuse
	}
	b.restarts++
	return nil
}

func settingsConsole(t *testing.T, st console.Store) (http.Handler, *settingsBox) {
	box := &settingsBox{s: console.Settings{Path: "/home/dev/.local/share/workrail/config.json",
		AppliedHash: "sha256:c4b0c341dfd3f0de1f9e637695a0016273fc0b202268e02b2249978062bfaaac", PageSize: 50, PollSeconds: 2, Generation: 1,
		Entries: []console.SettingEntry{
			{Key: "workflowPaths", Why: "source registration", Desired: `["/srv/flows"]`, Applied: `[]`, RestartRequired: true, Differs: true},
			{Key: "retentionDays", Why: "retention", Desired: `30`, Applied: `30`},
		},
		Pending: []string{"workflowPaths"}}}
	h := serveWith(t, st, executetest.Catalog(t, workflows.FS), func(c *console.Config) {
		c.Settings, c.Restart = box.get, box.restart
	})
	return h, box
}

func fetch(t *testing.T, h http.Handler, method, target string, form url.Values, header map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	var body *strings.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	} else {
		body = strings.NewReader("")
	}
	req := httptest.NewRequest(method, target, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestConfigPage(t *testing.T) {
	h, _ := settingsConsole(t, memstore.New())
	rec := fetch(t, h, http.MethodGet, "/config", nil, nil)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /config = %d", rec.Code)
	}
	golden.Check(t, filepath.Join("testdata", "config.html"), rec.Body.Bytes())
}

// TestRestartBanner: while a restart-required key differs, every page
// says so and offers the restart; a config.json that cannot be used is
// said instead, with no restart offered (the daemon would not come back).
func TestRestartBanner(t *testing.T) {
	h, box := settingsConsole(t, memstore.New())
	pages := []string{"/", "/gaps", "/workflows", "/config", "/config/banner"}
	for _, p := range pages {
		body := fetch(t, h, http.MethodGet, p, nil, nil).Body.String()
		if !strings.Contains(body, `data-testid="restart-banner"`) || !strings.Contains(body, `action="/config/restart"`) ||
			!strings.Contains(body, `name="csrf"`) || !strings.Contains(body, "workflowPaths") {
			t.Errorf("%s: no restart banner with its form:\n%s", p, body)
		}
	}
	box.set(func(s *console.Settings) { s.Pending = nil })
	for _, p := range pages {
		if body := fetch(t, h, http.MethodGet, p, nil, nil).Body.String(); strings.Contains(body, "banner") && strings.Contains(body, "restart-banner") {
			t.Errorf("%s: a restart banner with nothing pending", p)
		}
	}
	box.set(func(s *console.Settings) { s.Problem = "config.json at /port: 99999 is above the maximum, 65535" })
	body := fetch(t, h, http.MethodGet, "/", nil, nil).Body.String()
	if !strings.Contains(body, `data-testid="config-problem"`) || !strings.Contains(body, "99999 is above the maximum") || strings.Contains(body, "restart-daemon") {
		t.Errorf("a config.json problem is not shown, or a restart is offered:\n%s", body)
	}
}

func TestConfigRestart(t *testing.T) {
	h, box := settingsConsole(t, memstore.New())
	if rec := fetch(t, h, http.MethodPost, "/config/restart", url.Values{}, nil); rec.Code != http.StatusForbidden || box.restarts != 0 {
		t.Fatalf("a restart without the token: %d, %d restarts", rec.Code, box.restarts)
	}
	token := csrfOf(t, h)
	rec := fetch(t, h, http.MethodPost, "/config/restart", url.Values{"csrf": {token}}, nil)
	if rec.Code != http.StatusAccepted || box.restarts != 1 {
		t.Fatalf("restart: %d, %d restarts", rec.Code, box.restarts)
	}
	if body := rec.Body.String(); !strings.Contains(body, `http-equiv="refresh" content="2;url=/config"`) || !strings.Contains(body, "reload your IDE") {
		t.Errorf("the restarting page:\n%s", body)
	}
	box.refuse = errors.New("the daemon would not start again: config.json is not JSON")
	rec = fetch(t, h, http.MethodPost, "/config/restart", url.Values{"csrf": {token}}, nil)
	if rec.Code != http.StatusConflict || box.restarts != 1 || !strings.Contains(rec.Body.String(), "would not start again") {
		t.Errorf("a refused restart: %d, %d restarts:\n%s", rec.Code, box.restarts, rec.Body.String())
	}
}

// TestConfigRefreshesOpenPages: the poll sees a config.json change as it
// sees a write, and obeys console.pollSeconds.
func TestConfigRefreshesOpenPages(t *testing.T) {
	h, box := settingsConsole(t, memstore.New())
	page := fetch(t, h, http.MethodGet, "/", nil, nil).Body.String()
	m := regexp.MustCompile(`hx-get="/changes\?since=([0-9.]+)" hx-trigger="every 2s, wr-wake from:body"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no poller every 2s:\n%s", page)
	}
	since := "/changes?since=" + m[1]
	if rec := fetch(t, h, http.MethodGet, since, nil, nil); rec.Code != http.StatusNoContent {
		t.Fatalf("nothing changed: %d", rec.Code)
	}
	box.set(func(s *console.Settings) { s.PollSeconds = 7 })
	rec := fetch(t, h, http.MethodGet, since, nil, nil)
	if rec.Code != http.StatusOK || rec.Header().Get("HX-Trigger") != "wr-changed" || !strings.Contains(rec.Body.String(), "every 7s") {
		t.Errorf("after a config change: %d %q\n%s", rec.Code, rec.Header().Get("HX-Trigger"), rec.Body.String())
	}
}

// TestPageSizeAppliesLive: console.pageSize sets the sessions list's page.
func TestPageSizeAppliesLive(t *testing.T) {
	st := memstore.New()
	clock := func() time.Time { return time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC) }
	x := execute.New(st, executetest.Ring(t), executetest.Catalog(t, workflows.FS), workflow.Preferences{}, clock, t.Logf)
	for range 12 {
		if _, ok := x.Start(context.Background(), json.RawMessage(`{"workflowId":"wr.hello"}`)).(protocol.StepResult); !ok {
			t.Fatal("start failed")
		}
	}
	h, box := settingsConsole(t, st)
	rows := func() int {
		return strings.Count(fetch(t, h, http.MethodGet, "/", nil, nil).Body.String(), `data-testid="session-row"`)
	}
	if n := rows(); n != 12 {
		t.Errorf("page size 50: %d rows, want 12", n)
	}
	box.set(func(s *console.Settings) { s.PageSize = 10 })
	if n := rows(); n != 10 {
		t.Errorf("page size 10: %d rows, want 10", n)
	}
}
