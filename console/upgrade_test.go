package console_test

import (
	"compress/gzip"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/workflows"
)

// A database an earlier build wrote (schema 5: events without times or
// origins) renders: its sessions are listed, in an order the upgrade gave
// them, and every page that shows a time says "—" for what it never
// recorded.
func TestEarlierBuildsLogRenders(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "store", "testdata", "upgrade", "schema-5", "workrail.db.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "workrail.db")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	h := serve(t, openStore(t, path), executetest.Catalog(t, workflows.FS))
	code, page := getPath(t, h, "/")
	if ids, _, _ := listed(page); code != http.StatusOK || len(ids) != 2 {
		t.Fatalf("GET / = %d, sessions %v", code, ids)
	}
	if !strings.Contains(page, `data-testid="last-activity"><span class="meta" title="not recorded`) {
		t.Error("the sessions list gives a last activity time the log never recorded")
	}
	for _, path := range []string{"/sessions/ses_1", "/sessions/ses_1/runs/run_1", "/sessions/ses_1/runs/run_1?node=node_2", "/sessions/ses_1/events", "/sessions/ses_1/events.json"} {
		code, page := getPath(t, h, path)
		if code != http.StatusOK {
			t.Fatalf("GET %s = %d", path, code)
		}
		if strings.Contains(page, `data-testid="origin"`) || strings.Contains(page, `"time":`) || strings.Contains(page, `"appendedAt"`) || strings.Contains(page, `&#34;appendedAt&#34;`) {
			t.Errorf("GET %s shows a time or an origin the log never recorded", path)
		}
	}
	if _, page := getPath(t, h, "/sessions/ses_1/events"); !strings.Contains(page, `data-testid="time">—</span>`) {
		t.Error("the event history does not say — for an event without a time")
	}
}
