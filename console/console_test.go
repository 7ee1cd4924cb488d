package console_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workrail/workrail/console"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/golden"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/store"
	"github.com/workrail/workrail/store/storetest"
	"github.com/workrail/workrail/workflows"
)

// consoleWith starts n runs of wr.hello through the use cases over the
// given store and serves the Console over it.
func consoleWith(t *testing.T, st interface {
	execute.Store
	console.Store
}, n int) http.Handler {
	t.Helper()
	clock := func() time.Time { return time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC) }
	x := execute.New(st, executetest.Ring(t), executetest.Catalog(t, workflows.FS), workflow.Preferences{}, clock, t.Logf)
	for i := 0; i < n; i++ {
		if _, ok := x.Start(context.Background(), json.RawMessage(`{"workflowId":"wr.hello"}`)).(protocol.StepResult); !ok {
			t.Fatal("start failed")
		}
	}
	return serve(t, st, executetest.Catalog(t, workflows.FS))
}

// serve serves the Console over st, comparing pins with the catalog wf.
func serve(t *testing.T, st console.Store, wf execute.Workflows) http.Handler {
	return serveWith(t, st, wf, func(*console.Config) {})
}

// serveWith is serve with the Console's configuration changed by with.
func serveWith(t *testing.T, st console.Store, wf execute.Workflows, with func(*console.Config)) http.Handler {
	clock := func() time.Time { return time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC) }
	r := chi.NewRouter()
	about := console.About{Version: "test", Home: "/home/dev/.local/share/workrail", StartedAt: clock().Add(-90 * time.Minute),
		Snippets: []console.Snippet{{Client: "Claude Code", Text: "claude mcp add workrail -- /usr/local/bin/workrail mcp"}}}
	// The daemon's router has routes of its own before the Console's.
	r.Get("/static/*", http.NotFound)
	cfg := console.Config{Store: st, Workflows: wf, About: about, Secret: []byte("test secret"), Now: clock, Logf: t.Logf}
	with(&cfg)
	console.New(cfg).Routes(r)
	return r
}

// openStore opens a real bbolt store at path.
func openStore(t *testing.T, path string) *store.Store {
	t.Helper()
	s, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func get(t *testing.T, h http.Handler, htmx bool) string {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	if htmx {
		req.Header.Set("HX-Request", "true")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET / = %d", rec.Code)
	}
	b, _ := io.ReadAll(rec.Body)
	return string(b)
}

func TestSessionsPage(t *testing.T) {
	golden.Check(t, filepath.Join("testdata", "sessions.html"), []byte(get(t, consoleWith(t, memstore.New(), 2), false)))
}

// sessionIDs are the sessions a sessions page lists, in order, and the
// page's links and pill.
func listed(page string) (ids []string, older, pill string) {
	for _, m := range regexp.MustCompile(`data-testid="session-row" data-session="(ses_\d+)"`).FindAllStringSubmatch(page, -1) {
		ids = append(ids, m[1])
	}
	if m := regexp.MustCompile(`href="([^"]*)" rel="next"`).FindStringSubmatch(page); m != nil {
		older = html.UnescapeString(m[1])
	}
	if m := regexp.MustCompile(`data-testid="new-pill">([^<]*)<`).FindStringSubmatch(page); m != nil {
		pill = m[1]
	}
	return ids, older, pill
}

func TestSessionsSearchPagesAndNewPill(t *testing.T) {
	st := memstore.New()
	clock := func() time.Time { return time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC) }
	x := execute.New(st, executetest.Ring(t), executetest.Catalog(t, workflows.FS), workflow.Preferences{}, clock, t.Logf)
	start := func(wf string) {
		t.Helper()
		if _, ok := x.Start(context.Background(), json.RawMessage(`{"workflowId":"`+wf+`"}`)).(protocol.StepResult); !ok {
			t.Fatalf("start %s failed", wf)
		}
	}
	// ses_1..ses_120: every third session reviews code, the rest say hello.
	for i := 1; i <= 120; i++ {
		if i%3 == 0 {
			start("wr.code_review")
		} else {
			start("wr.hello")
		}
	}
	h := consoleWith(t, st, 0)
	seq := func(from, to, step int) []string {
		var out []string
		for i := from; i >= to; i -= step {
			out = append(out, fmt.Sprintf("ses_%d", i))
		}
		return out
	}
	tests := []struct {
		name, path string
		ids        []string
		older      string
	}{
		{"first page: the newest 50", "/", seq(120, 71, 1), "/?before=71"},
		{"second page, by keyset", "/?before=71", seq(70, 21, 1), "/?before=21"},
		{"last page", "/?before=21", seq(20, 1, 1), ""},
		{"search: every word, any field", "/?q=CODE+review", seq(120, 3, 3)[:40], ""},
		{"search by id", "/?q=ses_11", []string{"ses_119", "ses_118", "ses_117", "ses_116", "ses_115", "ses_114", "ses_113", "ses_112", "ses_111", "ses_110", "ses_11"}, ""},
		{"search pages keep the query", "/?q=hello", seq(120, 1, 1)[:0], ""},
		{"status filter: none complete", "/?status=complete", nil, ""},
		{"status filter with a search", "/?status=in_progress&q=review", seq(120, 3, 3)[:40], ""},
		{"no match", "/?q=nothing+like+this", nil, ""},
		{"a status outside the set is ignored", "/?status=sleeping&before=3", []string{"ses_2", "ses_1"}, ""},
	}
	// hello sessions are ids not divisible by 3.
	var hello []string
	for i := 120; i >= 1 && len(hello) < 50; i-- {
		if i%3 != 0 {
			hello = append(hello, fmt.Sprintf("ses_%d", i))
		}
	}
	tests[5].ids, tests[5].older = hello, "/?before="+strings.TrimPrefix(hello[49], "ses_")+"&q=hello"
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, page := getPath(t, h, tt.path)
			if code != http.StatusOK {
				t.Fatalf("GET %s = %d", tt.path, code)
			}
			ids, older, _ := listed(page)
			if strings.Join(ids, " ") != strings.Join(tt.ids, " ") || older != tt.older {
				t.Errorf("GET %s lists %v (older %q)\nwant %v (older %q)", tt.path, ids, older, tt.ids, tt.older)
			}
			if tt.older != "" && !strings.Contains(page, fmt.Sprintf(">showing %d ", len(tt.ids))) {
				t.Errorf("GET %s does not say how many of how many sessions it shows", tt.path)
			}
		})
	}

	// A page refreshed in place keeps its rows and counts newer sessions
	// that match in a pill; one that does not match is not counted.
	start("wr.code_review")
	start("wr.hello")
	code, page := getPath(t, h, "/?q=review&top=120&newest=ses_120")
	ids, _, pill := listed(page)
	if code != http.StatusOK || ids[0] != "ses_120" || pill != "1 new session — show" {
		t.Fatalf("refresh: %d, first row %s, pill %q; want the rows as they were and \"1 new session — show\"", code, ids[0], pill)
	}
	if _, page := getPath(t, h, "/?q=review"); !strings.Contains(page, `data-session="ses_121"`) {
		t.Fatal("the pill's link does not show the new session")
	}
	for _, path := range []string{"/?top=ses_x", "/?before=bogus"} {
		if code, _ := getPath(t, h, path); code != http.StatusNotFound {
			t.Errorf("GET %s = %d; want 404", path, code)
		}
	}
}

func TestEmptySessionsPage(t *testing.T) {
	golden.Check(t, filepath.Join("testdata", "sessions_empty.html"), []byte(get(t, consoleWith(t, memstore.New(), 0), false)))
}

// Damaged sessions are listed with what is wrong, next to healthy ones.
func TestSessionsPageShowsDamage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "workrail.db")
	st := openStore(t, path)
	consoleWith(t, st, 3)
	st.Close()
	err := storetest.Update(path, func(tx storetest.Tx) error {
		events := tx.Events(2)
		k := storetest.EventKey(3)
		v := bytes.Clone(events.Get(k))
		v[10] ^= 0x20
		if err := events.Put(k, v); err != nil {
			return err
		}
		return tx.Runs(3).Delete(storetest.IDKey(1))
	})
	if err != nil {
		t.Fatal(err)
	}
	// Session 3's damaged index is rebuilt from its log when the page
	// asks its health: it is listed healthy.
	h := consoleWith(t, openStore(t, path), 0)
	golden.Check(t, filepath.Join("testdata", "sessions_damaged.html"), []byte(get(t, h, true)))
	// The damaged session's page says so, and how far it read (its run's
	// first node is past the damage, so the run is not listed).
	for _, page := range []string{"/sessions/ses_2"} {
		code, body := getPath(t, h, page)
		if code != http.StatusOK || !strings.Contains(body, `data-testid="damage-banner"`) || !strings.Contains(body, "corrupt tail at event 3. The page shows what could be read, up to event 2") {
			t.Errorf("GET %s = %d without the damage banner", page, code)
		}
	}
}

// A poll that saw the current change cursor is answered 204: at 10,000
// sessions each poll re-rendered 2 MB every 5 s.
func TestPollAnswersNoContentUntilSomethingChanged(t *testing.T) {
	st := memstore.New()
	h := consoleWith(t, st, 1)
	poll := func(since string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "/changes?since="+since, nil)
		req.Header.Set("HX-Request", "true")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	// The cursor is the store's and the configuration's (generation 0
	// without one).
	cursor := func() string { return fmt.Sprint(st.Changes()) + ".0" }
	now := cursor()
	if got := poll(now); got.Code != http.StatusNoContent || got.Body.Len() != 0 || got.Header().Get("HX-Trigger") != "" {
		t.Fatalf("poll at the current cursor = %d %q (trigger %q); want 204, empty, no trigger", got.Code, got.Body, got.Header().Get("HX-Trigger"))
	}
	consoleWith(t, st, 1) // another run starts
	got := poll(now)
	if got.Code != http.StatusOK || got.Header().Get("HX-Trigger") != "wr-changed" {
		t.Fatalf("poll after a change = %d, HX-Trigger %q; want 200 and wr-changed", got.Code, got.Header().Get("HX-Trigger"))
	}
	// The new poller asks from the new cursor, so the next poll is quiet.
	want := `hx-get="/changes?since=` + cursor() + `"`
	if !strings.Contains(got.Body.String(), want) {
		t.Fatalf("new poller %q does not carry %s", got.Body, want)
	}
	if got := poll(cursor()); got.Code != http.StatusNoContent {
		t.Fatalf("poll at the new cursor = %d; want 204", got.Code)
	}
}

func getPath(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	b, _ := io.ReadAll(rec.Body)
	return rec.Code, string(b)
}

func TestSessionPage(t *testing.T) {
	h := consoleWith(t, memstore.New(), 2)
	code, body := getPath(t, h, "/sessions/ses_2")
	if code != http.StatusOK {
		t.Fatalf("GET /sessions/ses_2 = %d", code)
	}
	golden.Check(t, filepath.Join("testdata", "session.html"), []byte(body))
	// Picking the active run keeps it across refreshes: the panel's URL
	// names it. Without ?run= the panel follows the latest activity.
	if code, body := getPath(t, h, "/sessions/ses_2?run=run_1"); code != http.StatusOK || !strings.Contains(body, `hx-get="/sessions/ses_2?run=run_1"`) {
		t.Errorf("GET ?run=run_1 = %d; want its panel to refresh with ?run=run_1", code)
	}
	if !strings.Contains(body, `hx-get="/sessions/ses_2" hx-select="#session"`) {
		t.Error("the default session page's panel does not refresh from the plain URL")
	}
	for _, path := range []string{"/sessions/ses_9", "/sessions/nope", "/nowhere", "/sessions/ses_2?run=run_9", "/sessions/ses_2?run=x"} {
		code, body := getPath(t, h, path)
		if code != http.StatusNotFound || !strings.Contains(body, "Back to all sessions") {
			t.Errorf("GET %s = %d; want the styled 404 page", path, code)
		}
	}
}

// A never-stop run that skips what it was asked for leaves critical gaps;
// the gaps page lists them, and filters by severity and reason.
func TestGapsPage(t *testing.T) {
	st := memstore.New()
	h := consoleWith(t, st, 1)
	leaveGaps(t, st, 1)
	code, all := getPath(t, h, "/gaps")
	if code != http.StatusOK {
		t.Fatalf("GET /gaps = %d", code)
	}
	golden.Check(t, filepath.Join("testdata", "gaps.html"), []byte(all))
	for _, c := range []struct {
		query string
		some  bool
	}{
		{"?severity=critical", strings.Contains(all, "severity-critical")},
		{"?severity=warning", strings.Contains(all, "severity-warning")},
		{"?reason=workflow_divergence", false},
		{"?severity=bogus", strings.Contains(all, "data-gap")},
	} {
		_, body := getPath(t, h, "/gaps"+c.query)
		if strings.Contains(body, "data-gap=") != c.some {
			t.Errorf("GET /gaps%s lists gaps: %v; want %v", c.query, !c.some, c.some)
		}
	}
	// A filter keeps the gaps of its severity and reason, in order.
	gapIDs := regexp.MustCompile(`data-gap="([^"]*)"`)
	for query, want := range map[string][]string{
		"?reason=user_only_dependency":                                 {"evt_2_12"},
		"?reason=required_output_missing_or_invalid":                   {"evt_2_8"},
		"?severity=critical":                                           {"evt_2_8", "evt_2_12"},
		"?severity=critical&reason=required_output_missing_or_invalid": {"evt_2_8"},
		"?severity=warning&reason=user_only_dependency":                nil,
	} {
		_, body := getPath(t, h, "/gaps"+query)
		var ids []string
		for _, m := range gapIDs.FindAllStringSubmatch(body, -1) {
			ids = append(ids, m[1])
		}
		if !slices.Equal(ids, want) {
			t.Errorf("GET /gaps%s lists %v, want %v", query, ids, want)
		}
	}
}

// leaveGaps starts n sessions of a never-stop run that skips what it was
// asked for: each leaves two critical gaps.
func leaveGaps(tb testing.TB, st execute.Store, n int) {
	wf := executetest.Catalog(tb, fstest.MapFS{"wr.gappy.json": {Data: []byte(`{"id":"wr.gappy","name":"Gappy","description":"d","version":"1",
		"steps":[{"id":"report","title":"Report","prompt":"report","output":{"contractRef":"wr.contracts.gaps"}},
		{"id":"ask","title":"Ask","prompt":"ask","userDependency":{"reason":"needs_user_approval","summary":"approve","requestedFromUser":"Approve?"}},
		{"id":"done","title":"Done","prompt":"done"}]}`)}})
	x := execute.New(st, executetest.Ring(tb), wf, workflow.Preferences{}, executetest.Clock, tb.Logf)
	for range n {
		// An agent in never-stop mode that acknowledges steps without the
		// outputs or answers they ask for.
		res := x.Start(context.Background(), []byte(`{"workflowId":"wr.gappy","mode":"wr.modes.full_auto_never_stop"}`))
		for i := 0; i < 4; i++ {
			s, ok := res.(protocol.StepResult)
			if !ok {
				break
			}
			res = x.Continue(context.Background(), []byte(`{"stateToken":"`+s.StateToken+`","ackToken":"`+s.AckToken+`"}`))
		}
	}
}

// The gaps page shows pageSize gaps, says how many it left out, and its
// next and previous links (plain links: no script) walk the rest.
func TestGapsPageIsPaged(t *testing.T) {
	st := memstore.New()
	leaveGaps(t, st, 3) // 6 gaps: ses_3's two, then ses_2's, then ses_1's
	h := serveWith(t, st, executetest.Catalog(t, workflows.FS), func(c *console.Config) {
		c.Settings = func() console.Settings { return console.Settings{PageSize: 4, PollSeconds: 2} }
	})
	gapIDs := regexp.MustCompile(`data-gap="([^"]+)"`)
	link := func(body, rel string) string {
		m := regexp.MustCompile(`<a href="([^"]+)" rel="` + rel + `"`).FindStringSubmatch(body)
		if m == nil {
			return ""
		}
		return html.UnescapeString(m[1])
	}
	page := func(path string) (ids []string, shown, body string) {
		t.Helper()
		code, body := getPath(t, h, path)
		if code != http.StatusOK {
			t.Fatalf("GET %s = %d", path, code)
		}
		for _, m := range gapIDs.FindAllStringSubmatch(body, -1) {
			ids = append(ids, m[1])
		}
		if m := regexp.MustCompile(`data-testid="shown">([^<]*)<`).FindStringSubmatch(body); m != nil {
			shown = m[1]
		}
		return ids, shown, body
	}
	first, shown, body := page("/gaps")
	if want := []string{"evt_3_8", "evt_3_12", "evt_2_8", "evt_2_12"}; !slices.Equal(first, want) || shown != "showing 1–4 of 6 open gaps" {
		t.Fatalf("first page %v %q; want %v and what it left out", first, shown, want)
	}
	if link(body, "prev") != "" {
		t.Errorf("the first page links a previous one")
	}
	second, shown, body := page(link(body, "next"))
	if want := []string{"evt_1_8", "evt_1_12"}; !slices.Equal(second, want) || shown != "showing 5–6 of 6 open gaps" || link(body, "next") != "" {
		t.Fatalf("second page %v %q (next %q); want %v, the last", second, shown, link(body, "next"), want)
	}
	back, _, _ := page(link(body, "prev"))
	if !slices.Equal(back, first) {
		t.Errorf("previous from the second page = %v, want the first %v", back, first)
	}
	filtered, shown, body := page("/gaps?severity=critical&after=evt_3_12")
	if !slices.Equal(filtered, []string{"evt_2_8", "evt_2_12", "evt_1_8", "evt_1_12"}) || shown != "showing 3–6 of 6 open gaps of severity critical (6 open gaps in all)" ||
		!strings.Contains(link(body, "prev"), "severity=critical") {
		t.Errorf("filtered page %v %q, prev %q", filtered, shown, link(body, "prev"))
	}
	if code, _ := getPath(t, h, "/gaps?after=evt_x"); code != http.StatusNotFound {
		t.Errorf("a malformed cursor: %d, want 404", code)
	}
}

// The first-run help gives way to the sessions once the first appears:
// the poll from an empty page asks htmx to reload it.
func TestFirstSessionReloadsTheFirstRunPage(t *testing.T) {
	st := memstore.New()
	h := consoleWith(t, st, 0)
	_, page := getPath(t, h, "/")
	m := regexp.MustCompile(`id="sessions" class="live" hx-get="([^"]*)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("the empty page has no live sessions panel")
	}
	refresh := func() *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, html.UnescapeString(m[1]), nil)
		req.Header.Set("HX-Request", "true")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	if rec := refresh(); rec.Header().Get("HX-Refresh") != "" {
		t.Fatal("an empty store asked for a reload")
	}
	consoleWith(t, st, 1)
	if rec := refresh(); rec.Header().Get("HX-Refresh") != "true" {
		t.Fatalf("the first session did not reload the first-run page (GET %s: HTTP %d)", m[1], rec.Code)
	}
}

// A run with a blocked attempt and a fork from a rewound chat: the page
// lays out the graph, folds the earlier branch under its fork parent,
// opens a node in the side panel, and filters rows.
func TestRunPage(t *testing.T) {
	st := memstore.New()
	wf := executetest.Catalog(t, fstest.MapFS{"wr.ask.json": {Data: []byte(`{"id":"wr.ask","name":"Ask","description":"d","version":"1",
		"steps":[{"id":"ask","title":"Ask","prompt":"ask the user","userDependency":{"reason":"needs_user_approval","summary":"approve","requestedFromUser":"Approve?"}},
		{"id":"do","title":"Do","prompt":"do it"},{"id":"end","title":"End","prompt":"end"}]}`)}})
	h := serve(t, st, wf)
	x := execute.New(st, executetest.Ring(t), wf, workflow.Preferences{}, executetest.Clock, t.Logf)
	first := x.Start(context.Background(), []byte(`{"workflowId":"wr.ask"}`)).(protocol.StepResult)
	args, _ := json.Marshal(first.NextCall.Arguments)
	blocked := x.Continue(context.Background(), args).(protocol.BlockedResult)
	args, _ = json.Marshal(executetest.NextArgs(t, blocked))
	x.Continue(context.Background(), args)
	re := x.Continue(context.Background(), []byte(`{"stateToken":"`+first.StateToken+`"}`)).(protocol.StepResult)
	args, _ = json.Marshal(executetest.NextArgs(t, re))
	x.Continue(context.Background(), args)

	base := "/sessions/ses_1/runs/run_1"
	for _, c := range []struct{ path, golden string }{
		{base, "run.html"},
		{base + "?expand=node_2", "run_expanded.html"},
		{base + "?node=node_1&filter=blocked", "run_node.html"},
	} {
		code, body := getPath(t, h, c.path)
		if code != http.StatusOK {
			t.Fatalf("GET %s = %d", c.path, code)
		}
		golden.Check(t, filepath.Join("testdata", c.golden), []byte(body))
	}
	if code, body := getPath(t, h, base+"/graph.svg"); code != http.StatusOK || !strings.HasPrefix(body, "<svg") {
		t.Fatalf("graph.svg = %d %.60s", code, body)
	}
	for _, path := range []string{"/sessions/ses_1/runs/run_9", base + "?node=node_99", base + "?node=bogus", "/sessions/ses_1/runs/run_9/graph.svg", "/sessions/ses_9/runs/run_1/graph.svg"} {
		if code, _ := getPath(t, h, path); code != http.StatusNotFound {
			t.Errorf("GET %s = %d; want 404", path, code)
		}
	}
}

// Agent text reaches a page only through console/markdown: a note that
// tries to run script renders inert on the session and run pages.
func TestAgentNotesRenderInert(t *testing.T) {
	st := memstore.New()
	h := consoleWith(t, st, 0)
	x := execute.New(st, executetest.Ring(t), executetest.Catalog(t, workflows.FS), workflow.Preferences{}, executetest.Clock, t.Logf)
	s := x.Start(context.Background(), []byte(`{"workflowId":"wr.hello"}`)).(protocol.StepResult)
	args := s.NextCall.Arguments
	args.Output.NotesMarkdown = "**Done.** <script>alert(1)</script> \"><img src=x onerror=alert(1)> [x](javascript:alert(1))"
	raw, _ := json.Marshal(args)
	x.Continue(context.Background(), raw)
	for _, path := range []string{"/sessions/ses_1", "/sessions/ses_1/runs/run_1?node=node_1"} {
		_, body := getPath(t, h, path)
		if !strings.Contains(body, "<strong>Done.</strong>") {
			t.Fatalf("%s: the note's Markdown is not rendered", path)
		}
		for _, bad := range []string{"<script>alert", "<img src=x", `href="javascript`} {
			if strings.Contains(strings.ToLower(body), bad) {
				t.Fatalf("%s holds %s", path, bad)
			}
		}
	}
}

// swapped is a workflow catalog whose files change under the daemon.
type swapped struct{ now execute.Workflows }

func (s *swapped) Catalog(workspace string) *catalog.Catalog { return s.now.Catalog(workspace) }

// A run keeps the workflow it pinned; when its id means something else
// now, the run and session pages say what changed and that the run goes
// on as it was.
func TestPinnedDriftIsShown(t *testing.T) {
	version := func(v string) execute.Workflows {
		return executetest.Catalog(t, fstest.MapFS{"wr.ask.json": {Data: []byte(`{"id":"wr.ask","name":"Ask","description":"d","version":"` + v + `",
			"steps":[{"id":"ask","title":"Ask","prompt":"ask v` + v + `"}]}`)}})
	}
	st := memstore.New()
	disk := &swapped{now: version("1")}
	h := serve(t, st, disk)
	x := execute.New(st, executetest.Ring(t), disk, workflow.Preferences{}, executetest.Clock, t.Logf)
	if _, ok := x.Start(context.Background(), []byte(`{"workflowId":"wr.ask"}`)).(protocol.StepResult); !ok {
		t.Fatal("start failed")
	}
	for _, c := range []struct {
		name  string
		disk  execute.Workflows
		drift string // "" for none
	}{
		{"unchanged", version("1"), ""},
		{"edited", version("2"), "wr.ask was changed since this run started: a new start gets version 2"},
		{"removed", executetest.Catalog(t, fstest.MapFS{}), "wr.ask is no longer defined by any workflow source."},
	} {
		t.Run(c.name, func(t *testing.T) {
			disk.now = c.disk
			_, run := getPath(t, h, "/sessions/ses_1/runs/run_1")
			_, session := getPath(t, h, "/sessions/ses_1")
			_, list := getPath(t, h, "/")
			if got := strings.Contains(list, "1 run on an older version"); got != (c.drift != "") {
				t.Errorf("sessions list: drift badge %v, want %v", got, c.drift != "")
			}
			if got := strings.Contains(run, `data-testid="drift-banner"`); got != (c.drift != "") || !strings.Contains(run, c.drift) {
				t.Errorf("run page: banner %v, want %q", got, c.drift)
			}
			if c.drift != "" && !strings.Contains(run, "This run continues on its pinned version 1") {
				t.Error("the banner does not say the run goes on with its pinned version")
			}
			if got := strings.Contains(run, "See what changed"); got != (c.name == "edited") {
				t.Errorf("run page: a link to the diff %v, want %v", got, c.name == "edited")
			}
			if got := strings.Contains(session, `data-testid="drift"`); got != (c.drift != "") {
				t.Errorf("session page: drift badge %v, want %v", got, c.drift != "")
			}
		})
	}
}

// A session page shows each of its lists a page at a time, says what it
// left out, links the neighbouring pages, and its live panel refreshes
// the page the reader is on.
func TestSessionPageListsArePaged(t *testing.T) {
	st := memstore.New()
	leaveGaps(t, st, 1) // ses_1: two gaps
	h := serveWith(t, st, executetest.Catalog(t, workflows.FS), func(c *console.Config) {
		c.Settings = func() console.Settings { return console.Settings{PageSize: 1, PollSeconds: 2} }
	})
	gapIDs := regexp.MustCompile(`data-gap="([^"]+)"`)
	_, first := getPath(t, h, "/sessions/ses_1")
	if ids := gapIDs.FindAllStringSubmatch(first, -1); len(ids) != 1 || ids[0][1] != "evt_1_8" {
		t.Fatalf("first page lists gaps %v, want evt_1_8 alone", ids)
	}
	if !strings.Contains(first, "showing 1–1 of 2 gaps") || !strings.Contains(first, `<a href="/sessions/ses_1?gaps=1" rel="next">`) {
		t.Fatalf("the first page says nothing of the gap it left out, or links no next page")
	}
	_, second := getPath(t, h, "/sessions/ses_1?gaps=1")
	if ids := gapIDs.FindAllStringSubmatch(second, -1); len(ids) != 1 || ids[0][1] != "evt_1_12" {
		t.Fatalf("second page lists gaps %v, want evt_1_12 alone", ids)
	}
	if !strings.Contains(second, "showing 2–2 of 2 gaps") || !strings.Contains(second, `<a href="/sessions/ses_1" rel="prev">`) ||
		!strings.Contains(second, `hx-get="/sessions/ses_1?gaps=1"`) {
		t.Fatalf("the second page links no previous page, or its live panel refreshes another page")
	}
}

// A run page lists its rows a page at a time, with the drawing of just
// those rows beside them; a node opened in the panel opens its page.
func TestRunPageRowsArePaged(t *testing.T) {
	st := memstore.New()
	leaveGaps(t, st, 1) // ses_1's run_1: three steps, one row each, then complete
	h := serveWith(t, st, executetest.Catalog(t, workflows.FS), func(c *console.Config) {
		c.Settings = func() console.Settings { return console.Settings{PageSize: 2, PollSeconds: 2} }
	})
	rows := regexp.MustCompile(`data-testid="row" data-node="([^"]+)"`)
	listed := func(body string) (ids []string) {
		for _, m := range rows.FindAllStringSubmatch(body, -1) {
			ids = append(ids, m[1])
		}
		return ids
	}
	const base = "/sessions/ses_1/runs/run_1"
	_, first := getPath(t, h, base)
	if ids := listed(first); !slices.Equal(ids, []string{"node_1", "node_2"}) || !strings.Contains(first, "showing 1–2 of 3 rows") ||
		!strings.Contains(first, `<a href="`+base+`?rows=2" rel="next">`) || !strings.Contains(first, `&amp;from=0&amp;to=2"`) || !strings.Contains(first, `height="48"`) {
		t.Fatalf("first page rows %v; want node_1 and node_2, what it left out, a next link and a drawing of two rows", ids)
	}
	_, second := getPath(t, h, base+"?rows=2")
	if ids := listed(second); !slices.Equal(ids, []string{"node_3"}) || !strings.Contains(second, `<a href="`+base+`" rel="prev">`) {
		t.Fatalf("second page rows %v; want node_3 and a previous link", ids)
	}
	// Where the run completed opens the row it completed from, on its page.
	if _, panel := getPath(t, h, base+"?node=node_4"); !slices.Equal(listed(panel), []string{"node_3"}) {
		t.Errorf("node_4 open in the panel lists rows %v; want node_3's page", listed(panel))
	}
	code, svg := getPath(t, h, base+"/graph.svg?at=1&from=2&to=3")
	if code != http.StatusOK || !strings.Contains(svg, `height="24"`) || strings.Count(svg, "<circle") > 1 {
		t.Errorf("the drawing of rows 2–4: %d\n%s", code, svg)
	}
}

// The panel shows a row's attempts a page at a time, and the live panel
// refreshes the page the reader is on.
func TestNodePanelListsArePaged(t *testing.T) {
	st := memstore.New()
	wf := executetest.Catalog(t, fstest.MapFS{"wr.ask.json": {Data: []byte(`{"id":"wr.ask","name":"Ask","description":"d","version":"1",
		"steps":[{"id":"ask","title":"Ask","prompt":"ask the user","userDependency":{"reason":"needs_user_approval","summary":"approve","requestedFromUser":"Approve?"}},
		{"id":"end","title":"End","prompt":"end"}]}`)}})
	h := serveWith(t, st, wf, func(c *console.Config) {
		c.Settings = func() console.Settings { return console.Settings{PageSize: 1, PollSeconds: 2} }
	})
	x := execute.New(st, executetest.Ring(t), wf, workflow.Preferences{}, executetest.Clock, t.Logf)
	first := x.Start(context.Background(), []byte(`{"workflowId":"wr.ask"}`)).(protocol.StepResult)
	for range 3 { // three blocked attempts at node_1
		x.Continue(context.Background(), []byte(`{"stateToken":"`+first.StateToken+`","ackToken":"`+first.AckToken+`"}`))
		first = x.Continue(context.Background(), []byte(`{"stateToken":"`+first.StateToken+`"}`)).(protocol.StepResult)
	}
	const base = "/sessions/ses_1/runs/run_1?node=node_1"
	_, page := getPath(t, h, base)
	if n := strings.Count(page, `data-testid="attempt" data-outcome="blocked"`); n != 1 || !strings.Contains(page, "showing 1–1 of 3 attempts") {
		t.Fatalf("the panel shows %d blocked attempts, or does not say what it left out", n)
	}
	_, page = getPath(t, h, base+"&attempts=2")
	if !strings.Contains(page, "showing 3–3 of 3 attempts") || !regexp.MustCompile(`■ blocked</span> +Attempt 3 <`).MatchString(page) ||
		!strings.Contains(page, `hx-get="/sessions/ses_1/runs/run_1?node=node_1&amp;attempts=2"`) {
		t.Fatalf("the last page of blocked attempts:\n%s", page)
	}
}
