package e2e

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/workrail/workrail/server/gitsource/gitsourcetest"
)

// reviewFlow is team.review at version v: three steps whose prompts say v.
func reviewFlow(v string) string {
	return fmt.Sprintf(`{"id":"team.review","name":"Team review","description":"Review the team's way","version":%q,"steps":[
		{"id":"read","title":"Read","prompt":"Read the diff (%s)."},
		{"id":"comment","title":"Comment","prompt":"Comment on it (%s)."},
		{"id":"wrap","title":"Wrap up","prompt":"Wrap up (%s)."}]}`, v, v, v, v)
}

func flowOf(id, name string) string {
	return fmt.Sprintf(`{"id":%q,"name":%q,"description":"d","version":"1","steps":[{"id":"a","title":"A","prompt":"do a"}]}`, id, name)
}

// sourcesJSON is `workrail sources [sync] --json`: the exit code and the
// repositories' states by address.
func sourcesJSON(t *testing.T, home string, args ...string) (int, map[string]map[string]any) {
	t.Helper()
	code, out, stderr := command(t, home, append([]string{"sources", "--json"}, args...)...)
	var l struct{ Sources []map[string]any }
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("workrail sources %v: exit %d: %v\n%s%s", args, code, err, out, stderr)
	}
	repos := map[string]map[string]any{}
	for _, s := range l.Sources {
		if s["kind"] == "repo" {
			repos[s["url"].(string)] = s
		}
	}
	return code, repos
}

// listed is list_workflows' workflows by id.
func listed(t *testing.T, c *client.Client) (result, map[string]map[string]any) {
	t.Helper()
	r := call(t, c, "list_workflows", map[string]any{})
	byID := map[string]map[string]any{}
	for _, w := range r.S["workflows"].([]any) {
		byID[str(w.(map[string]any), "id")] = w.(map[string]any)
	}
	return r, byID
}

// A team's workflows from git, through the real binary: a private
// repository over HTTP (git's own http-backend, behind basic auth) with
// the token written in its address, a file:// one, and one that does not
// exist. The daemon fetches at start in the background; the two that
// exist list with their repository and commit (a wr.* id renamed, the
// later repository winning an id both define), the missing one is a
// warning and leaves the others served. A run pins the commit it started
// on and keeps running after a pushed commit and a force-push are
// synced; with the server killed the cached copy serves, with a warning
// saying when it last synced. The token is in none of the database, the
// logs, the cache, the pages, the exports or any answer.
func TestGitSources(t *testing.T) {
	const token = "tok-9Zq4HcWm2Lr7sVx1"
	srv := gitsourcetest.NewServer(t, token)
	flows := srv.Repo(t, "flows")
	c1 := flows.Commit("first", map[string]string{"workflows/review.json": reviewFlow("1"), "workflows/shared.json": flowOf("team.shared", "Shared, from flows"),
		"workflows/core.json": flowOf("wr.core", "Claims wr")})
	local := gitsourcetest.NewRepo(t, t.TempDir(), "local")
	local.Commit("first", map[string]string{"shared.json": flowOf("team.shared", "Shared, from local"), "local.json": flowOf("team.local", "Local")})
	shown := srv.RepoURL("flows")
	withToken := strings.Replace(shown, "http://", "http://x-access-token:"+token+"@", 1)

	home := newHome(t)
	cfg, _ := json.Marshal(map[string]any{"workflowReposSyncMinutes": 0, "workflowRepos": []map[string]string{
		{"url": withToken, "path": "workflows"}, {"url": local.FileURL()}, {"url": "file:///nowhere/none.git"}}})
	if err := os.WriteFile(filepath.Join(home, "config.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	daemon := startDaemon(t, home)
	sh := startShimFull(t, home)
	c := sh.c
	notified := make(chan string, 8)
	c.GetTransport().SetNotificationHandler(func(n mcp.JSONRPCNotification) { notified <- n.Method })

	// The daemon started at once; its first fetch ends in the background.
	var list result
	var byID map[string]map[string]any
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if list, byID = listed(t, c); byID["team.review"] != nil && byID["team.local"] != nil || time.Now().After(deadline) {
			break
		}
	}
	review := byID["team.review"]
	if str(review, "source", "kind") != "repo" || str(review, "source", "repo", "url") != shown || str(review, "source", "repo", "commit") != c1 {
		t.Fatalf("team.review lists as %v\n%s", review["source"], list.Text)
	}
	if str(byID["team.shared"], "name") != "Shared, from local" || byID["repo.core"] == nil || byID["wr.core"] != nil {
		t.Fatalf("the conflict and the reserved id:\n%s", list.Text)
	}
	for _, want := range []string{"from repository " + shown + " at commit " + c1[:12], "Of two repositories the later in workflowRepos wins.",
		"Warning SOURCE_UNAVAILABLE: file:///nowhere/none.git could not be fetched"} {
		if !strings.Contains(list.Text, want) {
			t.Errorf("list_workflows does not say %q:\n%s", want, list.Text)
		}
	}

	start := call(t, c, "start_workflow", map[string]any{"workflowId": "team.review"})
	mustKind(t, start, "step")
	if !strings.Contains(str(start.S, "pending", "prompt"), "(1)") {
		t.Fatalf("started on %s", start.Text)
	}
	session := str(start.S, "session", "sessionId")

	// A pushed commit is synced, and listening clients are told; the run
	// goes on on its commit.
	time.Sleep(300 * time.Millisecond) // the shim opens its stream after initialize
	for len(notified) > 0 {
		<-notified // the first fetch's
	}
	c2 := flows.Commit("second", map[string]string{"workflows/review.json": reviewFlow("2")})
	if _, repos := sourcesJSON(t, home, "sync"); repos[shown]["commit"] != c2 || repos[shown]["error"] != nil {
		t.Fatalf("after a push: %v", repos[shown])
	}
	select {
	case m := <-notified:
		if m != "notifications/prompts/list_changed" {
			t.Errorf("notified %q", m)
		}
	case <-time.After(8 * time.Second):
		t.Errorf("no list_changed after a sync moved a repository")
	}
	if _, byID = listed(t, c); str(byID["team.review"], "source", "repo", "commit") != c2 || str(byID["team.review"], "version") != "2" {
		t.Fatalf("the catalog after the sync: %v", byID["team.review"])
	}
	next := advance(t, c, start, "Read it.")
	mustKind(t, next, "step")
	if !strings.Contains(str(next.S, "pending", "prompt"), "Comment on it (1).") {
		t.Fatalf("the pinned run moved on to %s", next.Text)
	}
	if again := rehydrate(t, c, str(next.S, "stateToken")); !strings.Contains(again.Text, "PINNED_WORKFLOW_DRIFTED") {
		t.Errorf("a rehydrate does not tell the drift:\n%s", again.Text)
	}

	// A force-push is followed like any move.
	c3 := flows.Rewrite("rewritten", map[string]string{"workflows/review.json": reviewFlow("3")})
	if _, repos := sourcesJSON(t, home, "sync"); repos[shown]["commit"] != c3 {
		t.Fatalf("after a force-push: %v", repos[shown])
	}

	// The server goes: the cached copy serves, and listings say since when.
	srv.Close()
	code, repos := sourcesJSON(t, home, "sync")
	if code != 1 || repos[shown]["commit"] != c3 || repos[shown]["error"] == nil || repos[local.FileURL()]["error"] != nil {
		t.Fatalf("with the server gone: exit %d, %v", code, repos[shown])
	}
	list, byID = listed(t, c)
	if str(byID["team.review"], "source", "repo", "commit") != c3 || !strings.Contains(list.Text, "Warning SOURCE_STALE: "+shown+" could not be fetched; its workflows are those of commit "+c3[:12]) {
		t.Fatalf("listed offline:\n%s", list.Text)
	}
	stale := false
	for _, w := range list.S["sourceWarnings"].([]any) {
		w := w.(map[string]any)
		stale = stale || str(w, "code") == "SOURCE_STALE" && str(w, "source", "repo", "url") == shown && str(w, "lastSynced") != ""
	}
	if !stale {
		t.Errorf("no structured SOURCE_STALE warning: %s", list.Raw)
	}
	if done := advance(t, c, next, "Commented."); !strings.Contains(str(done.S, "pending", "prompt"), "Wrap up (1).") {
		t.Fatalf("offline, the pinned run: %s", done.Text)
	}

	// Where the run's workflow came from is recorded and exported.
	_, bundle, _ := command(t, home, "export", session)
	_, md, _ := command(t, home, "export", session, "--markdown")
	if !strings.Contains(bundle, `"repo":{"commit":"`+c1+`","url":"`+shown+`"}`) || !strings.Contains(md, "Read from repository `"+shown+"` at commit `"+c1+"`") {
		t.Errorf("the exports do not name the repository and commit:\n%s", md)
	}

	// The token is nowhere WorkRail writes or answers.
	texts := map[string]string{"list_workflows": string(list.Raw) + list.Text, "export": bundle, "export --markdown": md}
	inspect := call(t, c, "inspect_workflow", map[string]any{"workflowId": "team.review", "stateToken": str(next.S, "stateToken")})
	texts["inspect_workflow"] = string(inspect.Raw) + inspect.Text
	texts["the daemon's output"] = daemon.stdout.String() + daemon.stderr.String()
	for _, args := range [][]string{{"sources"}, {"sources", "--json"}, {"config"}, {"status", "--json"}, {"doctor"}} {
		_, out, errs := command(t, home, args...)
		texts["workrail "+strings.Join(args, " ")] = out + errs
	}
	auth, bearer := ownerAuth(t, home)
	base := mustInfo(t, home).URL
	for _, page := range []string{"/", "/workflows", "/workflows/team.review", "/sources", "/config", "/sessions/" + session,
		"/sessions/" + session + "/runs/run_1", "/sessions/" + session + "/events", "/sessions/" + session + "/events.json"} {
		code, _, body := get(t, base+page, "", auth, bearer)
		if code != 200 {
			t.Errorf("GET %s = %d", page, code)
		}
		texts["GET "+page] = body
	}
	if !strings.Contains(texts["GET /sources"], shown) || !strings.Contains(texts["GET /sessions/"+session+"/runs/run_1"], c1[:12]) ||
		!strings.Contains(texts["GET /config"], shown) || !strings.Contains(texts["GET /sessions/"+session+"/events"], "from "+shown+" at "+c1[:12]) {
		t.Errorf("the pages do not name the repository (and its commit)")
	}
	// Sync now is the owner's, and CSRF-checked: without the owner's
	// credential, or with it but not the form's token, nothing is fetched.
	_, before := sourcesJSON(t, home)
	for _, tc := range []struct {
		hdr  []string
		want int
	}{{nil, http.StatusUnauthorized}, {[]string{auth, bearer}, http.StatusForbidden}} {
		req, _ := http.NewRequest(http.MethodPost, base+"/sources/sync", strings.NewReader("csrf=guess"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for i := 0; i+1 < len(tc.hdr); i += 2 {
			req.Header.Set(tc.hdr[i], tc.hdr[i+1])
		}
		resp, err := httpClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("POST /sources/sync with %d headers = %d, want %d", len(tc.hdr)/2, resp.StatusCode, tc.want)
		}
	}
	if _, after := sourcesJSON(t, home); after[shown]["checkedAt"] != before[shown]["checkedAt"] {
		t.Errorf("a refused Sync now fetched: checked at %v, then %v", before[shown]["checkedAt"], after[shown]["checkedAt"])
	}
	for name, text := range texts {
		if strings.Contains(text, token) {
			t.Errorf("%s holds the token", name)
		}
	}
	filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSocket != 0 || filepath.Base(p) == "config.json" {
			return nil
		}
		if b, _ := os.ReadFile(p); strings.Contains(string(b), token) {
			t.Errorf("%s holds the token", p)
		}
		return nil
	})
	healthyDoctor(t, home)
}
