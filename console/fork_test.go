package console_test

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workrail/workrail/console"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/golden"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
)

// actions is the Console over an in-memory store with the use cases its
// run actions go through, and the agent's side of the same use cases.
type actions struct {
	h    http.Handler
	st   *memstore.Store
	x    *execute.Service
	disk *swapped
	csrf string
}

// forkFlow is wr.f at version v: a topic to start with, three steps.
func forkFlow(t *testing.T, v string) execute.Workflows {
	return executetest.Catalog(t, fstest.MapFS{"wr.f.json": {Data: []byte(`{"id":"wr.f","name":"Fork me","description":"d","version":"` + v + `",
		"context":[{"name":"topic","type":"string","required":true,"description":"the topic"}],
		"steps":[{"id":"a","title":"A","prompt":"a"},{"id":"b","title":"B","prompt":"b v` + v + `"},{"id":"c","title":"C","prompt":"c"}]}`)}})
}

// newActions starts wr.f about "x" and advances it twice: node_1 (a) →
// node_2 (b) → node_3 (c).
func newActions(t *testing.T) *actions {
	a := &actions{st: memstore.New(), disk: &swapped{now: forkFlow(t, "1")}}
	a.x = execute.New(a.st, executetest.Ring(t), a.disk, workflow.Preferences{}, executetest.Clock, t.Logf)
	r := chi.NewRouter()
	clock := func() time.Time { return time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC) }
	console.New(console.Config{Store: a.st, Workflows: a.disk, Runs: a.x, About: console.About{Version: "test", StartedAt: clock()},
		Secret: []byte("test secret"), Now: clock, Logf: t.Logf}).Routes(r)
	a.h = r
	res := a.x.Start(context.Background(), []byte(`{"workflowId":"wr.f","context":{"topic":"x"}}`))
	for i := 0; i < 2; i++ {
		args := res.(protocol.StepResult).NextCall.Arguments
		args.Output = &protocol.Output{NotesMarkdown: "did it"}
		b, _ := json.Marshal(args)
		res = a.x.Continue(context.Background(), b)
	}
	_, page := getPath(t, a.h, "/")
	m := regexp.MustCompile(`name="csrf" value="([0-9a-f]{64})"|X-CSRF-Token&#34;:&#34;([0-9a-f]{64})&#34;`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no CSRF token on the home page")
	}
	a.csrf = m[1] + m[2]
	return a
}

// post submits a form; csrf "" sends none.
func (a *actions) post(t *testing.T, path, csrf, context string) *httptest.ResponseRecorder {
	t.Helper()
	form := url.Values{"context": {context}}
	if csrf != "" {
		form.Set("csrf", csrf)
	}
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	a.h.ServeHTTP(rec, req)
	return rec
}

// events is how many events session ses_1 holds.
func (a *actions) events(t *testing.T) int {
	t.Helper()
	evs, _, err := a.st.Events(1)
	if err != nil {
		t.Fatal(err)
	}
	return len(evs)
}

const run1 = "/sessions/ses_1/runs/run_1"

// The run actions' pages: each form carries the CSRF field and the
// context to edit; the run page links to them.
func TestRunActionPages(t *testing.T) {
	a := newActions(t)
	a.disk.now = forkFlow(t, "2")
	for _, c := range []struct {
		path, golden string
		has          []string
	}{
		{run1 + "/fork?node=node_3", "fork.html", []string{`name="csrf" value="` + a.csrf + `"`, `action="/sessions/ses_1/runs/run_1/fork?node=node_3"`,
			"&#34;topic&#34;: &#34;x&#34;", "Starts a new branch from <code>node_2</code>"}},
		{run1 + "/fork?node=node_1", "fork_root.html", []string{`name="csrf" value="` + a.csrf + `"`, "is the first node of <code>run_1</code>"}},
		{run1 + "/restart", "restart.html", []string{`name="csrf" value="` + a.csrf + `"`, `action="/sessions/ses_1/runs/run_1/restart"`,
			`data-testid="workflow-diff"`, `<span class="add">+  &#34;version&#34;: &#34;2&#34;</span>`}},
		{run1 + "/handoff?node=node_3", "handoff.html", []string{`data-testid="state-token">st.v1.`, "Continue my WorkRail run: call continue_workflow with stateToken"}},
	} {
		code, body := getPath(t, a.h, c.path)
		if code != http.StatusOK {
			t.Fatalf("GET %s = %d\n%s", c.path, code, body)
		}
		for _, s := range c.has {
			if !strings.Contains(body, s) {
				t.Errorf("GET %s lacks %s", c.path, s)
			}
		}
		golden.Check(t, filepath.Join("testdata", c.golden), []byte(body))
	}
	_, run := getPath(t, a.h, run1+"?node=node_2") // the row whose step made node_3
	for _, s := range []string{`href="/sessions/ses_1/runs/run_1/fork?node=node_3" hx-boost="false"`, `href="/sessions/ses_1/runs/run_1/restart" hx-boost="false"`} {
		if !strings.Contains(run, s) {
			t.Errorf("the run page lacks %s", s)
		}
	}
	for _, path := range []string{run1 + "/fork?node=node_9", run1 + "/fork", "/sessions/ses_1/runs/run_2/restart", run1 + "/handoff?node=node_9", run1 + "/fork?node=bogus"} {
		if code, _ := getPath(t, a.h, path); code != http.StatusNotFound {
			t.Errorf("GET %s = %d; want 404", path, code)
		}
	}
	a.disk.now = forkFlow(t, "1")
	if code, _ := getPath(t, a.h, run1+"/restart"); code != http.StatusConflict {
		t.Errorf("a restart of a run on the current version = %d; want 409", code)
	}
}

// A fork or restart without the form's token is refused before anything
// runs, and nothing is written.
func TestRunActionsRefuseWithoutToken(t *testing.T) {
	a := newActions(t)
	a.disk.now = forkFlow(t, "2")
	before := a.events(t)
	for _, path := range []string{run1 + "/fork?node=node_3", run1 + "/fork?node=node_1", run1 + "/restart"} {
		for _, token := range []string{"", strings.Repeat("0", 64)} {
			if rec := a.post(t, path, token, `{"topic": "y"}`); rec.Code != http.StatusForbidden {
				t.Errorf("POST %s with token %q = %d; want 403", path, token, rec.Code)
			}
		}
	}
	if after := a.events(t); after != before {
		t.Fatalf("%d events written by refused requests", after-before)
	}
}

// Fork here with an edited context goes on to a page whose stateToken
// continue_workflow accepts, at the same pending step on a new branch;
// a refused context shows the form again with why, nothing written.
func TestForkHereHandsOffAStateToken(t *testing.T) {
	a := newActions(t)
	before := a.events(t)
	rec := a.post(t, run1+"/fork?node=node_3", a.csrf, "{\n  \"topic\": \n}")
	if body := rec.Body.String(); rec.Code != http.StatusUnprocessableEntity || !strings.Contains(body, "context is not valid JSON") ||
		!strings.Contains(body, "line 3, column 1") || !strings.Contains(body, "&#34;topic&#34;: \n}</textarea>") {
		t.Fatalf("a bad context = %d\n%s", rec.Code, body)
	}
	if a.events(t) != before {
		t.Fatal("a refused fork wrote events")
	}

	rec = a.post(t, run1+"/fork?node=node_3", a.csrf, `{"topic": "y"}`)
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != run1+"/handoff?node=node_4" {
		t.Fatalf("fork = %d to %q; want 303 to node_4's hand-off", rec.Code, rec.Header().Get("Location"))
	}
	_, page := getPath(t, a.h, rec.Header().Get("Location"))
	m := regexp.MustCompile(`data-testid="state-token">([^<]+)<`).FindStringSubmatch(page)
	if m == nil || !strings.Contains(page, `href="/sessions/ses_1/runs/run_1?node=node_4"`) {
		t.Fatalf("the hand-off page shows no stateToken or link to node_4:\n%s", page)
	}
	st := html.UnescapeString(m[1])
	if !strings.Contains(page, html.EscapeString(`call continue_workflow with stateToken "`+st+`" and do the pending step.`)) {
		t.Fatal("the prompt to paste does not carry the stateToken")
	}
	s, ok := a.x.Continue(context.Background(), []byte(`{"stateToken":"`+st+`"}`)).(protocol.StepResult)
	if !ok || s.Pending.StepID != "c" {
		t.Fatalf("continue_workflow with the shown stateToken: %#v", s)
	}
	args := s.NextCall.Arguments
	args.Output = &protocol.Output{NotesMarkdown: "did c on the fork"}
	b, _ := json.Marshal(args)
	if _, ok := a.x.Continue(context.Background(), b).(protocol.CompleteResult); !ok {
		t.Fatal("the fork did not complete")
	}
	_, run := getPath(t, a.h, run1+"?node=node_4")
	if !strings.Contains(run, "Branch B starts here: forked in the Console") {
		t.Fatal("the run page does not show node_4's row as a fork from the Console")
	}
}

// Forking the first node and restarting on the current version each make
// a new run in the session; each run's page links to the other.
func TestRestartsLinkBothWays(t *testing.T) {
	a := newActions(t)
	rec := a.post(t, run1+"/fork?node=node_1", a.csrf, `{"topic": "again"}`)
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/sessions/ses_1/runs/run_2/handoff?node=node_4" {
		t.Fatalf("fork at the root = %d to %q", rec.Code, rec.Header().Get("Location"))
	}
	a.disk.now = forkFlow(t, "2")
	if rec := a.post(t, run1+"/restart", a.csrf, `{}`); rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "topic (string)") {
		t.Fatalf("a restart without the required topic = %d", rec.Code)
	}
	rec = a.post(t, run1+"/restart", a.csrf, `{"topic": "v2"}`)
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/sessions/ses_1/runs/run_3?node=node_5" {
		t.Fatalf("restart = %d to %q", rec.Code, rec.Header().Get("Location"))
	}
	_, old := getPath(t, a.h, run1)
	for _, s := range []string{"Restarted as <a href=\"/sessions/ses_1/runs/run_2\" hx-boost=\"false\"><code>run_2</code></a> on version 1",
		"Restarted as <a href=\"/sessions/ses_1/runs/run_3\" hx-boost=\"false\"><code>run_3</code></a> on version 2",
		`data-testid="superseded">superseded by run_3</span>`} {
		if !strings.Contains(old, s) {
			t.Errorf("run_1's page lacks %q", s)
		}
	}
	// The session's runs sidebar says so too.
	_, session := getPath(t, a.h, "/sessions/ses_1?run=run_3")
	if i := strings.Index(session, `data-run="run_1"`); i < 0 || !strings.Contains(session[i:strings.Index(session[i:], "</li>")+i], `data-testid="superseded">superseded by run_3</span>`) {
		t.Error("the runs sidebar does not mark run_1 superseded by run_3")
	}
	_, fresh := getPath(t, a.h, "/sessions/ses_1/runs/run_3")
	if !strings.Contains(fresh, `Restarts <a href="/sessions/ses_1/runs/run_1" hx-boost="false"><code>run_1</code></a>`) || strings.Contains(fresh, "drift-banner") {
		t.Fatal("run_3's page does not link to the run it restarts, or is drifted")
	}
}

// A fork runs under its parent's preferences: when the acknowledgement
// that made the node had switched to a mode that never stops and gone past
// the user's approval, the fork is blocked, the page says so and why, and
// nothing is branched.
func TestForkHereBlockedSaysSo(t *testing.T) {
	a := newActions(t)
	a.disk.now = executetest.Catalog(t, fstest.MapFS{"wr.ask.json": {Data: []byte(`{"id":"wr.ask","name":"Ask","description":"d","version":"1",
		"steps":[{"id":"ask","title":"Ask","prompt":"ask","userDependency":{"reason":"needs_user_approval","summary":"approve","requestedFromUser":"Approve?"}},
		{"id":"do","title":"Do","prompt":"do"}]}`)}})
	first := a.x.Start(context.Background(), []byte(`{"workflowId":"wr.ask"}`)).(protocol.StepResult)
	b, _ := json.Marshal(map[string]any{"stateToken": first.StateToken, "ackToken": first.AckToken,
		"output": map[string]any{"notesMarkdown": "went on"}, "preferences": map[string]any{"autonomy": "full_auto_never_stop"}})
	if _, ok := a.x.Continue(context.Background(), b).(protocol.StepResult); !ok {
		t.Fatal("the run did not go past the approval")
	}
	_, form := getPath(t, a.h, "/sessions/ses_2/runs/run_1/fork?node=node_2")
	if !strings.Contains(form, `data-testid="fork-prefs"`) || !strings.Contains(form, "runs under Guided; risk conservative") {
		t.Fatal("the form does not say the fork runs under the parent's preferences")
	}
	rec := a.post(t, "/sessions/ses_2/runs/run_1/fork?node=node_2", a.csrf, `{}`)
	body := rec.Body.String()
	if rec.Code != http.StatusOK || !strings.Contains(body, "The fork was blocked: nothing was branched.") || !strings.Contains(body, "USER_ONLY_DEPENDENCY") {
		t.Fatalf("blocked fork = %d\n%s", rec.Code, body)
	}
	if _, run := getPath(t, a.h, "/sessions/ses_2/runs/run_1"); strings.Contains(run, "forked from") {
		t.Fatal("a blocked fork branched")
	}
}
