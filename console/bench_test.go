package console_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"testing"
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
	console.New(st, console.About{Version: "bench", StartedAt: time.Now()}, time.Now, b.Logf).Routes(r)
	return r
}

func benchGet(b *testing.B, h http.Handler, path string, htmx bool) {
	b.Helper()
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
// in a bbolt file (the first page: 50 rows), and the poll that finds
// nothing changed.
func BenchmarkSessionsPage(b *testing.B) {
	st, err := store.Open(filepath.Join(b.TempDir(), "w.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	x := execute.New(st, executetest.Ring(b), executetest.Catalog(b, workflows.FS), workflow.Preferences{}, executetest.Clock, b.Logf)
	for range 10_000 {
		if _, ok := x.Start([]byte(`{"workflowId":"wr.hello"}`)).(protocol.StepResult); !ok {
			b.Fatal("start failed")
		}
	}
	h := serveBench(b, st)
	b.Run("page", func(b *testing.B) { benchGet(b, h, "/", false) })
	b.Run("poll-unchanged", func(b *testing.B) {
		benchGet(b, h, "/?since="+itoa(st.Changes()), true)
	})
}

// BenchmarkRunPage measures the run page of a 1,000-node run with a fork
// every 50 nodes, over a bbolt file.
func BenchmarkRunPage(b *testing.B) {
	st, err := store.Open(filepath.Join(b.TempDir(), "w.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	x := execute.New(st, executetest.Ring(b), executetest.Long(b, 1000), workflow.Preferences{}, executetest.Clock, b.Logf)
	s := x.Start([]byte(`{"workflowId":"wr.long"}`)).(protocol.StepResult)
	var prev protocol.StepResult
	for i := 1; i < 1000; i++ {
		if i%50 == 0 && prev.StateToken != "" {
			re := x.Continue([]byte(`{"stateToken":"` + prev.StateToken + `"}`)).(protocol.StepResult)
			x.Continue(mustArgs(b, re))
		}
		prev = s
		s = x.Continue(mustArgs(b, s)).(protocol.StepResult)
	}
	h := serveBench(b, st)
	b.Run("folded", func(b *testing.B) { benchGet(b, h, "/sessions/ses_1/runs/run_1", false) })
	b.Run("with-panel", func(b *testing.B) { benchGet(b, h, "/sessions/ses_1/runs/run_1?node=node_500", false) })
}

func mustArgs(b *testing.B, s protocol.StepResult) []byte {
	a := s.NextCall.Arguments
	a.Output = nil
	raw, err := jsonMarshal(a)
	if err != nil {
		b.Fatal(err)
	}
	return raw
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
