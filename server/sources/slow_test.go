package sources_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/server/sources"
)

// gate opens workflow files as a Registry does, counting the opens by
// file name; opening a path that slow matches waits until Release.
type gate struct {
	slow    func(path string) bool
	entered chan string
	release chan struct{}
	once    sync.Once

	mu     sync.Mutex
	opened map[string]int
}

func newGate(t *testing.T, slow func(path string) bool) *gate {
	g := &gate{slow: slow, entered: make(chan string, 64), release: make(chan struct{}), opened: map[string]int{}}
	t.Cleanup(g.Release)
	return g
}

func (g *gate) Release() { g.once.Do(func() { close(g.release) }) }

func (g *gate) Open(path string) (*os.File, error) {
	g.mu.Lock()
	g.opened[filepath.Base(path)]++
	g.mu.Unlock()
	if g.slow(path) {
		select {
		case g.entered <- path:
		default:
		}
		<-g.release
	}
	return sources.OpenFile(path)
}

func (g *gate) Opened(name string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.opened[name]
}

func problemsByFile(cat *catalog.Catalog) map[string]string {
	out := map[string]string{}
	for _, p := range cat.Problems {
		out[filepath.Base(p.File)] = p.Problems.Error()
	}
	return out
}

// A file whose read outlasts the deadline is a load problem, the rest of
// its folder loads, and while that read is stuck later calls do not start
// another one.
func TestSlowFileIsALoadProblem(t *testing.T) {
	user := t.TempDir()
	writeFile(t, user, "a.json", wfJSON("user.a", "A", ""))
	writeFile(t, user, "slow.json", wfJSON("user.slow", "Slow", ""))
	reg, err := sources.New(fstest.MapFS{}, []catalog.Source{{Kind: catalog.User, Path: user}})
	if err != nil {
		t.Fatal(err)
	}
	g := newGate(t, func(path string) bool { return filepath.Base(path) == "slow.json" })
	sources.SetOpen(reg, 500*time.Millisecond, g.Open)

	cat := catalogOf(t, reg, "")
	if got := strings.Join(cat.IDs(), " "); got != "user.a" {
		t.Errorf("loaded %s; want user.a", got)
	}
	if got := problemsByFile(cat)["slow.json"]; !strings.Contains(got, "did not answer within 500ms") {
		t.Errorf("problem of slow.json = %q", got)
	}
	got := problemsByFile(catalogOf(t, reg, ""))["slow.json"]
	if !strings.Contains(got, "an earlier read of it has not finished") || g.Opened("slow.json") != 1 {
		t.Errorf("second call: problem %q after %d opens; want the earlier read reported, and no second open", got, g.Opened("slow.json"))
	}

	g.Release()
	for deadline := time.Now().Add(bound); ; time.Sleep(10 * time.Millisecond) {
		if _, ok := catalogOf(t, reg, "").Get("user.slow"); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("slow.json still not loaded %v after its read was released", bound)
		}
	}
}

// A call whose workspace is slow to read delays neither a call without a
// workspace nor a call for another workspace: the registry's lock is not
// held while reading.
func TestSlowWorkspaceDelaysNoOtherCall(t *testing.T) {
	root := t.TempDir()
	user, slowWS, otherWS := filepath.Join(root, "user"), filepath.Join(root, "slow"), filepath.Join(root, "other")
	writeFile(t, user, "u.json", wfJSON("user.u", "U", ""))
	writeFile(t, filepath.Join(slowWS, ".workrail", "workflows"), "a.json", wfJSON("project.a", "A", ""))
	writeFile(t, filepath.Join(otherWS, ".workrail", "workflows"), "b.json", wfJSON("project.b", "B", ""))
	reg, err := sources.New(fstest.MapFS{}, []catalog.Source{{Kind: catalog.User, Path: user}})
	if err != nil {
		t.Fatal(err)
	}
	g := newGate(t, func(path string) bool { return strings.HasPrefix(path, slowWS+string(os.PathSeparator)) })
	sources.SetOpen(reg, time.Hour, g.Open)

	slow := startCatalog(reg, slowWS)
	select {
	case <-g.entered: // the slow call is now inside a read
	case <-time.After(bound):
		t.Fatalf("the call for %s never opened a.json", slowWS)
	}
	if got := strings.Join(catalogOf(t, reg, "").IDs(), " "); got != "user.u" {
		t.Errorf("call without a workspace loaded %s", got)
	}
	if got := strings.Join(catalogOf(t, reg, otherWS).IDs(), " "); got != "project.b user.u" {
		t.Errorf("call for another workspace loaded %s", got)
	}
	select {
	case <-slow:
		t.Fatal("the slow call returned before its read was released")
	default:
	}
	g.Release()
	if cat := await(t, slow, slowWS); strings.Join(cat.IDs(), " ") != "project.a user.u" || len(cat.Problems) != 0 {
		t.Errorf("slow call: loaded %v, problems %+v", cat.IDs(), cat.Problems)
	}
}

// Files unchanged since the last call (same size and modification time)
// are neither read nor parsed again; a changed one is.
func TestUnchangedFilesAreNotReread(t *testing.T) {
	user := t.TempDir()
	writeFile(t, user, "x.json", wfJSON("user.x", "X", ""))
	writeFile(t, user, "y.json", wfJSON("user.y", "Y", ""))
	writeFile(t, user, "broken.json", `{"id":"user.broken"`)
	reg, err := sources.New(fstest.MapFS{}, []catalog.Source{{Kind: catalog.User, Path: user}})
	if err != nil {
		t.Fatal(err)
	}
	g := newGate(t, func(string) bool { return false })
	sources.SetOpen(reg, bound, g.Open)
	opens := func() int { return g.Opened("x.json") + g.Opened("y.json") + g.Opened("broken.json") }

	for i := range 2 {
		cat := reg.Catalog("")
		if got := strings.Join(cat.IDs(), " "); got != "user.x user.y" || len(cat.Problems) != 1 {
			t.Fatalf("call %d: loaded %s, problems %+v", i, got, cat.Problems)
		}
		if opens() != 3 {
			t.Fatalf("after call %d: %d opens; want 3", i, opens())
		}
	}
	writeFile(t, user, "x.json", wfJSON("user.x", "X renamed", ""))
	if e, _ := reg.Catalog("").Get("user.x"); e.Compiled.Name != "X renamed" || g.Opened("x.json") != 2 || opens() != 4 {
		t.Fatalf("changed x.json: name %q, opens %d; want it alone read again", e.Compiled.Name, opens())
	}
}

// A file that grows past the limit between its stat and its read is not
// read past the limit.
func TestReadStopsAtTheLimit(t *testing.T) {
	const limit = 1 << 20
	if _, err := sources.ReadAtMost(zeros{}, 10, limit); err == nil || !strings.Contains(err.Error(), "grew past 1 MiB") {
		t.Fatalf("endless reader: %v", err)
	}
	b, err := sources.ReadAtMost(io.LimitReader(zeros{}, limit), 10, limit)
	if err != nil || len(b) != limit {
		t.Fatalf("reader of exactly the limit: %d bytes, %v", len(b), err)
	}
	if _, err := sources.ReadAtMost(failing{}, 10, limit); !errors.Is(err, errFailing) {
		t.Fatalf("failing reader: %v", err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

var errFailing = errors.New("disk on fire")

type failing struct{}

func (failing) Read([]byte) (int, error) { return 0, errFailing }
