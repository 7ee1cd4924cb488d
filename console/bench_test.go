package console_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workrail/workrail/console"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/store"
	"github.com/workrail/workrail/workflows"
)

// serveBench is the Console over a real store file.
func serveBench(b *testing.B, st *store.Store) http.Handler {
	r := chi.NewRouter()
	console.New(console.Config{Store: st, Workflows: executetest.Catalog(b, workflows.FS), Secret: []byte("bench secret"),
		About: console.About{Version: "bench", StartedAt: time.Now()}, Now: time.Now, Logf: b.Logf}).Routes(r)
	return r
}

// cpuTime is the CPU time the process has used. On a shared machine it
// says what a page costs more steadily than the wall clock; the
// benchmarks report it per op as cpu-ns/op.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchGet(b *testing.B, h http.Handler, path string, htmx bool) {
	b.Helper()
	cpu := cpuTime()
	defer func() { b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op") }()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		if htmx {
			req.Header.Set("HX-Request", "true")
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK && rec.Code != http.StatusNoContent {
			b.Fatalf("GET %s = %d", path, rec.Code)
		}
	}
}

// BenchmarkSessionsPage measures the sessions page over 10,000 sessions
// in a bbolt file (the first page: 50 rows), the change poll that finds
// nothing changed, and searches.
func BenchmarkSessionsPage(b *testing.B) {
	st, err := store.Open(filepath.Join(b.TempDir(), "w.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	x := execute.New(st, executetest.Ring(b), executetest.Catalog(b, workflows.FS), workflow.Preferences{}, executetest.Clock, b.Logf)
	for range 10_000 {
		if _, ok := x.Start(context.Background(), []byte(`{"workflowId":"wr.hello"}`)).(protocol.StepResult); !ok {
			b.Fatal("start failed")
		}
	}
	h := serveBench(b, st)
	b.Run("page", func(b *testing.B) { benchGet(b, h, "/", false) })
	b.Run("poll-unchanged", func(b *testing.B) {
		benchGet(b, h, "/changes?since="+itoa(st.Changes()), true)
	})
	// A search that matches nothing walks every session's overview.
	b.Run("search-no-match", func(b *testing.B) { benchGet(b, h, "/?q=no-such-session", false) })
	b.Run("search-one-page", func(b *testing.B) { benchGet(b, h, "/?q=hello", false) })
}

// BenchmarkRunPage measures the run page of a 1,000-node run with a fork
// every 50 nodes, and its projection as JSON, over a bbolt file: warm
// (the run's projection assembled and cached) and
// cold (the first view after the daemon starts: each iteration reopens
// the file and builds a new Console, so no cache of the store's or the
// Console's survives; the reopen is not timed).
func BenchmarkRunPage(b *testing.B) {
	path := filepath.Join(b.TempDir(), "w.db")
	st, err := store.Open(path, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { st.Close() }()
	x := execute.New(st, executetest.Ring(b), executetest.Long(b, 1000), workflow.Preferences{}, executetest.Clock, b.Logf)
	executetest.RewoundRun(b, x, 1000, nil)
	const folded, panel, doc = "/sessions/ses_1/runs/run_1", "/sessions/ses_1/runs/run_1?node=node_500", "/sessions/ses_1/runs/run_1.json"
	h := serveBench(b, st)
	b.Run("folded", func(b *testing.B) { benchGet(b, h, folded, false) })
	b.Run("with-panel", func(b *testing.B) { benchGet(b, h, panel, false) })
	b.Run("json", func(b *testing.B) { benchGet(b, h, doc, false) })
	cold := func(b *testing.B, url string) {
		var cpu time.Duration
		defer func() { b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op") }()
		for b.Loop() {
			b.StopTimer()
			if err := st.Close(); err != nil {
				b.Fatal(err)
			}
			if st, err = store.Open(path, store.Options{}); err != nil {
				b.Fatal(err)
			}
			h := serveBench(b, st)
			req := httptest.NewRequest(http.MethodGet, url, nil)
			rec := httptest.NewRecorder()
			runtime.GC() // the reopen's garbage is not the page's
			b.StartTimer()
			c0 := cpuTime()
			h.ServeHTTP(rec, req)
			cpu += cpuTime() - c0
			if rec.Code != http.StatusOK {
				b.Fatalf("GET %s = %d", url, rec.Code)
			}
		}
	}
	b.Run("cold-folded", func(b *testing.B) { cold(b, folded) })
	b.Run("cold-with-panel", func(b *testing.B) { cold(b, panel) })
	b.Run("cold-json", func(b *testing.B) { cold(b, doc) })
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// BenchmarkGapsPage measures the gaps page over 10,000 open gaps (5,000
// sessions of two each) in a bbolt file: the first page, a page deep in
// the list, and a filtered page, which the overviews' open gaps filter
// without reading a gap record.
func BenchmarkGapsPage(b *testing.B) {
	st, err := store.Open(filepath.Join(b.TempDir(), "w.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	leaveGaps(b, st, 5_000)
	h := serveBench(b, st)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/gaps", nil))
	b.Logf("GET /gaps over 10,000 open gaps: %d bytes", rec.Body.Len())
	b.Run("first", func(b *testing.B) { benchGet(b, h, "/gaps", false) })
	b.Run("deep", func(b *testing.B) { benchGet(b, h, "/gaps?after=evt_100_12", false) })
	b.Run("filtered", func(b *testing.B) { benchGet(b, h, "/gaps?reason=user_only_dependency", false) })
	// Uncached: the first view after a write, in a new Console each time
	// (building it is not timed).
	uncached := func(b *testing.B, path string) {
		var cpu time.Duration
		defer func() { b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op") }()
		for b.Loop() {
			b.StopTimer()
			h := serveBench(b, st)
			req, rec := httptest.NewRequest(http.MethodGet, path, nil), httptest.NewRecorder()
			b.StartTimer()
			c0 := cpuTime()
			h.ServeHTTP(rec, req)
			cpu += cpuTime() - c0
			if rec.Code != http.StatusOK {
				b.Fatalf("GET %s = %d", path, rec.Code)
			}
		}
	}
	b.Run("first-uncached", func(b *testing.B) { uncached(b, "/gaps") })
	b.Run("filtered-uncached", func(b *testing.B) { uncached(b, "/gaps?reason=user_only_dependency") })
}

// BenchmarkSessionPageManyGaps measures the page of one session holding
// 9,990 gaps (a never-stop run of ten passes over 999 steps that skips
// every output asked for; a workflow holds at most 1,000 steps), in a
// bbolt file: the first page of its lists, and a page deep in its gaps.
func BenchmarkSessionPageManyGaps(b *testing.B) {
	st, err := store.Open(filepath.Join(b.TempDir(), "w.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	const passes, body = 10, 999
	steps := make([]string, body)
	for i := range steps {
		steps[i] = `{"id":"s` + strconv.Itoa(i) + `","title":"Step","prompt":"report","output":{"contractRef":"wr.contracts.gaps"}}`
	}
	wf := executetest.Catalog(b, fstest.MapFS{"wr.many.json": {Data: []byte(`{"id":"wr.many","name":"Many","description":"d","version":"1","steps":[` +
		`{"id":"l","title":"Passes","loop":{"kind":"for","count":` + strconv.Itoa(passes) + `,"maxIterations":` + strconv.Itoa(passes) + `},"body":[` +
		strings.Join(steps, ",") + `]}]}`)}})
	n := passes * body
	x := execute.New(st, executetest.Ring(b), wf, workflow.Preferences{}, executetest.Clock, b.Logf)
	res := x.Start(context.Background(), []byte(`{"workflowId":"wr.many","mode":"wr.modes.full_auto_never_stop"}`))
	for s, ok := res.(protocol.StepResult); ok; s, ok = res.(protocol.StepResult) {
		res = x.Continue(context.Background(), []byte(`{"stateToken":"`+s.StateToken+`","ackToken":"`+s.AckToken+`"}`))
	}
	h := serveBench(b, st)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/sessions/ses_1", nil))
	b.Logf("GET /sessions/ses_1 with %d gaps: %d bytes", n, rec.Body.Len())
	b.Run("first", func(b *testing.B) { benchGet(b, h, "/sessions/ses_1", false) })
	b.Run("deep", func(b *testing.B) { benchGet(b, h, "/sessions/ses_1?gaps=9000", false) })
}
