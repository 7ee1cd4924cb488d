package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/workflows"
)

// Idle TCP connections beyond the cap wait in the backlog and cannot take
// the socket's share: a shim's tool call is answered at once. Each idle
// connection is closed after the header timeout, and then TCP is served
// again.
func TestIdleTCPFloodLeavesTheSocketServed(t *testing.T) {
	const tcpCap, flood, timeout = 4, 12, 500 * time.Millisecond
	h := tempHome(t)
	tools := execute.New(memstore.New(), executetest.Ring(t), executetest.Catalog(t, workflows.FS), workflow.Preferences{}, executetest.Clock, t.Logf)
	d, err := Start(Config{Home: h, Version: "1.0.0", Token: testToken, Tools: tools,
		Console: func(r chi.Router) {
			r.Get("/", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "console") })
		},
		Static: fstest.MapFS{}, API: API{Admin: testAdmin{}},
		Log: slog.New(slog.DiscardHandler), Now: time.Now,
		Limits: Limits{TCPConns: tcpCap, SocketConns: 4, HeaderTimeout: timeout, TCPIdle: timeout}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Shutdown(context.Background()) })
	addr := strings.TrimPrefix(d.URL(), "http://")
	var idle []net.Conn
	for range flood {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		idle = append(idle, c)
	}
	t0 := time.Now()

	// The shim's path: a tool call on the socket.
	req, _ := http.NewRequest(http.MethodPost, "http://localhost/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_workflows","arguments":{}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := socketClient(h).Do(req)
	if err != nil {
		t.Fatalf("socket call with %d idle TCP connections: %v", flood, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"kind":"workflows"`) {
		t.Fatalf("socket call: HTTP %d %.300s", resp.StatusCode, body)
	}
	t.Logf("socket call answered %v after %d idle TCP connections opened", time.Since(t0).Round(time.Millisecond), flood)

	// TCP itself is at its cap: a new request waits.
	tcp := &http.Client{Timeout: timeout / 3}
	if resp, err := tcp.Get(d.URL() + "/"); err == nil {
		resp.Body.Close()
		if time.Since(t0) < timeout {
			t.Fatalf("a TCP request was served beside %d idle connections: no cap of %d", flood, tcpCap)
		}
	}

	// Every idle connection is closed by the daemon after the timeout.
	for i, c := range idle {
		c.SetReadDeadline(time.Now().Add(10 * timeout * flood / tcpCap))
		if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
			t.Fatalf("idle connection %d: %v, want closed by the daemon", i, err)
		}
	}
	t.Logf("all %d idle connections closed %v after they opened", flood, time.Since(t0).Round(time.Millisecond))
	resp, err = (&http.Client{Timeout: 5 * time.Second}).Get(d.URL() + "/")
	if err != nil {
		t.Fatalf("TCP after the idle connections closed: %v", err)
	}
	resp.Body.Close()
}
