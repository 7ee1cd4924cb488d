package daemon_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/workrail/workrail/cmd/workrail/daemon"
	"github.com/workrail/workrail/server"
	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/store"
)

// start builds a daemon in process on a fresh home, listening on a free
// port, and closes it at the test's end.
func start(t *testing.T) (*daemon.Daemon, home.Dir) {
	t.Helper()
	dir, err := os.MkdirTemp("", "wr-") // a socket path fits in sun_path
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	h := home.Dir(dir)
	if err := os.MkdirAll(h.Path("logs"), 0o700); err != nil {
		t.Fatal(err)
	}
	d, err := daemon.New(daemon.Config{Home: h, Port: daemon.Port{Given: true}, Version: "test", Log: daemon.NewLog(h, false, io.Discard)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close(context.Background()) })
	return d, h
}

// socketMCP is an MCP client of the daemon's unix socket, initialized.
func socketMCP(t *testing.T, h home.Dir) *client.Client {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true,
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", h.Socket())
		}}}
	c, err := client.NewStreamableHttpClient("http://localhost/mcp", transport.WithHTTPBasicClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "daemon-test", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return c
}

// A daemon started in process serves an MCP tool call on its socket, and
// Close lets go of everything it took: the socket, daemon.json and the
// store's lock, so another daemon can start on the same home.
func TestDaemonInProcessServesMCPAndCloses(t *testing.T) {
	d, h := start(t)
	c := socketMCP(t, h)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = "list_workflows"
	req.Params.Arguments = map[string]any{}
	res, err := c.CallTool(ctx, req)
	if err != nil || res.IsError || len(res.Content) == 0 {
		t.Fatalf("list_workflows = %+v, %v", res, err)
	}
	if text, _ := res.Content[0].(mcp.TextContent); !strings.Contains(text.Text, "wr.") {
		t.Fatalf("list_workflows lists no bundled workflow:\n%.500s", text.Text)
	}
	c.Close()

	if err := d.Close(context.Background()); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for _, f := range []string{h.Socket(), h.Path("daemon.json")} {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s after Close: %v; want it gone", f, err)
		}
	}
	st, err := store.Open(h.DB(), store.Options{Now: time.Now})
	if err != nil {
		t.Fatalf("the store after Close: %v; want its lock released", err)
	}
	st.Close()
	if err := d.Close(context.Background()); err != nil {
		t.Errorf("a second Close = %v; want the first's result", err)
	}
}

// Run returns the action asked of the daemon, and ActionStop when its
// context ends.
func TestDaemonRunReturnsWhatItWasAsked(t *testing.T) {
	d, _ := start(t)
	d.Server().Request(server.ActionRestart)
	if a, err := d.Run(t.Context()); a != server.ActionRestart || err != nil {
		t.Errorf("Run after a restart was asked = %q, %v", a, err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if a, err := d.Run(ctx); a != server.ActionStop || err != nil {
		t.Errorf("Run with its context ended = %q, %v", a, err)
	}
}

// A second daemon on a home whose store another holds fails fast with
// ErrAlreadyRunning, naming the first.
func TestSecondDaemonOnAHomeIsRefused(t *testing.T) {
	first, h := start(t)
	_, err := daemon.New(daemon.Config{Home: h, Port: daemon.Port{Given: true}, Version: "test", Log: daemon.NewLog(h, false, io.Discard)})
	if !errors.Is(err, daemon.ErrAlreadyRunning) || !strings.Contains(err.Error(), first.Server().URL()) {
		t.Fatalf("a second daemon = %v; want ErrAlreadyRunning naming %s", err, first.Server().URL())
	}
}
