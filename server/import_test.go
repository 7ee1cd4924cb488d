package server

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/server/budget"
)

// An import refused before its body is read (the budget is spent and no
// room is left to wait) or after part of it (a bundle over the size
// limit) is answered 503 or 422 with the envelope, read whole by the
// client, on both listeners: the daemon reads and drops the body first.
// Before, it answered without reading it and closed the connection on a
// client still sending, who saw a reset or a broken pipe instead.
func TestRefusedImportIsAnsweredNotReset(t *testing.T) {
	const limit = 1 << 20
	h := tempHome(t)
	b := budget.New(budget.ParseFactor*limit, 0, time.Second)
	d, err := Start(Config{Home: h, Version: "1.0.0", Token: testToken, Tools: answering{},
		Console: func(chi.Router) {}, Static: fstest.MapFS{},
		Log: slog.New(slog.DiscardHandler), Now: time.Now, ImportBudget: b,
		API: API{Admin: testAdmin{}, Sessions: testSessions{imp: func(body io.Reader, _ bool) (any, *protocol.ErrorResult) {
			if n, _ := io.Copy(io.Discard, io.LimitReader(body, limit+1)); n > limit {
				r := protocol.NewError(engine.Errorf(engine.CodePayloadTooLarge, "the bundle is larger than 1 MiB"))
				return nil, &r
			}
			return map[string]any{}, nil
		}}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Shutdown(context.Background()) })
	// One connection a request, as the CLI asks.
	socket := &http.Client{Transport: &http.Transport{DisableKeepAlives: true, DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", h.Socket())
	}}}
	post := func(t *testing.T, c *http.Client, url string, body []byte) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("an import of %d bytes: %v", len(body), err)
		}
		defer resp.Body.Close()
		answer, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("reading the answer: %v", err)
		}
		return resp.StatusCode, string(answer)
	}
	big := bytes.Repeat([]byte("x"), 24<<20)
	for _, l := range []struct {
		name, url string
		c         *http.Client
	}{{"socket", "http://localhost/api/import", socket}, {"tcp", d.URL() + "/api/import", &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}}} {
		t.Run(l.name, func(t *testing.T) {
			code, answer := post(t, l.c, l.url, big)
			if code != http.StatusUnprocessableEntity || !strings.Contains(answer, `"code":"PAYLOAD_TOO_LARGE"`) {
				t.Errorf("an import over the limit: %d %s", code, answer)
			}
			release, err := b.Reserve(t.Context(), limit)
			if err != nil {
				t.Fatal(err)
			}
			code, answer = post(t, l.c, l.url, big)
			release()
			if code != http.StatusServiceUnavailable || !strings.Contains(answer, `"code":"DAEMON_UNAVAILABLE"`) {
				t.Errorf("an import beyond the budget: %d %s", code, answer)
			}
		})
	}
}
