package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// rawShim runs `workrail mcp` on home with input on its stdin, which then
// closes, and returns what it wrote and how it exited. It fails the test
// if the shim has not exited within 30s.
func rawShim(t *testing.T, home, input string) (stdout []string, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, "mcp")
	cmd.Env = procEnv(home)
	cmd.Stdin = strings.NewReader(input)
	var out, errb syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("the shim did not exit within 30s of its stdin closing; stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	if s := strings.TrimSuffix(out.String(), "\n"); s != "" {
		stdout = strings.Split(s, "\n")
	}
	return stdout, errb.String(), code
}

func deepArrays(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// TestShimAnswersLinesItCannotParse: every line that is not a notification
// gets exactly one reply, also when the daemon refuses it (HTTP 400) and
// the shim cannot decode it with encoding/json. The old shim wrote nothing
// for these lines, so a client waiting for the reply hung.
func TestShimAnswersLinesItCannotParse(t *testing.T) {
	home := newHome(t)
	lines := []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_workflows","arguments":{"x":` + deepArrays(10000) + `}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"ping"`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`hello`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":8,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`,
	}
	t0 := time.Now()
	out, stderr, code := rawShim(t, home, strings.Join(lines, "\n")+"\n")
	t.Logf("%d lines answered with %d replies in %v (including starting the daemon)", len(lines), len(out), time.Since(t0).Round(time.Millisecond))
	if code != 0 {
		t.Errorf("shim exit %d; stderr:\n%s", code, stderr)
	}
	type reply struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	byID := map[string][]reply{}
	var nullCodes []int
	for _, l := range out {
		var r reply
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("stdout line is not JSON (%v): %.300s", err, l)
		}
		t.Logf("reply: %.200s", l)
		if string(r.ID) == "null" {
			if r.Error == nil {
				t.Errorf("id null without an error: %s", l)
				continue
			}
			nullCodes = append(nullCodes, r.Error.Code)
			continue
		}
		byID[string(r.ID)] = append(byID[string(r.ID)], r)
	}
	if rs := byID["7"]; len(rs) != 1 || !strings.Contains(string(rs[0].Result), `"isError":true`) || !strings.Contains(string(rs[0].Result), `INVALID_INPUT`) {
		t.Errorf("the tool call nested deeper than encoding/json allows got %d replies %+v, want one tool result with id 7 carrying INVALID_INPUT", len(rs), rs)
	}
	if rs := byID["8"]; len(rs) != 1 || rs[0].Result == nil {
		t.Errorf("ping got %d replies, want one result with id 8", len(rs))
	}
	if rs := byID["9007199254740993"]; len(rs) != 1 || rs[0].Error == nil || rs[0].Error.Code != -32600 {
		t.Errorf("a ping with an id past 2^53 got %+v, want one Invalid Request under that id (not an answer under the nearest double)", rs)
	}
	slices.Sort(nullCodes)
	if want := []int{-32700, -32700, -32600, -32600}; !slices.Equal(nullCodes, want) {
		t.Errorf("id-null error codes %v, want %v (truncated, not JSON: parse error; batch, a null id: invalid request)", nullCodes, want)
	}
	if len(out) != 7 {
		t.Errorf("%d reply lines for 7 requests and 1 notification, want 7", len(out))
	}
}

// writeStaleInfo leaves daemon.json naming pid, and the socket of a daemon
// that died, as a crash does.
func writeStaleInfo(t *testing.T, home string, pid int) {
	t.Helper()
	b, _ := json.Marshal(daemonInfo{PID: pid, URL: "http://127.0.0.1:1", Socket: filepath.Join(home, "daemon.sock"), Version: "0", StartedAt: "2020-01-01T00:00:00Z"})
	if err := os.WriteFile(filepath.Join(home, "daemon.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(home, "daemon.sock"))
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
}

// TestShimIgnoresStaleDaemonJSON: daemon.json names a pid that runs but is
// no daemon (the pid was reused). The old shim took the live pid for a
// daemon coming up and waited its whole start timeout (10s) before it
// started one.
func TestShimIgnoresStaleDaemonJSON(t *testing.T) {
	cases := []struct {
		name string
		pid  func(t *testing.T) int
	}{
		{"pid of the test itself", func(t *testing.T) int { return os.Getpid() }},
		{"pid of a sleeping child", func(t *testing.T) int {
			cmd := exec.Command("sleep", "120")
			if err := cmd.Start(); err != nil {
				t.Skipf("no sleep: %v", err)
			}
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			return cmd.Process.Pid
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := newHome(t)
			pid := tc.pid(t)
			writeStaleInfo(t, home, pid)
			t0 := time.Now()
			s := startShimFull(t, home)
			took := time.Since(t0)
			t.Logf("spawn + start daemon + initialize with a stale daemon.json naming live pid %d: %v", pid, took.Round(time.Millisecond))
			if took >= 5*time.Second {
				t.Errorf("initialize took %v: the shim waited for pid %d, which is no daemon", took.Round(time.Millisecond), pid)
			}
			i := mustInfo(t, home)
			if i.PID == pid || !alive(i.PID) || !isOurDaemon(i.PID) {
				t.Fatalf("daemon.json names pid %d (stale %d): no fresh daemon", i.PID, pid)
			}
			mustKind(t, call(t, s.c, "list_workflows", map[string]any{}), "workflows")
		})
	}
}

// TestShimWithClosedStdinExitsQuietly: a shim whose stdin closes before any
// message exits 0, writes nothing, and neither starts nor stops a daemon.
// The old shim started a daemon for it (and said so on stderr).
func TestShimWithClosedStdinExitsQuietly(t *testing.T) {
	t.Run("no daemon", func(t *testing.T) {
		home := newHome(t)
		out, stderr, code := rawShim(t, home, "")
		if code != 0 || len(out) != 0 || stderr != "" {
			t.Errorf("exit %d, stdout %q, stderr %q; want 0 and nothing written", code, out, stderr)
		}
		if _, err := os.Stat(filepath.Join(home, "daemon.json")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("daemon.json: %v, want none: a daemon was started", err)
		}
		if pids := daemonPIDs(home); len(pids) != 0 {
			t.Errorf("daemons %v were started for a shim with nothing to forward", pids)
		}
	})
	t.Run("daemon running", func(t *testing.T) {
		home := newHome(t)
		d := startDaemon(t, home)
		before, err := os.ReadFile(filepath.Join(home, "daemon.json"))
		if err != nil {
			t.Fatal(err)
		}
		out, stderr, code := rawShim(t, home, "")
		if code != 0 || len(out) != 0 || stderr != "" {
			t.Errorf("exit %d, stdout %q, stderr %q; want 0 and nothing written", code, out, stderr)
		}
		if _, exited := d.exitCode(0); exited {
			t.Fatalf("the daemon exited when a shim's stdin closed; stderr:\n%s", d.stderr)
		}
		if after, err := os.ReadFile(filepath.Join(home, "daemon.json")); err != nil || !bytes.Equal(after, before) {
			t.Errorf("daemon.json changed: %v\n%s\n%s", err, before, after)
		}
	})
}

// TestShimWithClosedStdoutExitsQuietly: when the IDE closes the shim's
// stdout but keeps its stdin open, the shim's first answer fails (EPIPE)
// and it exits 0 without a word, instead of dying of SIGPIPE or reading on
// for nobody; the daemon, which other windows may use, runs on untouched.
func TestShimWithClosedStdoutExitsQuietly(t *testing.T) {
	home := newHome(t)
	d := startDaemon(t, home)
	before, err := os.ReadFile(filepath.Join(home, "daemon.json"))
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // nobody reads the shim's stdout
	cmd := exec.Command(bin, "mcp")
	cmd.Env = procEnv(home)
	cmd.Stdout = w
	var errb syncBuffer
	cmd.Stderr = &errb
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	if _, err := io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("the shim still ran 30s after its stdout closed (stdin open); stderr:\n%s", errb.String())
	}
	if err != nil || errb.String() != "" {
		t.Errorf("shim exit %v, stderr %q; want exit 0 and nothing written", err, errb.String())
	}
	if _, exited := d.exitCode(0); exited {
		t.Fatalf("the daemon exited when a shim's stdout closed; stderr:\n%s", d.stderr)
	}
	if after, err := os.ReadFile(filepath.Join(home, "daemon.json")); err != nil || !bytes.Equal(after, before) {
		t.Errorf("daemon.json changed: %v\n%s\n%s", err, before, after)
	}
}
