package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestSecondDaemonFailsFast(t *testing.T) {
	home := newHome(t)
	first := startDaemon(t, home)
	pid := first.cmd.Process.Pid

	second := exec.Command(bin, "daemon", "--port", "0")
	second.Env = procEnv(home)
	var stderr bytes.Buffer
	second.Stderr = &stderr
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- second.Wait() }()
	start := time.Now()
	select {
	case err := <-done:
		if err == nil {
			t.Fatalf("second daemon exited 0; stderr:\n%s", &stderr)
		}
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() == 0 {
			t.Fatalf("second daemon: %v", err)
		}
	case <-time.After(5 * time.Second):
		second.Process.Kill()
		<-done
		t.Fatalf("second daemon still running after 5s; stderr:\n%s", &stderr)
	}
	t.Logf("second daemon gave up after %v", time.Since(start).Round(time.Millisecond))
	if want := fmt.Sprintf("pid %d", pid); !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr does not name the running daemon (%q):\n%s", want, &stderr)
	}
	if !strings.Contains(stderr.String(), "already running") {
		t.Errorf("stderr does not say a daemon is already running:\n%s", &stderr)
	}

	// The first daemon is untouched: daemon.json, socket and service.
	if i := mustInfo(t, home); i.PID != pid || i.URL != first.info.URL {
		t.Fatalf("daemon.json changed to %+v", i)
	}
	c := startShim(t, home)
	startHello(t, c)
	if pids := daemonPIDs(home); !slices.Equal(pids, []int{pid}) {
		t.Fatalf("daemons on this home: %v, want only %d", pids, pid)
	}
}

func TestDaemonShutdownCleansUp(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			home := newHome(t)
			d := startDaemon(t, home)
			c := startShim(t, home)
			r := startHello(t, c)
			r = advance(t, c, r, "before shutdown")
			if i := mustInfo(t, home); i.PID != d.cmd.Process.Pid {
				t.Fatalf("the shim started its own daemon (pid %d) instead of using %d", i.PID, d.cmd.Process.Pid)
			}
			c.Close()

			d.cmd.Process.Signal(sig)
			code, ok := d.exitCode(10 * time.Second)
			if !ok {
				t.Fatalf("daemon still running 10s after %s", sig)
			}
			if code != 0 {
				t.Fatalf("daemon exit code %d after %s; stderr:\n%s", code, sig, d.stderr)
			}
			for _, name := range []string{"daemon.json", "daemon.sock"} {
				if _, err := os.Stat(filepath.Join(home, name)); !os.IsNotExist(err) {
					t.Errorf("%s still exists after shutdown (stat: %v)", name, err)
				}
			}

			// The database reopens read-only for doctor, then for a daemon.
			rep := healthyDoctor(t, home)
			if rep.Total != 1 || rep.Sessions[0].Health.LastGoodIndex == 0 {
				t.Fatalf("doctor after shutdown: %+v", rep)
			}
			startDaemon(t, home)
			c2 := startShim(t, home)
			re := rehydrate(t, c2, str(r.S, "stateToken"))
			if got := str(re.S, "pending", "stepId"); got != "look-around" {
				t.Fatalf("after restart the run is at %q, want look-around", got)
			}
		})
	}
}

func TestConcurrentShimsStartOneDaemon(t *testing.T) {
	home := newHome(t)
	shims := spawnShims(t, home, 10)

	var wg sync.WaitGroup
	for i, s := range shims {
		wg.Add(1)
		go func() {
			defer wg.Done()
			checkToolsList(t, s.c)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			// tryCall, not call: t.Fatal must not run on this goroutine.
			r, err := tryCall(ctx, s.c, "list_workflows", map[string]any{})
			if err != nil || r.kind() != "workflows" {
				t.Errorf("shim %d: list_workflows kind %q, %v", i, r.kind(), err)
			}
		}()
	}
	wg.Wait()

	info := mustInfo(t, home)
	if !alive(info.PID) || !isOurDaemon(info.PID) {
		t.Fatalf("daemon.json names pid %d, not a live workrail daemon", info.PID)
	}
	// A shim that lost a start race would leave a daemon exiting with
	// "already running"; give such a process a moment to go away.
	var pids []int
	for deadline := time.Now().Add(3 * time.Second); ; {
		pids = daemonPIDs(home)
		if len(pids) <= 1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !slices.Equal(pids, []int{info.PID}) {
		t.Errorf("daemon processes for this home: %v, want exactly [%d]", pids, info.PID)
	}
	starters := 0
	for _, s := range shims {
		starters += strings.Count(s.stderr.String(), "starting the daemon")
	}
	if starters != 1 {
		t.Errorf("%d shims started a daemon, want exactly 1", starters)
	}
	if b, err := os.ReadFile(filepath.Join(home, "logs", "daemon.log")); err != nil {
		t.Errorf("daemon.log: %v", err)
	} else if k := strings.Count(string(b), "already running"); k != 0 {
		t.Errorf("daemon.log reports %d daemons that found one already running, want 0:\n%s", k, b)
	}
}

// TestRecoveryWhileCrashedDaemonIsZombie: a daemon a shim launched is that
// shim's child, and the shim never reaps it. Killed with SIGKILL while the
// shim lives, it stays a zombie: its pid still "exists" for kill(pid, 0).
// A new shim and doctor must still treat it as dead.
func TestRecoveryWhileCrashedDaemonIsZombie(t *testing.T) {
	home := newHome(t)
	c1 := startShim(t, home) // stays open: the zombie's parent
	r := startHello(t, c1)
	old := stopDaemon(t, home)
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", old)); err != nil || !bytes.Contains(b, []byte(") Z ")) {
		t.Skipf("the killed daemon was reaped at once (stat %q, %v); nothing to test here", b, err)
	}

	t.Run("doctor", func(t *testing.T) {
		rep, code, stderr := runDoctor(t, home)
		if code != 0 || rep.Total != 1 {
			t.Errorf("doctor with a dead (zombie) daemon in daemon.json: exit %d, report %+v; stderr: %s", code, rep, stderr)
		}
	})

	t.Run("shim", func(t *testing.T) {
		start := time.Now()
		c2 := startShim(t, home)
		took := time.Since(start)
		// The shim's start timeout is 10s; a fresh daemon starts in well
		// under a second. Waiting out the timeout means the zombie was
		// taken for a live daemon.
		if took > 5*time.Second {
			t.Errorf("a new shim took %v to get a daemon: it waited for the dead (zombie) pid %d to answer", took.Round(time.Millisecond), old)
		}
		if i := mustInfo(t, home); i.PID == old {
			t.Fatalf("daemon.json still names the dead daemon")
		}
		re := rehydrate(t, c2, str(r.S, "stateToken"))
		if got := str(re.S, "pending", "stepId"); got != "greet" {
			t.Errorf("rehydrate: %q", got)
		}
	})
}
