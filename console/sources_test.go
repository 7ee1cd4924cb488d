package console_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/workrail/workrail/console"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/workflows"
)

// fakeSources lists a folder and two repositories, one failing; a sync
// brings the failing one back.
type fakeSources struct{ synced int }

func (f *fakeSources) List() console.SourceList {
	at := time.Date(2026, 3, 4, 4, 6, 7, 0, time.UTC)
	failing := console.SourceState{Kind: catalog.Repo, URL: "https://example.com/team.git", Ref: "main", Commit: strings.Repeat("b", 40),
		SyncedAt: at, CheckedAt: at, Error: "connection refused"}
	if f.synced > 0 {
		failing.Error, failing.Commit = "", strings.Repeat("c", 40)
	}
	return console.SourceList{SyncMinutes: 15, Sources: []console.SourceState{
		{Kind: catalog.Bundled}, {Kind: catalog.User, Path: "/home/dev/.local/share/workrail/workflows"},
		{Kind: catalog.Repo, URL: "https://example.com/company.git", Path: "workflows", Commit: strings.Repeat("a", 40), SyncedAt: at, CheckedAt: at,
			Skipped: []console.SkippedFile{{File: "workflows/link.json", Reason: "a symbolic link: not written"}}},
		failing,
	}}
}

func (f *fakeSources) Sync(context.Context) console.SourceList { f.synced++; return f.List() }

// The sources page lists every source and each repository's commit, last
// fetch and failure; "Sync now" is a CSRF-checked post that fetches and
// shows the sources as the fetch left them.
func TestSourcesPage(t *testing.T) {
	src := &fakeSources{}
	h := serveWith(t, memstore.New(), executetest.Catalog(t, workflows.FS), func(c *console.Config) { c.Sources = src })
	code, page := getPath(t, h, "/sources")
	if code != http.StatusOK {
		t.Fatalf("GET /sources = %d", code)
	}
	for _, want := range []string{`data-kind="bundled"`, "/home/dev/.local/share/workrail/workflows", "https://example.com/company.git",
		">aaaaaaaaaaaa<", "connection refused", "Serving the copy fetched before.", "workflows/link.json", `data-testid="sync-now"`, "every 15 minutes"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	post := func(csrf string) (int, string) {
		form := url.Values{}
		if csrf != "" {
			form.Set("csrf", csrf)
		}
		req := httptest.NewRequest(http.MethodPost, "/sources/sync", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}
	if code, _ := post(""); code != http.StatusForbidden || src.synced != 0 {
		t.Fatalf("a sync without the form's token: %d, %d syncs", code, src.synced)
	}
	csrf := regexp.MustCompile(`name="csrf" value="([0-9a-f]{64})"`).FindStringSubmatch(page)
	if csrf == nil {
		t.Fatal("no CSRF field in the sync form")
	}
	code, page = post(csrf[1])
	if code != http.StatusOK || src.synced != 1 || !strings.Contains(page, `data-testid="synced"`) || strings.Contains(page, "connection refused") ||
		!strings.Contains(page, ">cccccccccccc<") {
		t.Fatalf("after the sync (%d, %d syncs):\n%s", code, src.synced, page)
	}
	// Without sources the page is not there.
	if code, _ := getPath(t, serve(t, memstore.New(), executetest.Catalog(t, workflows.FS)), "/sources"); code != http.StatusNotFound {
		t.Errorf("GET /sources with no sources = %d", code)
	}
}

type fixedCatalog struct{ c *catalog.Catalog }

func (f fixedCatalog) Catalog(string) *catalog.Catalog { return f.c }

// The Workflows page lists a repository's workflows under their
// repository and commit, warns of a repository that could not be
// fetched, and links to the sources page; a workflow's page names its
// repository and commit.
func TestWorkflowsOfRepositories(t *testing.T) {
	src := catalog.Source{Kind: catalog.Repo, Path: "/cache/team", Repo: catalog.RepoRef{URL: "https://example.com/team.git", Ref: "main", Commit: strings.Repeat("d", 40)}}
	e, p := catalog.Load([]byte(`{"id":"team.review","name":"Team review","description":"d","version":"1","steps":[{"id":"a","title":"A","prompt":"a"}]}`), src, "/cache/team/review.json")
	if p != nil {
		t.Fatal(p)
	}
	cat := catalog.New([]catalog.Entry{e}, nil).WithWarnings([]catalog.SourceWarning{{Code: catalog.SourceStale, Source: src, Message: "https://example.com/team.git could not be fetched"}})
	h := serveWith(t, memstore.New(), fixedCatalog{cat}, func(c *console.Config) { c.Sources = &fakeSources{} })
	_, page := getPath(t, h, "/workflows")
	for _, want := range []string{"Repositories (workflowRepos)", "https://example.com/team.git (main) at dddddddddddd", `data-code="SOURCE_STALE"`, `href="/sources"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the Workflows page lacks %q", want)
		}
	}
	_, page = getPath(t, h, "/workflows/team.review")
	if !strings.Contains(page, `data-testid="workflow-repo">https://example.com/team.git</code>`) || !strings.Contains(page, `data-testid="workflow-commit">dddddddddddd<`) {
		t.Errorf("the workflow page does not name its repository and commit")
	}
}
