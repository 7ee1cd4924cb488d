package e2e

import (
	"context"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// A flood of idle TCP connections from another local user cannot stop the
// agents: the daemon runs with 384 file descriptors, 1,000 connections
// are opened to its port and left idle, and a shim then starts and makes
// a tool call on the socket. The TCP listener's cap keeps descriptors
// for the socket; without it the daemon ran out of them (EMFILE) and the
// shim's call went unanswered.
func TestIdleTCPFloodDoesNotStopAgents(t *testing.T) {
	home := newHome(t)
	cmd := exec.Command("sh", "-c", `ulimit -n 384 && exec "$0" daemon --port 0`, bin)
	cmd.Env = procEnv(home)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var info daemonInfo
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var err error
		if info, err = readInfo(home); err == nil && info.PID == cmd.Process.Pid {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the daemon did not start; stderr:\n%s", stderr.String())
		}
	}
	addr := strings.TrimPrefix(info.URL, "http://")
	for i := range 1000 {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		t.Cleanup(func() { c.Close() })
	}
	t0 := time.Now()
	s, err := spawnShim(home)
	if err != nil {
		t.Fatalf("a shim beside 1,000 idle TCP connections: %v", err)
	}
	defer s.c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, err := tryCall(ctx, s.c, "list_workflows", map[string]any{})
	if err != nil {
		t.Fatalf("list_workflows beside 1,000 idle TCP connections: %v; daemon stderr:\n%.2000s", err, stderr.String())
	}
	mustKind(t, r, "workflows")
	t.Logf("shim started and answered in %v beside 1,000 idle TCP connections", time.Since(t0).Round(time.Millisecond))
}
