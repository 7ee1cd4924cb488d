package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCompact runs `workrail compact ARGS…` on home: exit code, stdout,
// stderr.
func runCompact(t *testing.T, home string, args ...string) (int, string, string) {
	t.Helper()
	return command(t, home, append([]string{"compact"}, args...)...)
}

// `workrail compact` refuses while the daemon runs and leaves the file as
// it was; with the daemon stopped it rewrites the file, every session
// verifies, and the agent's runs go on with the tokens it already holds.
func TestCompactWithTheRealBinary(t *testing.T) {
	home := newHome(t)
	c := startShim(t, home)
	var runs []result
	for _, notes := range []string{"one", "two", "three"} {
		runs = append(runs, advance(t, c, startHello(t, c), notes))
	}
	db := filepath.Join(home, "workrail.db")
	before, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}

	code, stdout, stderr := runCompact(t, home)
	if code != 1 || !strings.Contains(stderr, "workrail stop") || stdout != "" {
		t.Fatalf("compact with the daemon running: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	code, stdout, _ = runCompact(t, home, "--json")
	var refused struct {
		Kind  string `json:"kind"`
		Error struct {
			Code    string         `json:"code"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(stdout), &refused); code != 1 || err != nil || refused.Kind != "error" || refused.Error.Details["reason"] != "daemon_running" {
		t.Fatalf("compact --json with the daemon running: exit %d, %v\n%s", code, err, stdout)
	}
	if after, _ := os.ReadFile(db); !bytes.Equal(before, after) {
		t.Fatal("a refused compact changed the database")
	}

	stopDaemon(t, home)
	code, stdout, stderr = runCompact(t, home, "--json")
	var res struct {
		Path        string `json:"path"`
		BytesBefore int64  `json:"bytesBefore"`
		BytesAfter  int64  `json:"bytesAfter"`
		Sessions    int    `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); code != 0 || err != nil || res.Path != db || res.Sessions != 3 ||
		res.BytesAfter <= 0 || res.BytesAfter > res.BytesBefore {
		t.Fatalf("compact --json: exit %d, %v\nstdout: %s\nstderr: %s", code, err, stdout, stderr)
	}
	if fi, err := os.Stat(db); err != nil || fi.Size() != res.BytesAfter || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the compacted file: %v, %v; want %d bytes, mode 0600", fi, err, res.BytesAfter)
	}
	healthyDoctor(t, home)

	for i, r := range runs {
		if next := advance(t, c, r, "after compact"); next.kind() != "step" && next.kind() != "complete" {
			t.Fatalf("run %d after compact: %s", i+1, next.Text)
		}
	}
	if fresh := startHello(t, c); str(fresh.S, "session", "sessionId") != "ses_4" {
		t.Fatalf("a new session after compact is %s; want ses_4", str(fresh.S, "session", "sessionId"))
	}
}
