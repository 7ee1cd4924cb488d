package console_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workrail/workrail/console"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/server"
	"github.com/workrail/workrail/store"
	"github.com/workrail/workrail/workflows"
)

var update = flag.Bool("update", false, "rewrite golden files")

// consoleWith starts n runs of wr.hello in a real store and serves the
// Console over it.
func consoleWith(t *testing.T, n int) http.Handler {
	t.Helper()
	home := t.TempDir()
	s, err := store.Open(filepath.Join(home, "workrail.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	keys, err := server.LoadKeyRing(home)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := server.NewRegistry(workflows.FS, nil)
	if err != nil {
		t.Fatal(err)
	}
	clock := func() time.Time { return time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC) }
	x := server.NewExecutor(s, keys, reg, workflow.Preferences{}, clock, t.Logf)
	for i := 0; i < n; i++ {
		x.Start(json.RawMessage(`{"workflowId":"wr.hello"}`))
	}
	r := chi.NewRouter()
	console.New(s, "test", t.Logf).Routes(r)
	return r
}

func get(t *testing.T, h http.Handler, htmx bool) string {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	if htmx {
		req.Header.Set("HX-Request", "true")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET / = %d", rec.Code)
	}
	b, _ := io.ReadAll(rec.Body)
	return string(b)
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		os.WriteFile(path, []byte(got), 0o644)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./console -update)", err)
	}
	if !bytes.Equal([]byte(got), want) {
		t.Fatalf("%s differs; run go test ./console -update and review:\n%s", path, got)
	}
}

func TestSessionsPage(t *testing.T) {
	h := consoleWith(t, 2)
	golden(t, "sessions.html", get(t, h, false))
	// An htmx refresh gets only the table it swaps in.
	golden(t, "sessions_fragment.html", get(t, h, true))
}

func TestEmptySessionsPage(t *testing.T) {
	golden(t, "sessions_empty.html", get(t, consoleWith(t, 0), false))
}
