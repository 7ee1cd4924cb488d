package gitsource_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/workrail/workrail/server/gitsource"
	"github.com/workrail/workrail/server/gitsource/gitsourcetest"
	"github.com/workrail/workrail/server/giturl"
)

func flow(id string) string {
	return `{"id":"` + id + `","name":"N","description":"d","version":"1","steps":[{"id":"a","title":"A","prompt":"do a"}]}`
}

// set is a Set over repos with a fixed clock, the environment env and no
// credential helper but helper.
func set(t *testing.T, dir string, env map[string]string, helper gitsource.Helper, repos ...gitsource.Repo) *gitsource.Set {
	t.Helper()
	lim := gitsource.DefaultLimits()
	lim.FetchTime = 20 * time.Second
	return setWithin(t, dir, lim, env, helper, repos...)
}

func setWithin(t *testing.T, dir string, lim gitsource.Limits, env map[string]string, helper gitsource.Helper, repos ...gitsource.Repo) *gitsource.Set {
	t.Helper()
	if helper == nil {
		helper = func(context.Context, giturl.Address) (string, string, bool) { return "", "", false }
	}
	return gitsource.New(repos, gitsource.Options{Dir: dir, Getenv: func(k string) string { return env[k] }, Helper: helper, Limits: lim,
		Now: func() time.Time { return time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC) }})
}

func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

// A first sync writes the workflow files of the branch's commit, and
// only them; a sync that finds nothing new asks the server for its refs
// and nothing else; a pushed commit is fetched into a folder of its own
// while the folder of the commit before stays (a call may be reading
// it); a force-push is followed like any move.
func TestSyncFollowsTheBranch(t *testing.T) {
	srv := gitsourcetest.NewServer(t, "")
	repo := srv.Repo(t, "flows")
	first := repo.Commit("first", map[string]string{"workflows/a.json": flow("team.a"), "workflows/nested/b.json": flow("team.b"),
		"workflows/notes.md": "not a workflow", "README.md": "hi", "other/c.json": flow("team.c")})
	cache := t.TempDir()
	s := set(t, cache, nil, nil, gitsource.Repo{URL: srv.RepoURL("flows"), Path: "workflows"})
	if st := s.States()[0]; st.Commit != "" || st.URL != srv.RepoURL("flows") {
		t.Fatalf("before any sync: %+v", st)
	}
	if !s.Sync(context.Background(), false) {
		t.Fatalf("the first sync changed nothing: %+v", s.States()[0])
	}
	st := s.States()[0]
	if st.Commit != first || st.Error != "" || st.SyncedAt.IsZero() {
		t.Fatalf("after the first sync: %+v", st)
	}
	if got := files(t, st.Folder); !slices.Equal(got, []string{"a.json", "nested/b.json"}) {
		t.Fatalf("written: %v", got)
	}
	before := srv.Requests.Load()
	if s.Sync(context.Background(), false) {
		t.Fatal("a sync that found nothing new changed something")
	}
	if n := srv.Requests.Load() - before; n != 1 {
		t.Errorf("a sync that found nothing new made %d requests; want the one listing refs", n)
	}

	second := repo.Commit("second", map[string]string{"workflows/a.json": flow("team.a2")})
	if !s.Sync(context.Background(), false) || s.States()[0].Commit != second {
		t.Fatalf("after a push: %+v", s.States()[0])
	}
	if _, err := os.Stat(st.Folder); err != nil {
		t.Errorf("the folder of the commit served before went at once: %v", err)
	}
	rewritten := repo.Rewrite("rewritten", map[string]string{"workflows/a.json": flow("team.a3")})
	if !s.Sync(context.Background(), false) || s.States()[0].Commit != rewritten {
		t.Fatalf("after a force-push: %+v", s.States()[0])
	}
	if _, err := os.Stat(st.Folder); err == nil {
		t.Errorf("the folder of the first commit is still there after two moves")
	}
	b, _ := os.ReadFile(filepath.Join(s.States()[0].Folder, "a.json"))
	if !strings.Contains(string(b), "team.a3") {
		t.Errorf("after the force-push a.json is %s", b)
	}
}

// With the server gone the commit fetched before is served, and the
// failure is said; a daemon started meanwhile serves it from the cache
// without the network.
func TestOfflineServesTheCache(t *testing.T) {
	srv := gitsourcetest.NewServer(t, "")
	repo := srv.Repo(t, "flows")
	c := repo.Commit("first", map[string]string{"a.json": flow("team.a")})
	cache := t.TempDir()
	cfg := gitsource.Repo{URL: srv.RepoURL("flows")}
	s := set(t, cache, nil, nil, cfg)
	s.Sync(context.Background(), false)
	srv.Close()
	if s.Sync(context.Background(), false) {
		t.Fatal("a failed sync changed the commit")
	}
	st := s.States()[0]
	if st.Commit != c || st.Error == "" || st.SyncedAt.IsZero() || st.CheckedAt.IsZero() {
		t.Fatalf("offline: %+v", st)
	}
	again := set(t, cache, nil, nil, cfg).States()[0]
	if again.Commit != c || again.Folder != st.Folder || again.Error != st.Error {
		t.Fatalf("restarted offline: %+v\nwant %+v", again, st)
	}
	if _, err := os.Stat(filepath.Join(again.Folder, "a.json")); err != nil {
		t.Fatal(err)
	}
}

// A repository that needs credentials gets them from the host's token,
// the token for every host, a token written in the address, or git's
// credential helpers; none of them is ever written to the cache or said
// in an error.
func TestPrivateRepository(t *testing.T) {
	const token = "s3cr3t-T0KEN-9f2c"
	srv := gitsourcetest.NewServer(t, token)
	repo := srv.Repo(t, "private")
	c := repo.Commit("first", map[string]string{"a.json": flow("team.a")})
	url := srv.RepoURL("private")
	withToken := strings.Replace(url, "http://", "http://x-access-token:"+token+"@", 1)
	host := giturl.TokenEnv("127.0.0.1")
	helper := func(_ context.Context, a giturl.Address) (string, string, bool) {
		return "helper-user", token, a.Host == "127.0.0.1"
	}
	for _, tc := range []struct {
		name   string
		url    string
		env    map[string]string
		helper gitsource.Helper
		ok     bool
		want   string // in the error when not ok
	}{
		{name: "no credentials", url: url, want: "none were found: set " + host + " (or WORKRAIL_GIT_TOKEN)"},
		{name: "a wrong token in the address", url: strings.Replace(withToken, token, "wrong-"+token, 1), want: "refused the credentials given"},
		{name: "the host's token", url: url, env: map[string]string{host: token}, ok: true},
		{name: "the token of every host", url: url, env: map[string]string{"WORKRAIL_GIT_TOKEN": token}, ok: true},
		{name: "the host's token first", url: url, env: map[string]string{host: token, "WORKRAIL_GIT_TOKEN": "wrong"}, ok: true},
		{name: "a token in the address", url: withToken, ok: true},
		{name: "git's credential helpers", url: url, helper: helper, ok: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := t.TempDir()
			s := set(t, cache, tc.env, tc.helper, gitsource.Repo{URL: tc.url})
			s.Sync(context.Background(), false)
			st := s.States()[0]
			if tc.ok != (st.Commit == c) || tc.ok != (st.Error == "") {
				t.Fatalf("%+v", st)
			}
			if !tc.ok && (!strings.Contains(st.Error, "credentials") || !strings.Contains(st.Error, tc.want)) {
				t.Errorf("the error says nothing of credentials, or not %q: %s", tc.want, st.Error)
			}
			if st.URL != url {
				t.Errorf("shown as %s", st.URL)
			}
			filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
				if b, _ := os.ReadFile(p); err == nil && !d.IsDir() && strings.Contains(string(b), token[:10]) {
					t.Errorf("%s holds the token", p)
				}
				return nil
			})
		})
	}
}

// Over git:// from git's own `git daemon`: the first sync, a pushed
// commit, a commit named by its hash, and the daemon gone, when the
// commit fetched before keeps serving.
func TestGitDaemon(t *testing.T) {
	d := gitsourcetest.NewDaemon(t)
	repo := d.Repo(t, "flows")
	c1 := repo.Commit("first", map[string]string{"workflows/a.json": flow("team.a")})
	s := set(t, t.TempDir(), nil, nil, gitsource.Repo{URL: d.RepoURL("flows"), Path: "workflows"}, gitsource.Repo{URL: d.RepoURL("flows"), Ref: c1})
	if !s.Sync(context.Background(), false) {
		t.Fatalf("the first sync changed nothing: %+v", s.States())
	}
	for i, st := range s.States() {
		if st.Commit != c1 || st.Error != "" || st.URL != d.RepoURL("flows") {
			t.Fatalf("repo %d after the first sync: %+v", i, st)
		}
	}
	c2 := repo.Commit("second", map[string]string{"workflows/a.json": flow("team.a2")})
	if !s.Sync(context.Background(), false) || s.States()[0].Commit != c2 || s.States()[1].Commit != c1 {
		t.Fatalf("after a push: %+v", s.States())
	}
	if b, _ := os.ReadFile(filepath.Join(s.States()[0].Folder, "a.json")); !strings.Contains(string(b), "team.a2") {
		t.Errorf("a.json of the pushed commit is %s", b)
	}
	d.Close()
	if s.Sync(context.Background(), false) {
		t.Fatal("a sync with the daemon gone changed a commit")
	}
	if st := s.States()[0]; st.Commit != c2 || !strings.Contains(st.Error, "connection refused") {
		t.Errorf("with the daemon gone: %+v", st)
	}
}

// A file:// repository, a tag, and a commit named by its hash: a commit
// is fetched once and never asked about again.
func TestFileTagAndCommit(t *testing.T) {
	repo := gitsourcetest.NewRepo(t, t.TempDir(), "local")
	c1 := repo.Commit("first", map[string]string{"a.json": flow("team.a")})
	gitsourcetest.Git(t, repo.Work, "tag", "-a", "-m", "v1", "v1")
	gitsourcetest.Git(t, repo.Work, "push", "-q", "origin", "v1")
	c2 := repo.Commit("second", map[string]string{"a.json": flow("team.a2")})
	s := set(t, t.TempDir(), nil, nil,
		gitsource.Repo{URL: repo.FileURL()}, gitsource.Repo{URL: repo.FileURL(), Ref: "v1"}, gitsource.Repo{URL: repo.FileURL(), Ref: c1})
	s.Sync(context.Background(), false)
	got := s.States()
	for i, want := range []string{c2, c1, c1} {
		if got[i].Commit != want || got[i].Error != "" {
			t.Errorf("repo %d: %+v, want commit %s", i, got[i], want)
		}
	}
	os.RemoveAll(repo.Bare) // the commit is never fetched again
	s.Sync(context.Background(), false)
	if st := s.States()[2]; st.Error != "" || st.Commit != c1 {
		t.Errorf("a commit was fetched again: %+v", st)
	}
	if st := s.States()[0]; st.Error == "" || st.Commit != c2 {
		t.Errorf("a branch whose repository went: %+v", st)
	}
}

// One repository that cannot be fetched leaves the others served, and an
// address that cannot be read is said without quoting it.
func TestOneFailureLeavesTheOthers(t *testing.T) {
	repo := gitsourcetest.NewRepo(t, t.TempDir(), "good")
	c := repo.Commit("first", map[string]string{"a.json": flow("team.a")})
	empty := gitsourcetest.NewRepo(t, t.TempDir(), "empty")
	s := set(t, t.TempDir(), nil, nil,
		gitsource.Repo{URL: "file:///nowhere/at/all.git"},
		gitsource.Repo{URL: "http://tok3n@example.com/plain.git"},
		gitsource.Repo{URL: repo.FileURL(), Ref: "no-such-branch"},
		gitsource.Repo{URL: repo.FileURL(), Path: "no/such/folder"},
		gitsource.Repo{URL: repo.FileURL(), Path: "../../escape"},
		gitsource.Repo{URL: repo.FileURL()},
		gitsource.Repo{URL: empty.FileURL()},
		gitsource.Repo{URL: repo.FileURL(), Ref: strings.Repeat("0", 40)})
	if !s.Sync(context.Background(), false) {
		t.Fatal("nothing changed")
	}
	st := s.States()
	for i, want := range []string{"no repository at this address", "plain http", "no-such-branch", "no folder", "path names a folder inside", "", "the repository is empty", "the repository has no commit 0000"} {
		if want != "" && (!strings.Contains(st[i].Error, want) || st[i].Commit != "") {
			t.Errorf("repo %d: %+v, want an error saying %q", i, st[i], want)
		}
		if strings.Contains(st[i].Error+st[i].URL, "tok3n") {
			t.Errorf("repo %d quotes the token: %+v", i, st[i])
		}
	}
	if st[0].Error == "" || st[5].Commit != c || st[5].Error != "" {
		t.Errorf("%+v\n%+v", st[0], st[5])
	}
}

// Without git on PATH a repository is not fetched, and the error says
// what to install.
func TestNoGit(t *testing.T) {
	repo := gitsourcetest.NewRepo(t, t.TempDir(), "flows")
	repo.Commit("first", map[string]string{"a.json": flow("team.a")})
	t.Setenv("PATH", t.TempDir())
	s := set(t, t.TempDir(), nil, nil, gitsource.Repo{URL: repo.FileURL()})
	if s.Sync(context.Background(), false) {
		t.Fatal("a sync without git changed something")
	}
	if st := s.States()[0]; st.Error != "git was not found on PATH: install git to fetch workflowRepos" {
		t.Errorf("%+v", st)
	}
}

// A repository of hostile content is bounded like a folder: symbolic
// links are never written, nor files over a workflow file's size, past
// the count or the bytes of a folder, or folders too deep, and each is
// listed; a pack over its limit is given up, and the commit served
// before stays.
func TestHostileRepositoryIsBounded(t *testing.T) {
	repo := gitsourcetest.NewRepo(t, t.TempDir(), "hostile")
	repo.Commit("fine", map[string]string{"a.json": flow("team.a")})
	os.Symlink("/etc/passwd", filepath.Join(repo.Work, "link.json"))
	big := strings.Repeat("x", 3000)
	c := repo.Commit("hostile", map[string]string{"big.json": big, "b.json": flow("team.b"), "c.json": flow("team.c"),
		"d.json": flow("team.d"), "one/two/three/deep.json": flow("team.deep"), "one/two/ok.json": flow("team.ok")})
	lim := gitsource.DefaultLimits()
	lim.FileBytes, lim.Files, lim.Depth, lim.TreeBytes = 2048, 4, 2, 1<<20
	s := setWithin(t, t.TempDir(), lim, nil, nil, gitsource.Repo{URL: repo.FileURL()})
	s.Sync(context.Background(), false)
	st := s.States()[0]
	if st.Commit != c || st.Error != "" {
		t.Fatalf("%+v", st)
	}
	if got := files(t, st.Folder); !slices.Equal(got, []string{"a.json", "b.json", "c.json", "d.json"}) {
		t.Errorf("written: %v", got)
	}
	var skipped []string
	for _, k := range st.Skipped {
		skipped = append(skipped, k.File)
	}
	if want := []string{"big.json", "link.json", "one/two/ok.json", "one/two/three"}; !slices.Equal(skipped, want) {
		t.Errorf("skipped %v, want %v: %+v", skipped, want, st.Skipped)
	}

	noise := make([]byte, 32<<10)
	rand.Read(noise)
	repo.Commit("huge", map[string]string{"noise.txt": hex.EncodeToString(noise)})
	lim.PackBytes = 16 << 10
	s = setWithin(t, filepath.Dir(filepath.Dir(st.Folder)), lim, nil, nil, gitsource.Repo{URL: repo.FileURL()})
	s.Sync(context.Background(), false)
	if st := s.States()[0]; st.Commit != c || !strings.Contains(st.Error, "KiB once packed") {
		t.Errorf("a pack over its limit: %+v", st)
	}
}

// A server that never answers costs a sync its time limit, no more: git
// and its remote helper are gone when the sync returns. The token they
// send is never on their command lines, which every user may read.
func TestSlowServerIsGivenUp(t *testing.T) {
	const token = "hung-T0KEN-77d1"
	stop := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-stop: // a git left running would hold the server's Close
		}
	}))
	defer hang.Close()
	defer close(stop)
	lim := gitsource.DefaultLimits()
	lim.FetchTime = time.Second
	url := hang.URL + "/slow.git"
	s := setWithin(t, t.TempDir(), lim, map[string]string{"WORKRAIL_GIT_TOKEN": token}, nil, gitsource.Repo{URL: url})
	done := make(chan struct{})
	go func() { s.Sync(context.Background(), false); close(done) }()
	var seen []string
	for len(seen) == 0 && !closed(done) {
		seen = commandLines(url)
		time.Sleep(5 * time.Millisecond)
	}
	for _, cmd := range seen {
		if strings.Contains(cmd, token) {
			t.Errorf("a command line holds the token: %q", cmd)
		}
	}
	<-done
	if st := s.States()[0]; !strings.Contains(st.Error, "was given up") || len(seen) == 0 {
		t.Errorf("%+v; git seen running: %q", st, seen)
	}
	for deadline := time.Now().Add(5 * time.Second); len(commandLines(url)) > 0; {
		if time.Now().After(deadline) {
			t.Fatalf("still running after the sync: %q", commandLines(url))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func closed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// commandLines are the command lines of this machine's processes that
// hold s.
func commandLines(s string) []string {
	var out []string
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range paths {
		if b, _ := os.ReadFile(p); strings.Contains(string(b), s) {
			out = append(out, strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}

// BenchmarkSyncNothingNew syncs a repository that has not moved, against
// a git host on this machine (git's http-backend, git's own git daemon):
// one listing of its refs, nothing fetched or written.
func BenchmarkSyncNothingNew(b *testing.B) {
	for _, host := range []string{"http", "git"} {
		b.Run(host, func(b *testing.B) {
			var url string
			if host == "http" {
				srv := gitsourcetest.NewServer(b, "")
				srv.Repo(b, "flows").Commit("first", map[string]string{"workflows/a.json": flow("team.a")})
				url = srv.RepoURL("flows")
			} else {
				d := gitsourcetest.NewDaemon(b)
				d.Repo(b, "flows").Commit("first", map[string]string{"workflows/a.json": flow("team.a")})
				url = d.RepoURL("flows")
			}
			s := gitsource.New([]gitsource.Repo{{URL: url, Path: "workflows"}}, gitsource.Options{Dir: b.TempDir(),
				Getenv: func(string) string { return "" }})
			if !s.Sync(context.Background(), false) {
				b.Fatalf("the first sync: %+v", s.States()[0])
			}
			for b.Loop() {
				if s.Sync(context.Background(), false) || s.States()[0].Error != "" {
					b.Fatalf("%+v", s.States()[0])
				}
			}
		})
	}
}

// BenchmarkSyncFirst fetches a small repository into an empty cache, from
// git's http-backend on this machine: listing its refs, fetching its
// commit shallow and writing its workflow files.
func BenchmarkSyncFirst(b *testing.B) {
	srv := gitsourcetest.NewServer(b, "")
	srv.Repo(b, "flows").Commit("first", map[string]string{"workflows/a.json": flow("team.a"), "workflows/b.json": flow("team.b"), "README.md": "hi"})
	base := b.TempDir()
	i := 0
	for b.Loop() {
		i++
		s := gitsource.New([]gitsource.Repo{{URL: srv.RepoURL("flows"), Path: "workflows"}}, gitsource.Options{Dir: filepath.Join(base, strconv.Itoa(i)),
			Getenv: func(string) string { return "" }})
		if !s.Sync(context.Background(), false) {
			b.Fatalf("%+v", s.States()[0])
		}
	}
}

// git's own credential helpers answer for a repository that refuses a
// fetch without credentials: here git's store helper, configured for the
// git this process runs.
func TestGitCredentialHelper(t *testing.T) {
	const token = "st0red-T0KEN-41c8"
	srv := gitsourcetest.NewServer(t, token)
	c := srv.Repo(t, "private").Commit("first", map[string]string{"a.json": flow("team.a")})
	dir := t.TempDir()
	store, cfg := filepath.Join(dir, "credentials"), filepath.Join(dir, "gitconfig")
	os.WriteFile(store, []byte(strings.Replace(srv.URL, "http://", "http://someone:"+token+"@", 1)+"\n"), 0o600)
	os.WriteFile(cfg, []byte("[credential]\n\thelper = store --file="+store+"\n"), 0o600)
	t.Setenv("GIT_CONFIG_GLOBAL", cfg)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	s := gitsource.New([]gitsource.Repo{{URL: srv.RepoURL("private")}}, gitsource.Options{Dir: t.TempDir(), Getenv: func(string) string { return "" }})
	s.Sync(context.Background(), false)
	if st := s.States()[0]; st.Commit != c || st.Error != "" {
		t.Fatalf("%+v", st)
	}
}
