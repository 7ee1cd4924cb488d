package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/workrail/workrail/server/gitsource/gitsourcetest"
)

// hangingRemote is a server on this machine that accepts connections
// and never answers: a git host whose network has gone quiet. It counts
// the connections it took and closes them at the test's end.
type hangingRemote struct {
	l     net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newHangingRemote(tb testing.TB) *hangingRemote {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	h := &hangingRemote{l: l}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			h.mu.Lock()
			h.conns = append(h.conns, c)
			h.mu.Unlock()
		}
	}()
	tb.Cleanup(func() {
		l.Close()
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, c := range h.conns {
			c.Close()
		}
	})
	return h
}

// url is a repository's address on h.
func (h *hangingRemote) url(name string) string {
	return "http://" + h.l.Addr().String() + "/" + name + ".git"
}

func (h *hangingRemote) accepted() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.conns)
}

// writeRepos writes a config.json naming repos (and, when minutes is
// not nil, workflowReposSyncMinutes) into home.
func writeRepos(tb testing.TB, home string, minutes *int, repos ...string) {
	tb.Helper()
	cfg := map[string]any{}
	list := []map[string]string{}
	for _, u := range repos {
		list = append(list, map[string]string{"url": u})
	}
	cfg["workflowRepos"] = list
	if minutes != nil {
		cfg["workflowReposSyncMinutes"] = *minutes
	}
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(home, "config.json"), b, 0o600); err != nil {
		tb.Fatal(err)
	}
}

// The daemon never waits for the network: with one repository's host
// holding its fetch open and never answering, the daemon starts, answers
// `workrail status`, and an agent's list_workflows is answered while
// that fetch is still in flight, listing the other repository's
// workflows and a warning that the first is not fetched yet.
// workflowReposSyncMinutes defaults to 15. A stop does not wait for the
// fetch either.
func TestGitSourcesNeverWaitForTheNetwork(t *testing.T) {
	quiet := newHangingRemote(t)
	local := gitsourcetest.NewRepo(t, t.TempDir(), "local")
	local.Commit("first", map[string]string{"local.json": flowOf("team.local", "Local")})
	home := newHome(t)
	writeRepos(t, home, nil, quiet.url("quiet"), local.FileURL())
	d := startDaemon(t, home)

	for deadline := time.Now().Add(20 * time.Second); quiet.accepted() == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the daemon never tried the quiet repository")
		}
	}
	if code, out, errs := command(t, home, "status"); code != 0 {
		t.Fatalf("workrail status while a fetch hangs: exit %d\n%s%s", code, out, errs)
	}
	c := startShim(t, home)
	var list result
	var byID map[string]map[string]any
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if list, byID = listed(t, c); byID["team.local"] != nil || time.Now().After(deadline) {
			break
		}
	}
	if byID["team.local"] == nil {
		t.Fatalf("the file:// repository waits on the quiet one:\n%s", list.Text)
	}
	want := "Warning SOURCE_UNAVAILABLE: " + quiet.url("quiet") + " has not been fetched yet"
	if !strings.Contains(list.Text, want) {
		t.Fatalf("list_workflows while the fetch hangs does not say %q:\n%s", want, list.Text)
	}
	var l struct {
		SyncMinutes int              `json:"syncMinutes"`
		Sources     []map[string]any `json:"sources"`
	}
	_, out, _ := command(t, home, "sources", "--json")
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("workrail sources --json: %v\n%s", err, out)
	}
	var quietState map[string]any
	for _, s := range l.Sources {
		if s["url"] == quiet.url("quiet") {
			quietState = s
		}
	}
	if l.SyncMinutes != 15 || quietState == nil || quietState["commit"] != nil || quietState["error"] != nil {
		t.Errorf("workrail sources while the fetch hangs: every %d minutes, %v", l.SyncMinutes, quietState)
	}
	d.cmd.Process.Signal(os.Interrupt)
	if _, ok := d.exitCode(10 * time.Second); !ok {
		t.Errorf("the daemon's stop waits for a hanging fetch")
	}
}

// BenchmarkDaemonStartWithRepositories measures starting the daemon, from
// exec until its socket answers /health, on a home naming no repository,
// then five whose host accepts and never answers (none fetched before):
// the two cost the same when start waits for no network. Median of at
// least 6.
func BenchmarkDaemonStartWithRepositories(b *testing.B) {
	for _, n := range []int{0, 5} {
		b.Run(fmt.Sprintf("repos=%d", n), func(b *testing.B) {
			quiet := newHangingRemote(b)
			home := newHome(b)
			var urls []string
			for i := range n {
				urls = append(urls, quiet.url(fmt.Sprintf("r%d", i)))
			}
			writeRepos(b, home, nil, urls...)
			startAnswering(b, home).terminate(b) // the first start writes the keys and the token
			medianOf(b, 6, func() time.Duration {
				t0 := time.Now()
				d := startAnswering(b, home)
				took := time.Since(t0)
				d.terminate(b)
				return took
			})
		})
	}
}
