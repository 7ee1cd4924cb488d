package console_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/golden"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/server/sources"
	"github.com/workrail/workrail/workflows"
)

// forkedSession is a wr.hello session an agent took one step, then forked
// from the Console at node_2, its clock a minute on for each call.
func forkedSession(t *testing.T) (*memstore.Store, http.Handler) {
	t.Helper()
	st := memstore.New()
	tick := time.Date(2026, 3, 4, 5, 0, 7, 0, time.UTC)
	clock := func() time.Time { tick = tick.Add(time.Minute); return tick }
	x := execute.New(st, executetest.Ring(t), executetest.Catalog(t, workflows.FS), workflow.Preferences{}, clock, t.Logf)
	s, ok := x.Start(context.Background(), json.RawMessage(`{"workflowId":"wr.hello"}`)).(protocol.StepResult)
	if !ok {
		t.Fatal("start failed")
	}
	args := s.NextCall.Arguments
	args.Output = &protocol.Output{NotesMarkdown: "Looked around.\n\nNothing odd."}
	b, _ := json.Marshal(args)
	if _, ok := x.Continue(context.Background(), b).(protocol.StepResult); !ok {
		t.Fatal("continue failed")
	}
	if r, _ := x.Fork(context.Background(), execute.Place{Session: 1, Run: 1, Node: 2}, []byte(`{"topic": "y"}`)); r.ResultKind() != protocol.KindStep {
		t.Fatalf("fork: %s", r.RenderedText())
	}
	return st, serve(t, st, executetest.Catalog(t, workflows.FS))
}

// The event history lists the log in order with each event's time, kind,
// run, node, a summary and its JSON in a <details>; the Console's writes
// say so; the session page links it.
func TestEventsPage(t *testing.T) {
	st, h := forkedSession(t)
	evs, _, err := st.Events(1)
	if err != nil {
		t.Fatal(err)
	}
	code, body := getPath(t, h, "/sessions/ses_1/events")
	if code != http.StatusOK {
		t.Fatalf("GET events = %d", code)
	}
	golden.Check(t, filepath.Join("testdata", "events.html"), []byte(body))
	if n := strings.Count(body, `data-testid="event-row"`); n != len(evs) {
		t.Fatalf("%d rows; want the log's %d events", n, len(evs))
	}
	consoleWrote := 0
	for _, e := range evs {
		if e.Origin == event.OriginConsole {
			consoleWrote++
		}
	}
	if consoleWrote == 0 || strings.Count(body, `data-testid="origin"`) != consoleWrote {
		t.Fatalf("%d rows say the Console wrote them; want %d", strings.Count(body, `data-testid="origin"`), consoleWrote)
	}
	for _, want := range []string{`<time datetime="2026-03-04T05:01:07.000Z" title="2026-03-04 05:01:07 UTC"`, "session started",
		"output of greet: Looked around.", "attempt 10001 advanced → node_3", "forked from non tip: node_1 → node_3", "<details><summary>JSON</summary>", `&#34;appendedAt&#34;:`} {
		if !strings.Contains(body, want) {
			t.Errorf("the events page does not hold %q", want)
		}
	}
	if _, page := getPath(t, h, "/sessions/ses_1"); !strings.Contains(page, `href="/sessions/ses_1/events"`) {
		t.Error("the session page does not link its event history")
	}
	for _, path := range []string{"/sessions/ses_9/events", "/sessions/bogus/events", "/sessions/ses_9/events.json"} {
		if code, _ := getPath(t, h, path); code != http.StatusNotFound {
			t.Errorf("GET %s = %d; want 404", path, code)
		}
	}
}

// events.json is the whole log, each event as stored with its time.
func TestEventsJSON(t *testing.T) {
	st, h := forkedSession(t)
	evs, _, _ := st.Events(1)
	code, body := getPath(t, h, "/sessions/ses_1/events.json")
	if code != http.StatusOK {
		t.Fatalf("GET events.json = %d", code)
	}
	var got struct {
		SessionID string `json:"sessionId"`
		Health    string `json:"health"`
		Events    []struct {
			Time  string          `json:"time"`
			Event json.RawMessage `json:"event"`
		} `json:"events"`
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatalf("events.json does not parse: %v\n%s", err, body)
	}
	if got.SessionID != "ses_1" || got.Health != "healthy" || len(got.Events) != len(evs) {
		t.Fatalf("events.json: %s %s, %d events; want ses_1 healthy %d", got.SessionID, got.Health, len(got.Events), len(evs))
	}
	for i, e := range got.Events {
		want, _ := event.Encode(evs[i])
		if string(e.Event) != string(want) {
			t.Fatalf("event %d: %s\nwant the stored bytes %s", i+1, e.Event, want)
		}
		at, _ := evs[i].AppendedAt.Time()
		if e.Time != at.Format("2006-01-02T15:04:05.000Z") {
			t.Fatalf("event %d: time %q; want %s", i+1, e.Time, at)
		}
	}
}

// A log an earlier build wrote has no times: the pages say "—" and the
// JSON leaves the time out.
func TestEventsWithoutTimes(t *testing.T) {
	st := memstore.New()
	_, err := st.Create(func(tx execute.Tx) error {
		_, err := tx.Append(0, 0, &event.SessionCreatedData{CreatedAt: "2026-01-01T00:00:00Z"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	h := serve(t, st, executetest.Catalog(t, workflows.FS))
	_, body := getPath(t, h, "/sessions/ses_1/events")
	if !strings.Contains(body, `data-testid="time">—</span>`) || strings.Contains(body, "<time") {
		t.Fatal("an event without a time does not read —")
	}
	if _, body := getPath(t, h, "/sessions/ses_1/events.json"); strings.Contains(body, `"time"`) {
		t.Fatalf("events.json gives a time the log does not hold: %s", body)
	}
	if _, body := getPath(t, h, "/"); !strings.Contains(body, `data-testid="last-activity"><span class="meta" title="not recorded`) {
		t.Fatal("the sessions list gives a last activity time the log does not hold")
	}
}

// A branch the Console forked says so on its first row's panel, with
// the context keys it changed and both values, from the origin its events
// record; the agent's rows say nothing of it. A row says when its step was
// reached.
func TestNodePanelSaysWhoMadeIt(t *testing.T) {
	_, h := forkedSession(t)
	_, forked := getPath(t, h, "/sessions/ses_1/runs/run_1?node=node_3")
	if !strings.Contains(forked, "Branch B starts here: forked in the Console, context changed: topic") {
		t.Fatal("the Console's fork does not say it was made in the Console with topic changed")
	}
	if !strings.Contains(forked, `data-testid="context-diff"`) || !strings.Contains(forked, `<tr><th scope="row"><code>topic</code></th><td>(not set)</td><td>&#34;y&#34;</td></tr>`) {
		t.Fatalf("the fork's panel does not say what differs from the branch it left, with both values:\n%s", forked)
	}
	if !strings.Contains(forked, `reached <time datetime="2026-03-04T05:04:07.000Z"`) {
		t.Fatalf("the fork's panel does not say when its step was reached:\n%s", forked)
	}
	_, agents := getPath(t, h, "/sessions/ses_1/runs/run_1?node=node_2")
	if strings.Contains(agents, `data-testid="origin"`) || strings.Contains(agents, `data-testid="context-diff"`) {
		t.Fatal("the agent's row says the Console made it")
	}
}

// A row whose step went through says when, and how long it was pending
// before; a row still pending says neither.
func TestRunRowsSayWhenAndHowLong(t *testing.T) {
	_, h := forkedSession(t)
	_, page := getPath(t, h, "/sessions/ses_1/runs/run_1")
	if n := strings.Count(page, `data-testid="row-time"`); n != 1 { // A's rest is folded, B's step is pending
		t.Fatalf("%d rows say when; want the first step's", n)
	}
	if !strings.Contains(page, `<time datetime="PT120S" data-testid="took">2 min</time>`) {
		t.Fatalf("the first step's row does not say it took 2 min: %s", page)
	}
}

// A step of a file in the TypeScript format, skipped by its condition,
// that runs later because the context sent since satisfies it, is in the
// session's event history: the decision trace says which step ran out of
// order and why.
func TestEventsPageShowsAStepRunLate(t *testing.T) {
	user := t.TempDir()
	os.WriteFile(filepath.Join(user, "late.json"), []byte(`{"id":"wr.late","name":"Late","description":"d","version":"1","metricsProfile":"none",
		"steps":[{"id":"deep-dive","title":"Dive deep","prompt":"Dive.","runCondition":{"var":"depth","equals":"deep"}},
		{"id":"triage","title":"Triage","prompt":"Triage and send depth."},{"id":"wrap-up","title":"Wrap up","prompt":"Wrap up."}]}`), 0o644)
	reg, err := sources.New(workflows.FS, []catalog.Source{{Kind: catalog.User, Path: user}})
	if err != nil {
		t.Fatal(err)
	}
	st := memstore.New()
	x := execute.New(st, executetest.Ring(t), reg, workflow.Preferences{}, executetest.Clock, t.Logf)
	s, ok := x.Start(context.Background(), json.RawMessage(`{"workflowId":"user.late"}`)).(protocol.StepResult)
	if !ok || s.Pending.StepID != "triage" {
		t.Fatalf("start: %+v", s)
	}
	b, _ := json.Marshal(map[string]any{"stateToken": s.NextCall.Arguments.StateToken, "ackToken": s.NextCall.Arguments.AckToken,
		"output": map[string]any{"notesMarkdown": "Triaged: the bug needs a deep look."}, "context": map[string]any{"depth": "deep"}})
	next, ok := x.Continue(context.Background(), b).(protocol.StepResult)
	if !ok || next.Pending.StepID != "deep-dive" {
		t.Fatalf("the advance that satisfied deep-dive went to %+v", next)
	}
	code, body := getPath(t, serve(t, st, reg), "/sessions/ses_1/events")
	if code != http.StatusOK {
		t.Fatalf("GET events = %d", code)
	}
	for _, want := range []string{"skipped step runs late", "deep-dive (Dive deep) was skipped earlier"} {
		if !strings.Contains(body, want) {
			t.Errorf("the event history lacks %q", want)
		}
	}
}
