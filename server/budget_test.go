package server

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/server/budget"
)

// An import beyond the budget, with no room to wait, is refused with 503
// and the error envelope while another holds the budget; once that one
// is done the same import goes through.
func TestImportBeyondTheBudgetIsRefused(t *testing.T) {
	inside, letGo := make(chan struct{}, 2), make(chan struct{})
	d := &Daemon{cfg: Config{Home: "/h", Version: "test", Token: testToken, Console: func(chi.Router) {},
		Static: fstest.MapFS{}, Log: slog.New(slog.DiscardHandler),
		ImportBudget: budget.New(budget.ParseFactor*1000, 0, time.Second),
		API: API{Admin: testAdmin{}, Sessions: testSessions{imp: func(body io.Reader, dryRun bool) (any, *protocol.ErrorResult) {
			io.ReadAll(body)
			inside <- struct{}{}
			<-letGo
			return map[string]any{"dryRun": dryRun}, nil
		}}}}}
	socket := d.socketRouter(http.NotFoundHandler())
	held := make(chan int)
	go func() { held <- request(socket, "POST", "/api/import?dryRun=true", "", strings.Repeat("x", 800)).Code }()
	<-inside
	rec := request(socket, "POST", "/api/import?dryRun=true", "", strings.Repeat("y", 800))
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), `"code":"DAEMON_UNAVAILABLE"`) ||
		!strings.Contains(rec.Body.String(), "busy") {
		t.Fatalf("an import beyond the budget: HTTP %d %s; want 503 with the envelope", rec.Code, rec.Body)
	}
	close(letGo)
	if code := <-held; code != http.StatusOK {
		t.Fatalf("the import holding the budget ended %d", code)
	}
	if rec := request(socket, "POST", "/api/import?dryRun=true", "", "z"); rec.Code != http.StatusOK {
		t.Fatalf("an import once the budget is free: HTTP %d %s", rec.Code, rec.Body)
	}
}
