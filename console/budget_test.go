package console_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workrail/workrail/console"
	"github.com/workrail/workrail/engine/bundle"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/server/budget"
	"github.com/workrail/workrail/workflows"
)

// held is the use cases with an Import (the previews' dry runs) that
// waits until let go, counting how many run at once.
type held struct {
	console.Bundles
	now, most atomic.Int32
	entered   chan struct{}
	letGo     chan struct{}
}

func (h *held) Import(b []byte, dryRun bool) (bundle.ImportReport, error) {
	n := h.now.Add(1)
	defer h.now.Add(-1)
	for m := h.most.Load(); n > m && !h.most.CompareAndSwap(m, n); m = h.most.Load() {
	}
	h.entered <- struct{}{}
	<-h.letGo
	return bundle.ImportReport{DryRun: dryRun}, nil
}

// Previews share one memory budget: with room for one, one is checked at
// a time, two wait their turn and the rest are refused at once with 503
// and a message saying to upload again. Without the budget all six were
// parsed together.
func TestPreviewsShareOneBudget(t *testing.T) {
	st := memstore.New()
	bundles := &held{entered: make(chan struct{}, 16), letGo: make(chan struct{})}
	body, kind := previewBody(t)
	r := chi.NewRouter()
	console.New(console.Config{Store: st, Workflows: executetest.Catalog(t, workflows.FS), Bundles: bundles, Secret: []byte("test secret"),
		Now: time.Now, Logf: t.Logf,
		ImportBudget: budget.New(budget.ParseFactor*int64(len(body))*3/2, 2, 10*time.Second)}).Routes(r)
	const previews = 6
	codes := make(chan int, previews)
	pages := make(chan string, previews)
	var wg sync.WaitGroup
	for range previews {
		wg.Go(func() {
			req := httptest.NewRequest(http.MethodPost, "/import", bytes.NewReader(body))
			req.Header.Set("Content-Type", kind)
			rec := httptest.NewRecorder()
			r.ServeHTTP(rec, req)
			codes <- rec.Code
			pages <- rec.Body.String()
		})
	}
	<-bundles.entered // one is being checked
	refused := 0
	for refused < previews-3 {
		select {
		case code := <-codes:
			page := <-pages
			if code != http.StatusServiceUnavailable || !strings.Contains(page, "busy") {
				t.Fatalf("a preview beyond the budget and the queue: %d\n%.400s", code, page)
			}
			refused++
		case <-time.After(5 * time.Second):
			t.Fatalf("%d previews refused, want %d: the budget let more run or wait", refused, previews-3)
		}
	}
	close(bundles.letGo)
	wg.Wait()
	close(codes)
	for code := range codes {
		if code != http.StatusOK {
			t.Errorf("a queued preview ended %d, want 200", code)
		}
	}
	if m := bundles.most.Load(); m != 1 {
		t.Errorf("%d previews were checked at once, want 1", m)
	}
}

// previewBody is an import form (the CSRF field of a Console whose
// secret is "test secret" first) carrying a small bundle file.
func previewBody(t *testing.T) ([]byte, string) {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	w.WriteField("csrf", testCSRF(t))
	f, _ := w.CreateFormFile("bundle", "ses_1.json")
	f.Write([]byte(`{"format":"workrail.bundle","pad":"` + strings.Repeat("x", 4096) + `"}`))
	w.Close()
	return body.Bytes(), w.FormDataContentType()
}

// testCSRF is the CSRF token of a Console whose secret is "test secret",
// read from its import page.
func testCSRF(t *testing.T) string {
	t.Helper()
	r := chi.NewRouter()
	console.New(console.Config{Store: memstore.New(), Workflows: executetest.Catalog(t, workflows.FS), Bundles: &held{}, Secret: []byte("test secret"),
		Now: time.Now, Logf: t.Logf}).Routes(r)
	_, page := getPath(t, r, "/import")
	m := regexp.MustCompile(`name="csrf" value="([0-9a-f]{64})"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no CSRF field on the import page")
	}
	return m[1]
}
