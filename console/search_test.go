package console_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/workrail/workrail/console"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/golden"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/resume"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/store/storetest"
	"github.com/workrail/workrail/workflows"
)

// fakeResumer answers with fixed matches and keeps the queries it was
// asked: the page's side of the boundary, tested without the index.
type fakeResumer struct {
	matches []resume.Match
	err     error
	asked   []resume.Query
}

func (f *fakeResumer) Matches(q resume.Query) ([]resume.Match, error) {
	f.asked = append(f.asked, q)
	return f.matches, f.err
}

// matchOrder is the sessions a search page lists, in order, with their
// tiers as the page says them.
func matchOrder(page string) []string {
	var out []string
	re := regexp.MustCompile(`data-testid="match" data-session="(ses_\d+)" data-tier="([a-z_]+)"><p class="match-head"><span class="[^"]*" data-testid="tier">([^<]*)<`)
	for _, m := range re.FindAllStringSubmatch(page, -1) {
		out = append(out, m[1]+" "+m[2]+" "+m[3])
	}
	return out
}

// The page lists the matches as the resumer ranked them, each with its
// tier in words, its session's title, workflow, snippet and a link to its
// run at the preferred tip; the query in the URL reaches the resumer as
// resume_session would parse it.
func TestSearchListsWhatResumeOffers(t *testing.T) {
	st := memstore.New()
	x := execute.New(st, executetest.Ring(t), executetest.Catalog(t, workflows.FS), workflow.Preferences{}, executetest.Clock, t.Logf)
	var hash engine.WorkflowHash
	for _, notes := range []string{"Looked at the flaky parser test.", "Fixed the **auth** bug in login.", ""} {
		s := x.Start(context.Background(), json.RawMessage(`{"workflowId":"wr.hello"}`)).(protocol.StepResult)
		hash = s.Workflow.Hash
		if notes != "" {
			args := s.NextCall.Arguments
			args.Output.NotesMarkdown = notes
			raw, _ := json.Marshal(args)
			x.Continue(context.Background(), raw)
		}
	}
	// A snippet names the step its notes report on, by its title in the
	// pinned workflow.
	run := func(tip engine.NodeID, snippet string) resume.Run {
		r := resume.Run{ID: 1, WorkflowID: "wr.hello", WorkflowHash: hash, WorkflowName: "Hello, WorkRail", Tip: tip, Status: project.InProgress, Snippet: snippet}
		if snippet != "" {
			r.SnippetStep = "greet"
		}
		return r
	}
	fake := &fakeResumer{matches: []resume.Match{
		{Session: 2, Tier: resume.TierNotes, SameRepo: true, Run: run(2, "Fixed the **auth** bug in login.")},
		{Session: 3, Tier: resume.TierWorkflow, Run: run(1, "")},
		{Session: 1, Tier: resume.TierRecency, Run: run(2, "Looked at the flaky parser test.")},
	}}
	h := serveWith(t, st, executetest.Catalog(t, workflows.FS), func(c *console.Config) { c.Resumer = fake })

	code, page := getPath(t, h, "/search?q=auth+Bug&gitBranch=fix%2Fauth&workspacePath=%2Fsrc%2Fapp")
	if code != http.StatusOK {
		t.Fatalf("GET /search = %d", code)
	}
	golden.Check(t, filepath.Join("testdata", "search.html"), []byte(page))
	want := []string{"ses_2 notes words in its latest notes", "ses_3 workflow words in its workflow", "ses_1 recency most recent activity"}
	if got := matchOrder(page); !reflect.DeepEqual(got, want) {
		t.Errorf("the page lists %q; want %q", got, want)
	}
	for _, s := range []string{
		`href="/sessions/ses_2/runs/run_1?node=node_2" data-testid="open-tip"`, // where a resume continues
		`<strong>auth</strong>`,                                 // the snippet, through markdown
		`Notes for <strong>Greet the user</strong>`,             // the step the snippet reports on, by its title
		`class="row-link">Fixed the **auth** bug in login.</a>`, // the session's title, as the sessions list shows it
		`<span class="badge">this repository</span>`,
		`<details open>`, // the query uses the git and workspace fields: they show
	} {
		if !strings.Contains(page, s) {
			t.Errorf("the page lacks %s", s)
		}
	}
	if want := resume.NewQuery("auth Bug", "fix/auth", "", "/src/app"); len(fake.asked) != 1 || !reflect.DeepEqual(fake.asked[0], want) {
		t.Errorf("the resumer was asked %+v; want %+v", fake.asked, want)
	}
	if !strings.Contains(page, `<form class="header-search" role="search" method="get" action="/search"`) {
		t.Error("the header offers no search")
	}
	// The page's own form sends every field; htmx is told the query's
	// own URL to show.
	req := httptest.NewRequest(http.MethodGet, "/search?q=auth&gitBranch=&gitHeadSha=&workspacePath=", nil)
	req.Header.Set("HX-Request", "true")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if got := rec.Header().Get("HX-Push-Url"); rec.Code != http.StatusOK || got != "/search?q=auth" {
		t.Errorf("an htmx search = %d, HX-Push-Url %q; want /search?q=auth", rec.Code, got)
	}

	for _, c := range []struct {
		name, path string
		err        error
		code       int
		says       string
		asks       bool
	}{
		{"a relative workspace is refused before asking", "/search?q=x&workspacePath=src/app", nil, http.StatusOK, "The workspace must be an absolute path", false},
		{"nothing asked: what a bare resume_session offers", "/search", nil, http.StatusOK, `data-testid="match"`, true},
		{"the resumer fails", "/search?q=x", errors.New("index unreadable"), http.StatusInternalServerError, "could not show the sessions to resume", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			fake.asked, fake.err = nil, c.err
			code, page := getPath(t, h, c.path)
			if code != c.code || !strings.Contains(page, c.says) {
				t.Errorf("GET %s = %d; want %d saying %q", c.path, code, c.code, c.says)
			}
			if asked := len(fake.asked) == 1; asked != c.asks {
				t.Errorf("GET %s asked the resumer %d times", c.path, len(fake.asked))
			}
		})
	}
}

// Without a resumer (resume_session turned off) there is no search: no
// form in the header, and /search is not found.
func TestNoSearchWithoutAResumer(t *testing.T) {
	h := consoleWith(t, memstore.New(), 1)
	if code, _ := getPath(t, h, "/search?q=x"); code != http.StatusNotFound {
		t.Errorf("GET /search = %d; want 404", code)
	}
	if _, page := getPath(t, h, "/"); strings.Contains(page, "header-search") {
		t.Error("the header offers a search nothing answers")
	}
}

// Over a real store and the real use case, the page lists exactly what
// resume_session answers, in its order: a session whose notes hold the
// words first, its link at the preferred tip (a checkpoint, when the
// agent checkpointed last), and never a damaged session, however well it
// would rank.
func TestSearchListsWhatResumeSessionAnswers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "workrail.db")
	st := openStore(t, path)
	wf := executetest.Catalog(t, workflows.FS)
	x := execute.New(st, executetest.Ring(t), wf, workflow.Preferences{}, executetest.Clock, t.Logf)
	noted := func(id engine.WorkflowID, notes string) protocol.StepResult {
		t.Helper()
		s := x.Start(context.Background(), json.RawMessage(`{"workflowId":"`+string(id)+`"}`)).(protocol.StepResult)
		if notes == "" {
			return s
		}
		args := s.NextCall.Arguments
		args.Output.NotesMarkdown = notes
		raw, _ := json.Marshal(args)
		next, ok := x.Continue(context.Background(), raw).(protocol.StepResult)
		if !ok {
			t.Fatal("advance failed")
		}
		return next
	}
	noted("wr.hello", "Fixed the auth bug in login.")         // ses_1
	noted("wr.hello", "Looked at the auth flow; no bug yet.") // ses_2
	at := noted("wr.hello", "Chased the auth bug.")           // ses_3, checkpointed below
	raw, _ := json.Marshal(map[string]any{"stateToken": at.StateToken, "checkpointToken": at.CheckpointToken,
		"output": map[string]string{"notesMarkdown": "Still chasing the auth bug, in the parser now."}})
	if r, ok := x.Checkpoint(context.Background(), raw).(protocol.StepResult); !ok {
		t.Fatalf("checkpoint answered %s", r.ResultKind())
	}
	noted("wr.hello", "The auth bug again, the latest of all.") // ses_4, damaged below
	noted("wr.code_review", "")                                 // ses_5
	st.Close()
	damageLastEvent(t, path, 4)
	st = openStore(t, path)
	x = execute.New(st, executetest.Ring(t), wf, workflow.Preferences{}, executetest.Clock, t.Logf)
	h := serveWith(t, st, wf, func(c *console.Config) { c.Resumer = x })

	answer, ok := x.ResumeSession(context.Background(), []byte(`{"query":"Auth BUG"}`)).(protocol.ResumeResult)
	if !ok || len(answer.Candidates) == 0 {
		t.Fatalf("resume_session answered %+v", answer)
	}
	var want []string
	for _, c := range answer.Candidates {
		want = append(want, c.Session.SessionID.String()+" "+string(c.Tier)+" "+tierText(c.Tier))
	}
	code, page := getPath(t, h, "/search?q=Auth+BUG")
	if code != http.StatusOK {
		t.Fatalf("GET /search = %d", code)
	}
	if got := matchOrder(page); !reflect.DeepEqual(got, want) {
		t.Errorf("the page lists %q;\nresume_session answers %q", got, want)
	}
	if strings.Contains(page, `data-session="ses_4"`) {
		t.Error("the page offers the damaged session")
	}
	if answer.Candidates[0].Tier != resume.TierNotes || len(answer.Candidates) != 4 {
		t.Errorf("resume_session answers %q; want the healthy four, one whose notes hold the words first", want)
	}
	// ses_3's tip is its checkpoint, whose notes are its snippet.
	if !strings.Contains(page, `href="/sessions/ses_3/runs/run_1?node=node_3" data-testid="open-tip"`) || !strings.Contains(page, "Still chasing the auth bug, in the parser now.") {
		t.Error("ses_3 is not offered at its checkpoint, with its notes")
	}
	// Each snippet names its step: greet's notes, and the checkpoint's at the step pending there.
	for _, s := range []string{`Notes for <strong>Greet the user</strong>`, `Notes for <strong>Look around the workspace</strong>`} {
		if !strings.Contains(page, s) {
			t.Errorf("the page lacks %q", s)
		}
	}
	// When nothing matches, "the most recent sessions" are the ones
	// written last, as the sessions list orders them: ses_3's log, the
	// longest, does not put it first.
	code, page = getPath(t, h, "/search?q=zebra")
	recency := " recency " + tierText(resume.TierRecency)
	want = []string{"ses_5" + recency, "ses_3" + recency, "ses_2" + recency, "ses_1" + recency}
	if got := matchOrder(page); code != http.StatusOK || !reflect.DeepEqual(got, want) || !strings.Contains(page, "These are the most recent sessions") {
		t.Errorf("GET /search?q=zebra = %d, lists %q; want %q", code, got, want)
	}
}

// tierText is the page's words for a tier, as its tests expect them.
func tierText(t resume.Tier) string {
	return map[resume.Tier]string{resume.TierHeadSHA: "same HEAD commit", resume.TierBranch: "same git branch",
		resume.TierNotes: "words in its latest notes", resume.TierWorkflow: "words in its workflow", resume.TierRecency: "most recent activity"}[t]
}

// damageLastEvent flips a byte of session id's last event in the closed
// database file at path: its log no longer verifies from there.
func damageLastEvent(t *testing.T, path string, id uint64) {
	t.Helper()
	err := storetest.Update(path, func(tx storetest.Tx) error {
		events := tx.Events(id)
		k, v := events.Cursor().Last()
		v = bytes.Clone(v)
		v[10] ^= 0x20
		return events.Put(k, v)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A query no session matches says so first; the sessions offered on
// recent activity alone follow, named as such. A query that asks nothing
// beyond recency is not a miss.
func TestSearchSaysNoMatch(t *testing.T) {
	st := memstore.New()
	x := execute.New(st, executetest.Ring(t), executetest.Catalog(t, workflows.FS), workflow.Preferences{}, executetest.Clock, t.Logf)
	x.Start(context.Background(), json.RawMessage(`{"workflowId":"wr.hello"}`))
	recent := resume.Match{Session: 1, Tier: resume.TierRecency, Run: resume.Run{ID: 1, WorkflowID: "wr.hello", Tip: 1, Status: project.InProgress}}
	notes := recent
	notes.Tier = resume.TierNotes
	for _, c := range []struct {
		name, path string
		found      []resume.Match
		miss       bool
		says       string
	}{
		{"words, only recent sessions", "/search?q=zebra", []resume.Match{recent}, true, "No session matches &#34;zebra&#34;.</strong> These are the most recent sessions"},
		{"a branch, nothing at all", "/search?gitBranch=feat%2Fx", nil, true, "No session matches branch feat/x.</strong>"},
		{"words that match", "/search?q=hello", []resume.Match{notes, recent}, false, `data-tier="notes"`},
		{"nothing asked", "/search", []resume.Match{recent}, false, `data-tier="recency"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := serveWith(t, st, executetest.Catalog(t, workflows.FS), func(cfg *console.Config) { cfg.Resumer = &fakeResumer{matches: c.found} })
			_, page := getPath(t, h, c.path)
			if got := strings.Contains(page, `data-testid="no-match"`); got != c.miss || !strings.Contains(page, c.says) {
				t.Errorf("GET %s: no-match %v, want %v saying %q", c.path, got, c.miss, c.says)
			}
			if c.miss && len(c.found) > 0 && strings.Index(page, "no-match") > strings.Index(page, `data-testid="match"`) {
				t.Errorf("GET %s lists a suggestion before saying nothing matches", c.path)
			}
		})
	}
}
