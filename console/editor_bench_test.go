package console_test

import (
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workrail/workrail/console"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/server/sources"
	"github.com/workrail/workrail/store"
	"github.com/workrail/workrail/workflows"
)

// benchDesk is the Console over a real store and real folders: 500
// user workflows of eight steps, and 100 sessions.
func benchDesk(b *testing.B) http.Handler {
	user := b.TempDir()
	for i := range 500 {
		steps := make([]string, 8)
		for j := range steps {
			steps[j] = fmt.Sprintf(`{"id":"s%d","title":"Step %d","promptBlocks":{"goal":"Do part %d.","procedure":["one","two"],"verify":["check"]}}`, j, j, j)
		}
		text := fmt.Sprintf(`{"id":"user.w%03d","name":"W %d","description":"d","version":"1","features":["wr.features.durable_notes"],"steps":[%s]}`,
			i, i, strings.Join(steps, ","))
		if err := os.WriteFile(filepath.Join(user, fmt.Sprintf("w%03d.json", i)), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	reg, err := sources.New(workflows.FS, []catalog.Source{{Kind: catalog.User, Path: user}})
	if err != nil {
		b.Fatal(err)
	}
	st, err := store.Open(filepath.Join(b.TempDir(), "w.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	x := execute.New(st, executetest.Ring(b), reg, workflow.Preferences{}, executetest.Clock, b.Logf)
	for i := range 100 {
		if _, ok := x.Start(context.Background(), []byte(fmt.Sprintf(`{"workflowId":"user.w%03d"}`, i))).(protocol.StepResult); !ok {
			b.Fatal("start failed")
		}
	}
	r := chi.NewRouter()
	console.New(console.Config{Store: st, Workflows: reg, Files: reg, Secret: []byte("bench secret"),
		About: console.About{Version: "bench", StartedAt: time.Now()}, Now: time.Now, Logf: b.Logf}).Routes(r)
	return r
}

// BenchmarkWorkflowsPage measures the catalog page with 500 user
// workflows (each file stat'ed, none re-read) and 100 sessions' pins.
func BenchmarkWorkflowsPage(b *testing.B) {
	benchGet(b, benchDesk(b), "/workflows", false)
}

// BenchmarkEditorPage measures opening a workflow in the editor: its
// file read and checked, and the builtins panel from the catalog (every
// builtin with its snippet and schema) rendered.
func BenchmarkEditorPage(b *testing.B) {
	benchGet(b, benchDesk(b), "/workflows/user.w001/edit", false)
}

// BenchmarkCheckAsYouType measures one round trip of the editor's check
// as the reader types, server side: the largest bundled workflow, as a
// user workflow, validated, compiled and rendered as the problems panel
// and the steps outline.
func BenchmarkCheckAsYouType(b *testing.B) {
	h := benchDesk(b)
	var largest []byte
	names, _ := fs.Glob(workflows.FS, "*.json")
	for _, name := range names {
		if text, _ := fs.ReadFile(workflows.FS, name); len(text) > len(largest) {
			largest = text
		}
	}
	text, _ := catalog.WithID(largest, "user.largest")
	form := url.Values{"text": {string(text)}, "kind": {"user"}}.Encode()
	token := csrfOf(b, h)
	cpu := cpuTime()
	defer func() { b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op") }()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/workflows/check", strings.NewReader(form))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("HX-Request", "true")
		req.Header.Set("X-CSRF-Token", token)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "No problems: user.largest") {
			b.Fatalf("POST /workflows/check = %d:\n%s", rec.Code, rec.Body.String())
		}
	}
}

// csrfOf is the token the Console's forms carry.
func csrfOf(tb testing.TB, h http.Handler) string {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/workflows/new", nil))
	token := between(rec.Body.String(), `name="csrf" value="`, `"`)
	if token == "" {
		tb.Fatal("no CSRF token on /workflows/new")
	}
	return token
}
