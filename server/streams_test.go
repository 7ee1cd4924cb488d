package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workrail/workrail/server/home"
)

// startLimited starts a daemon on h with lim, stopped when the test ends.
func startLimited(t *testing.T, h home.Dir, lim Limits) *Daemon {
	t.Helper()
	d, err := Start(Config{Home: h, Version: "1.0.0", Token: testToken, Tools: answering{},
		Console: func(r chi.Router) {
			r.Get("/", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "console") })
		},
		Static: fstest.MapFS{}, API: API{Admin: testAdmin{status: map[string]string{"status": "running"}}},
		Log: slog.New(slog.DiscardHandler), Now: time.Now, Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Shutdown(context.Background()) })
	return d
}

// rawStream opens GET /mcp on a connection of its own to h's socket and
// returns the connection, read from its start, and the status line. The
// connection is read for at most 10 s.
func rawStream(t *testing.T, h home.Dir) (*bufio.Reader, string) {
	t.Helper()
	c, err := net.Dial("unix", h.Socket())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprint(c, "GET /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n")
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(c)
	status, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("a stream's status line: %v", err)
	}
	return r, strings.TrimSpace(status)
}

// Event streams leave the socket's connection cap for one of their own:
// with more streams held than the socket serves connections, status and
// a tool call are answered at once, and a stream over the streams' cap is
// refused with 503 and Retry-After, its connection closed.
func TestStreamsNeverHoldUpRequests(t *testing.T) {
	const conns, streams = 4, 8
	h := tempHome(t)
	startLimited(t, h, Limits{SocketConns: conns, SocketStreams: streams})
	for i := range streams {
		if _, status := rawStream(t, h); status != "HTTP/1.1 200 OK" {
			t.Fatalf("stream %d: %s", i, status)
		}
	}
	r, status := rawStream(t, h)
	if status != "HTTP/1.1 503 Service Unavailable" {
		t.Fatalf("a stream over the cap: %s", status)
	}
	header, _ := io.ReadAll(r) // the daemon closes the connection
	if !strings.Contains(string(header), "Retry-After: 30") || !strings.Contains(string(header), "Connection: close") {
		t.Errorf("the refusal of a stream over the cap:\n%s", header)
	}
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true,
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", h.Socket())
		}}}
	for range 2 * conns {
		resp, err := c.Get("http://localhost/api/status")
		if err != nil {
			t.Fatalf("status beside %d streams: %v", streams, err)
		}
		resp.Body.Close()
	}
	resp, err := c.Post("http://localhost/mcp", "application/json",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_workflows","arguments":{}}}`))
	if err != nil {
		t.Fatalf("a tool call beside %d streams: %v", streams, err)
	}
	resp.Body.Close()
}

// A stream with nothing to say sends a comment every keep-alive interval
// and ends once it has carried no notification for the idle time; a
// notification puts that off.
func TestStreamsKeepAliveAndEndWhenIdle(t *testing.T) {
	const keepAlive, idle = 40 * time.Millisecond, 400 * time.Millisecond
	h := tempHome(t)
	d := startLimited(t, h, Limits{StreamKeepAlive: keepAlive, StreamIdle: idle})
	r, status := rawStream(t, h)
	if status != "HTTP/1.1 200 OK" {
		t.Fatal(status)
	}
	var lines []string
	sent := false
	for {
		l, err := r.ReadString('\n')
		if errors.Is(err, io.EOF) {
			break // the daemon ended the stream
		}
		if err != nil {
			t.Fatalf("the stream did not end: %v", err)
		}
		lines = append(lines, strings.TrimSpace(l))
		if !sent && strings.Count(strings.Join(lines, "\n"), ": keep-alive") == 3 {
			d.notes.send(listChanged, listChangedMethod)
			sent = true
		}
	}
	text := strings.Join(lines, "\n")
	n := strings.Count(text, ": keep-alive")
	if !strings.Contains(text, "data: "+listChanged) || n < 3+int(idle/keepAlive)/2 {
		t.Errorf("%d keep-alives, and the stream ended after:\n%s", n, text)
	}
	if d.notes.listeners() != 0 {
		t.Error("the ended stream is still subscribed")
	}
}

// One local user cannot take every TCP connection: a flood from another
// user (nobody, opening connections with bash) is held to its share, and
// the owner's Console still answers. Runs as root, which can switch user.
func TestTCPFloodIsBoundedPerUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("this test opens connections as user nobody (65534), which needs root to switch to")
	}
	const conns, share, flood = 8, 3, 12
	h := tempHome(t)
	d := startLimited(t, h, Limits{TCPConns: conns, TCPPeerConns: share})
	port := d.Port()
	script := fmt.Sprintf(`for i in $(seq 3 %d); do eval "exec $i<>/dev/tcp/127.0.0.1/%d" || exit 1; done; echo open; sleep 30`, flood+2, port)
	cmd := exec.Command("bash", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if l, err := bufio.NewReader(out).ReadString('\n'); err != nil || l != "open\n" {
		t.Fatalf("the other user's %d connections: %q %v", flood, l, err)
	}
	for range 2 * conns {
		req, _ := http.NewRequest(http.MethodGet, d.URL()+"/", nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := (&http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
		if err != nil {
			t.Fatalf("the owner's Console beside another user's %d connections: %v", flood, err)
		}
		resp.Body.Close()
	}
	d.peers.mu.Lock()
	held := d.peers.n["uid 65534"]
	d.peers.mu.Unlock()
	if held != share {
		t.Errorf("the other user holds %d connections, want its share of %d", held, share)
	}
}

// A request whose body never comes cannot hold a TCP connection: once
// the body timeout passes the daemon closes it, though the connection is
// not idle between requests.
func TestTCPBodyIsReadWithinItsTime(t *testing.T) {
	h := tempHome(t)
	d := startLimited(t, h, Limits{TCPBody: 200 * time.Millisecond})
	c, err := net.Dial("tcp", strings.TrimPrefix(d.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{", strings.TrimPrefix(d.URL(), "http://"))
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	answer, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("the connection was not closed (%v); it answered:\n%s", err, answer)
	}
	if !strings.HasPrefix(string(answer), "HTTP/1.1 401") {
		t.Errorf("answered:\n%s", answer)
	}
}

// BenchmarkPeerOf is what naming the user of a TCP connection costs each
// accept.
func BenchmarkPeerOf(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	s, err := ln.Accept()
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	want := fmt.Sprintf("uid %d", os.Getuid())
	for b.Loop() {
		if p, ok := peerOf(s); !ok || p != want {
			b.Fatalf("peerOf = %q %v, want %q", p, ok, want)
		}
	}
}
