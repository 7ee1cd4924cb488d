package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// buildVersion builds the workrail binary with its version set to v, as a
// release does.
func buildVersion(t *testing.T, v string) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "workrail-"+v)
	build := exec.Command("go", "build", "-ldflags", "-X main.version="+v, "-o", exe, "./cmd/workrail")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build workrail %s: %v\n%s", v, err, out)
	}
	return exe
}

// killDaemonOf SIGKILLs, at cleanup, home's daemon if exe started it:
// killHomeDaemons knows only the daemons of bin.
func killDaemonOf(t *testing.T, exe, home string) {
	t.Cleanup(func() {
		i, err := readInfo(home)
		if err != nil || !alive(i.PID) {
			return
		}
		if cl, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", i.PID)); err != nil || !strings.HasPrefix(string(cl), exe+"\x00daemon") {
			return
		}
		syscall.Kill(i.PID, syscall.SIGKILL)
		waitGone(t, i.PID, 10*time.Second)
	})
}

// identity is what the daemon answers to GET /health on its socket.
type identity struct {
	Service string `json:"service"`
	Home    string `json:"home"`
	PID     int    `json:"pid"`
	Version string `json:"version"`
}

func socketHealth(t *testing.T, home string) identity {
	t.Helper()
	dial := func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", filepath.Join(home, "daemon.sock"))
	}
	c := &http.Client{Transport: &http.Transport{DialContext: dial, DisableKeepAlives: true}, Timeout: 5 * time.Second}
	resp, err := c.Get("http://localhost/health")
	if err != nil {
		t.Fatalf("GET /health on the socket: %v", err)
	}
	defer resp.Body.Close()
	var id identity
	if err := json.NewDecoder(resp.Body).Decode(&id); err != nil {
		t.Fatalf("GET /health: %v", err)
	}
	return id
}

// TestNewerShimReplacesOlderDaemonWhenIdle: after an upgrade, a shim of
// the newer binary uses the older daemon while another window's shim is
// connected to it, and replaces it once none is; the run started on the
// old daemon goes on, with its tokens, on the new one.
func TestNewerShimReplacesOlderDaemonWhenIdle(t *testing.T) {
	const newVersion = "99.0.0"
	newBin := buildVersion(t, newVersion)
	home := newHome(t)
	killDaemonOf(t, newBin, home)

	old := startShimFull(t, home)
	r := startHello(t, old.c)
	st, ack := str(r.S, "stateToken"), str(r.S, "ackToken")
	before := socketHealth(t, home)
	if before.Version == newVersion {
		t.Fatalf("the old daemon reports version %s already", newVersion)
	}

	// 1. The old window is still open: the newer shim is answered by the
	// older daemon, and says why once.
	n1, err := spawnShimOf(newBin, home)
	if err != nil {
		t.Fatal(err)
	}
	mustKind(t, call(t, n1.c, "list_workflows", map[string]any{}), "workflows")
	if got := n1.init.ServerInfo.Version; got != before.Version {
		t.Errorf("the newer shim's initialize was answered by version %q, want the old daemon's %q", got, before.Version)
	}
	if h := socketHealth(t, home); h != before {
		t.Fatalf("with the old window open, /health says %+v, was %+v: the daemon in use was replaced", h, before)
	}
	n1.c.Close()
	if msg := "an older daemon (version " + before.Version + ") is in use by another window"; strings.Count(n1.stderr.String(), msg) != 1 {
		t.Errorf("the newer shim's stderr does not say once %q:\n%s", msg, n1.stderr)
	}

	// 2. Every window is closed: the next newer shim replaces the daemon.
	// The daemon counts a connection as closed once it has read its end,
	// so a shim started right away may still find it in use.
	old.c.Close()
	var n2 *shim
	for attempt := 1; ; attempt++ {
		if n2, err = spawnShimOf(newBin, home); err != nil {
			t.Fatal(err)
		}
		if socketHealth(t, home).Version == newVersion {
			t.Logf("replaced by newer shim number %d after the last window closed", attempt)
			break
		}
		n2.c.Close()
		if attempt == 20 {
			t.Fatalf("the older daemon was not replaced after %d idle starts; last shim's stderr:\n%s", attempt, n2.stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Cleanup(func() { n2.c.Close() })
	after := socketHealth(t, home)
	if after.PID == before.PID || after.Home != before.Home {
		t.Fatalf("after the upgrade /health says %+v, before %+v: want a new pid for the same home", after, before)
	}
	if got := n2.init.ServerInfo.Version; got != newVersion {
		t.Errorf("initialize answered by version %q, want %q", got, newVersion)
	}
	waitGone(t, before.PID, 10*time.Second)
	if i := mustInfo(t, home); i.PID != after.PID || i.Version != newVersion {
		t.Errorf("daemon.json names pid %d version %q, want %d %q", i.PID, i.Version, after.PID, newVersion)
	}

	r = call(t, n2.c, "continue_workflow", map[string]any{"stateToken": st, "ackToken": ack, "output": map[string]any{"notesMarkdown": "greeted"}})
	mustKind(t, r, "step")
	if got := str(r.S, "pending", "stepId"); got != "look-around" {
		t.Fatalf("after the upgrade, advance gave %q, want look-around", got)
	}
	healthyDoctor(t, home)
}

// TestAutoStartedDaemonTakesAFreePort: when another program holds the
// configured port, the daemon a shim starts listens on a free one and
// records it in daemon.json; `workrail daemon` in the foreground fails
// and says what to do.
func TestAutoStartedDaemonTakesAFreePort(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := strconv.Itoa(taken.Addr().(*net.TCPAddr).Port)

	home := newHome(t)
	s, err := spawnShimOf(bin, home, "WORKRAIL_PORT="+port)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.c.Close() })
	mustKind(t, call(t, s.c, "list_workflows", map[string]any{}), "workflows")
	u, err := url.Parse(mustInfo(t, home).URL)
	if err != nil {
		t.Fatal(err)
	}
	if u.Port() == port || u.Port() == "" {
		t.Fatalf("daemon.json url %s: want a port other than the taken %s", u, port)
	}
	req, err := http.NewRequest(http.MethodGet, u.String()+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(ownerAuth(t, home))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("the Console at daemon.json's url: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET %s/ = %d, want 200", u, resp.StatusCode)
	}

	const what = "is in use by another program; run `workrail daemon --port N` (0 picks a free one), set WORKRAIL_PORT"
	for _, how := range []struct {
		name string
		args []string
		env  string
	}{
		{"WORKRAIL_PORT", []string{"daemon"}, "WORKRAIL_PORT=" + port},
		{"--port", []string{"daemon", "--port", port}, ""},
	} {
		t.Run("foreground with "+how.name, func(t *testing.T) {
			fg := newHome(t)
			cmd := exec.Command(bin, how.args...)
			cmd.Env = append(procEnv(fg), how.env)
			var stderr syncBuffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Fatalf("exit %v, want 1; stderr:\n%s", err, stderr.String())
			}
			if want := "port " + port + " " + what; !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr %q does not say %q", stderr.String(), want)
			}
			if _, err := readInfo(fg); err == nil {
				t.Error("daemon.json written by a daemon that did not start")
			}
		})
	}
}
