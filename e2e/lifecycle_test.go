package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// cli runs one workrail command on home and returns its stdout and exit
// code.
func cli(t testing.TB, home string, args ...string) (string, int) {
	t.Helper()
	code, out, _ := command(t, home, args...)
	return out, code
}

// status is `workrail status --json`.
type status struct {
	Running           bool     `json:"running"`
	PID               int      `json:"pid"`
	StartedAt         string   `json:"startedAt"`
	AppliedConfigHash string   `json:"appliedConfigHash"`
	PendingRestart    []string `json:"pendingRestart"`
	Sessions          int      `json:"sessions"`
	Retention         struct {
		RetentionDays int   `json:"retentionDays"`
		Stale         []any `json:"stale"`
	} `json:"retention"`
}

func statusOf(t testing.TB, home string, wantCode int) status {
	t.Helper()
	out, code := cli(t, home, "status", "--json")
	if code != wantCode {
		t.Fatalf("status exit %d, want %d:\n%s", code, wantCode, out)
	}
	var s status
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	return s
}

// TestConfigAndLifecycle walks what a person does to a running daemon:
// status, a runtime-safe change (applied live: the hash moves in status and
// daemon.json, nothing pending), a restart-required one (pending until
// `workrail restart`, which restarts in place and keeps the agent's run
// going), and stop.
func TestConfigAndLifecycle(t *testing.T) {
	home := newHome(t)
	c := startShim(t, home)
	r := startHello(t, c)

	s := statusOf(t, home, 0)
	info := mustInfo(t, home)
	if !s.Running || s.PID != info.PID || s.Sessions != 1 || s.Retention.RetentionDays != 60 || s.Retention.Stale == nil || len(s.PendingRestart) != 0 {
		t.Fatalf("status of a fresh daemon: %+v (daemon.json pid %d)", s, info.PID)
	}
	if s.AppliedConfigHash == "" || s.AppliedConfigHash != appliedHash(t, home) {
		t.Fatalf("status says %q, daemon.json %q", s.AppliedConfigHash, appliedHash(t, home))
	}
	first := s.AppliedConfigHash

	out, code := cli(t, home, "config", "set", "retentionDays", "30")
	if code != 0 || !strings.Contains(out, "The running daemon applied it.") {
		t.Fatalf("config set retentionDays: exit %d:\n%s", code, out)
	}
	s = statusOf(t, home, 0)
	if s.Retention.RetentionDays != 30 || s.AppliedConfigHash == first || len(s.PendingRestart) != 0 || s.AppliedConfigHash != appliedHash(t, home) {
		t.Fatalf("after a runtime-safe change: %+v, daemon.json %s", s, appliedHash(t, home))
	}
	live := s.AppliedConfigHash

	out, code = cli(t, home, "config", "set", "features.start_session", "true")
	if code != 0 || !strings.Contains(out, "It needs a restart") {
		t.Fatalf("config set features.start_session: exit %d:\n%s", code, out)
	}
	s = statusOf(t, home, 0)
	if !slices.Equal(s.PendingRestart, []string{"features.start_session"}) || s.AppliedConfigHash != live {
		t.Fatalf("a restart-required change: %+v", s)
	}

	// A broken config.json is refused by restart, and the daemon stays.
	path := filepath.Join(home, "config.json")
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"features": `), 0o600); err != nil {
		t.Fatal(err)
	}
	out, code = cli(t, home, "restart", "--json")
	if code != 1 || !strings.Contains(out, `"code": "INVALID_INPUT"`) || !strings.Contains(out, "would not start again") {
		t.Fatalf("restart with a broken config.json: exit %d:\n%s", code, out)
	}
	if err := os.WriteFile(path, good, 0o600); err != nil {
		t.Fatal(err)
	}

	before := statusOf(t, home, 0)
	out, code = cli(t, home, "restart", "--json")
	if code != 0 {
		log, _ := os.ReadFile(filepath.Join(home, "logs", "daemon.log"))
		t.Fatalf("restart: exit %d:\n%s\ndaemon.log:\n%s", code, out, log)
	}
	s = statusOf(t, home, 0)
	if s.PID != before.PID || s.StartedAt == before.StartedAt || len(s.PendingRestart) != 0 || s.AppliedConfigHash == live {
		t.Fatalf("restarted in place: before %+v, after %+v", before, s)
	}
	if s.AppliedConfigHash != appliedHash(t, home) {
		t.Fatalf("status %s, daemon.json %s", s.AppliedConfigHash, appliedHash(t, home))
	}
	// The agent's chat goes on through the same shim.
	mustKind(t, advance(t, c, r, "Said hello after the restart."), "step")

	if out, code = cli(t, home, "stop"); code != 0 || !strings.Contains(out, "Stopped the daemon") {
		t.Fatalf("stop: exit %d:\n%s", code, out)
	}
	waitGone(t, before.PID, 10*time.Second)
	if s := statusOf(t, home, 3); s.Running {
		t.Fatalf("status after stop: %+v", s)
	}
	if _, err := os.Stat(filepath.Join(home, "daemon.json")); !os.IsNotExist(err) {
		t.Errorf("daemon.json after stop: %v", err)
	}
	// With none running, restart starts one.
	if out, code = cli(t, home, "restart"); code != 0 || !strings.Contains(out, "The daemon is running") {
		t.Fatalf("restart with no daemon: exit %d:\n%s", code, out)
	}
	if s := statusOf(t, home, 0); !s.Running || s.PID == before.PID {
		t.Fatalf("status after restarting a stopped daemon: %+v", s)
	}
	mustKind(t, call(t, c, "list_workflows", map[string]any{}), "workflows")
}

func appliedHash(t testing.TB, home string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, "daemon.json"))
	if err != nil {
		t.Fatal(err)
	}
	var info struct {
		AppliedConfigHash string `json:"appliedConfigHash"`
	}
	if err := json.Unmarshal(b, &info); err != nil {
		t.Fatal(err)
	}
	return info.AppliedConfigHash
}
