package server

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/workflows"
)

// heldList is the tools with a list_workflows that, once entered, waits
// until released: an MCP request the test keeps in flight.
type heldList struct {
	Tools
	entered, release chan struct{}
}

func (h heldList) List(ctx context.Context, raw []byte) protocol.Result {
	h.entered <- struct{}{}
	<-h.release
	return h.Tools.List(ctx, raw)
}

// tempHome is a home folder whose socket path fits in sun_path.
func tempHome(t *testing.T) home.Dir {
	t.Helper()
	d, err := os.MkdirTemp("", "wr-server-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return home.Dir(d)
}

// startListening starts a daemon with real listeners on h, stopped when
// the test ends.
func startListening(t *testing.T, h home.Dir, port int, anyPort bool, tools Tools) (*Daemon, error) {
	t.Helper()
	if tools == nil {
		tools = execute.New(memstore.New(), executetest.Ring(t), executetest.Catalog(t, workflows.FS), workflow.Preferences{}, executetest.Clock, t.Logf)
	}
	d, err := Start(Config{Home: h, Port: port, AnyPort: anyPort, Version: "1.0.0", Token: testToken, Tools: tools,
		Console: func(chi.Router) {}, Static: fstest.MapFS{}, API: API{Admin: testAdmin{}},
		Log: slog.New(slog.DiscardHandler), Now: time.Now})
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { d.Shutdown(context.Background()) })
	return d, nil
}

// socketClient talks HTTP to h's socket, keeping its connections open as
// a shim's client does.
func socketClient(h home.Dir) *http.Client {
	dial := func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", h.Socket())
	}
	return &http.Client{Transport: &http.Transport{DialContext: dial}}
}

// askRetire posts /retire on a connection of its own, as a newer shim
// does, and returns the status.
func askRetire(t *testing.T, h home.Dir) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://localhost/retire", strings.NewReader(`{"version":"2.0.0"}`))
	req.Close = true
	resp, err := socketClient(h).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

func retired(d *Daemon) bool {
	select {
	case a := <-d.Control():
		return a == ActionRetire
	default:
		return false
	}
}

// TestRetireOnlyWhenIdle: a newer shim's request to retire is granted only
// when nothing else uses the daemon: no other connection to its socket (a
// running shim keeps one open) and no MCP request in flight.
func TestRetireOnlyWhenIdle(t *testing.T) {
	const listReq = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_workflows","arguments":{}}}`
	cases := []struct {
		name string
		use  func(t *testing.T, h home.Dir, d *Daemon, held heldList) // leaves the daemon in use, or not
		want int
	}{
		{"idle", func(*testing.T, home.Dir, *Daemon, heldList) {}, http.StatusOK},
		{"idle after a shim came and went", func(t *testing.T, h home.Dir, _ *Daemon, _ heldList) {
			c := socketClient(h)
			resp, err := c.Get("http://localhost/health")
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			c.CloseIdleConnections()
		}, http.StatusOK},
		{"another shim's connection is open", func(t *testing.T, h home.Dir, _ *Daemon, _ heldList) {
			c := socketClient(h)
			resp, err := c.Get("http://localhost/health")
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			t.Cleanup(c.CloseIdleConnections)
		}, http.StatusConflict},
		// Over TCP, so that no connection to the socket is open.
		{"an MCP request is in flight", func(t *testing.T, _ home.Dir, d *Daemon, held heldList) {
			go func() {
				req, _ := http.NewRequest(http.MethodPost, d.URL()+"/mcp", strings.NewReader(listReq))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Authorization", "Bearer "+testToken)
				if resp, err := http.DefaultClient.Do(req); err == nil {
					resp.Body.Close()
				}
			}()
			<-held.entered
		}, http.StatusConflict},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := tempHome(t)
			uc := execute.New(memstore.New(), executetest.Ring(t), executetest.Catalog(t, workflows.FS), workflow.Preferences{}, executetest.Clock, t.Logf)
			held := heldList{Tools: uc, entered: make(chan struct{}, 1), release: make(chan struct{})}
			d, err := startListening(t, h, 0, false, held)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { close(held.release) })
			tc.use(t, h, d, held)
			// A closed connection is counted once the server has seen it
			// close; ask until the answer settles or the daemon retires.
			got := askRetire(t, h)
			for deadline := time.Now().Add(5 * time.Second); got != tc.want && tc.want == http.StatusOK && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
				got = askRetire(t, h)
			}
			if got != tc.want {
				t.Fatalf("POST /retire = %d, want %d", got, tc.want)
			}
			if r := retired(d); r != (tc.want == http.StatusOK) {
				t.Errorf("asked to retire = %v after answering %d", r, got)
			}
		})
	}
}

// TestRetireIsNotOnTCP: only the socket, reachable by this user alone,
// can ask the daemon to retire; a web page could post to the TCP port.
func TestRetireIsNotOnTCP(t *testing.T) {
	d, err := startListening(t, tempHome(t), 0, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, d.URL()+"/retire", strings.NewReader(`{"version":"2.0.0"}`))
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK || retired(d) {
		t.Fatalf("POST /retire over TCP = %d, retired %v; want it refused", resp.StatusCode, retired(d))
	}
}

// TestTakenPort: a port another program holds fails a foreground daemon
// with what to do, and gives way to a free port for one a shim started.
func TestTakenPort(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := taken.Addr().(*net.TCPAddr).Port

	t.Run("foreground", func(t *testing.T) {
		h := tempHome(t)
		_, err := startListening(t, h, port, false, nil)
		if err == nil {
			t.Fatal("Start succeeded on a taken port")
		}
		for _, want := range []string{"port " + strconv.Itoa(port) + " is in use by another program", "workrail daemon --port N", "0 picks a free one", "WORKRAIL_PORT"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
		}
		if _, err := h.ReadInfo(); err == nil {
			t.Error("daemon.json written by a daemon that did not start")
		}
	})
	t.Run("any port", func(t *testing.T) {
		h := tempHome(t)
		d, err := startListening(t, h, port, true, nil)
		if err != nil {
			t.Fatal(err)
		}
		info, err := h.ReadInfo()
		if err != nil {
			t.Fatal(err)
		}
		if info.URL != d.URL() || strings.HasSuffix(info.URL, ":"+strconv.Itoa(port)) {
			t.Fatalf("daemon.json url %q, daemon URL %q; want another port than the taken %d", info.URL, d.URL(), port)
		}
		resp, err := http.Get(d.URL() + "/mcp")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("GET %s/mcp = %d, want the daemon's 401", d.URL(), resp.StatusCode)
		}
	})
}
