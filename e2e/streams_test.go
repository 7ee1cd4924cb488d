package e2e

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/workrail/workrail/server"
)

// holdStream opens GET /mcp as an event stream on a connection of its own
// to the daemon's socket and returns the status line; a stream served is
// held open until the test ends.
func holdStream(t *testing.T, socket string) string {
	t.Helper()
	c, err := net.DialTimeout("unix", socket, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprint(c, "GET /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n")
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	status, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatalf("a stream's status line: %v", err)
	}
	return strings.TrimSpace(status)
}

// commandWithin runs `workrail ARGS…` on home, failing the test if it has
// not exited within 20 s.
func commandWithin(t *testing.T, home string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = procEnv(home)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("workrail %s: %v (context: %v)\n%s", strings.Join(args, " "), err, ctx.Err(), out)
	}
	return string(out)
}

// Notification streams cannot starve the socket: 600 are asked for, more
// than the socket serves connections at once (512). The daemon holds as
// many as its streams' cap and refuses the rest with 503 at once; with
// those held, `workrail status` answers, a new shim starts and answers a
// tool call, and `workrail stop` stops the daemon. Before, streams shared
// the socket's cap: with 512 held a new shim failed after 29 s and
// status hung past 60 s.
func TestStreamsNeverStarveTheSocket(t *testing.T) {
	home := newHome(t)
	d := startDaemon(t, home)
	held, refused := 0, 0
	for i := range 600 {
		switch status := holdStream(t, d.info.Socket); status {
		case "HTTP/1.1 200 OK":
			held++
		case "HTTP/1.1 503 Service Unavailable":
			refused++
		default:
			t.Fatalf("stream %d: %s", i, status)
		}
	}
	if want := server.DefaultLimits().SocketStreams; held != want || refused != 600-want {
		t.Fatalf("%d streams held and %d refused, want the cap of %d held", held, refused, want)
	}
	t0 := time.Now()
	if out := commandWithin(t, home, "status", "--json"); !strings.Contains(out, `"pid"`) {
		t.Fatalf("status beside %d streams:\n%s", held, out)
	}
	t.Logf("status answered in %v beside %d streams", time.Since(t0).Round(time.Millisecond), held)
	t0 = time.Now()
	s, err := spawnShim(home)
	if err != nil {
		t.Fatalf("a new shim beside %d streams: %v", held, err)
	}
	defer s.c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := tryCall(ctx, s.c, "list_workflows", map[string]any{})
	if err != nil {
		t.Fatalf("a new shim's call beside %d streams: %v\n%s", held, err, s.stderr)
	}
	mustKind(t, r, "workflows")
	t.Logf("a new shim started and answered in %v", time.Since(t0).Round(time.Millisecond))
	commandWithin(t, home, "stop")
	if code, ok := d.exitCode(20 * time.Second); !ok || code != 0 {
		t.Fatalf("the daemon did not stop with %d streams open (exited: %v, code %d)", held, ok, code)
	}
}
