package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/store"
)

const day = 24 * time.Hour

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// openAt opens the database at path with a clock the test moves.
func openAt(t *testing.T, path string, now *time.Time) *store.Store {
	t.Helper()
	st, err := store.Open(path, store.Options{Now: func() time.Time { return *now }})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// After a sweep deleted most sessions, `workrail compact` gives the space
// back, and every remaining session verifies and ends where it did.
func TestCompactCommand(t *testing.T) {
	home := t.TempDir()
	t.Setenv("WORKRAIL_HOME", home)
	path := filepath.Join(home, "workrail.db")
	now := t0
	st := openAt(t, path, &now)
	executetest.Sessions(t, st, 300, 5)
	now = t0.Add(50 * day)
	kept := executetest.Sessions(t, st, 5, 5)
	now = t0.Add(61 * day)
	if res, err := st.Sweep(context.Background(), 60); err != nil || len(res.Deleted) != 300 {
		t.Fatalf("sweep deleted %d sessions (%v); want 300", len(res.Deleted), err)
	}
	digests := map[engine.SessionID]engine.Digest{}
	for _, id := range kept {
		digests[id], _ = st.Digest(id)
	}
	st.Close()

	var stdout, stderr bytes.Buffer
	if code := run([]string{"compact", "--json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("compact --json: exit %d\n%s%s", code, &stdout, &stderr)
	}
	var got store.CompactResult
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("compact --json printed %s: %v", &stdout, err)
	}
	if got.Path != path || got.BytesAfter >= got.BytesBefore || got.Sessions != len(kept) {
		t.Fatalf("compact = %+v; want %s smaller, %d sessions verified", got, path, len(kept))
	}
	t.Logf("compacted %d bytes to %d", got.BytesBefore, got.BytesAfter)

	st = openAt(t, path, &now)
	reports, err := st.Doctor()
	if err != nil || len(reports) != len(kept) {
		t.Fatalf("doctor after compact: %+v, %v", reports, err)
	}
	for _, r := range reports {
		d, _ := st.Digest(r.Session)
		if !r.OK() || d != digests[r.Session] {
			t.Fatalf("after compact, %s: %+v, ends on %s (was %s)", r.Session, r, d, digests[r.Session])
		}
	}
	st.Close()

	stdout.Reset()
	if code := run([]string{"compact"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "Compacted "+path) || stderr.Len() != 0 {
		t.Fatalf("compact: exit %d\n%s%s", code, &stdout, &stderr)
	}
}

// While the daemon holds the database (or with none), compact refuses,
// says what to do, and changes nothing; --json says it with the error
// envelope.
func TestCompactRefusals(t *testing.T) {
	home := t.TempDir()
	t.Setenv("WORKRAIL_HOME", home)
	path := filepath.Join(home, "workrail.db")
	if err := os.MkdirAll(filepath.Join(home, "logs"), 0o700); err != nil { // as every command makes it
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, args string
		hold       bool
		stderr     string
		reason     string
	}{
		{"no database", "compact", false, "there is no database at " + path, ""},
		{"no database, json", "compact --json", false, "", "no_database"},
		{"held", "compact", true, "Run `workrail stop`, then `workrail compact` again", ""},
		{"held, json", "compact --json", true, "", "daemon_running"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.hold {
				now := t0
				st := openAt(t, path, &now)
				executetest.Sessions(t, st, 3, 2)
				defer st.Close()
			}
			before, _ := os.ReadFile(path)
			entries, _ := os.ReadDir(home)
			var stdout, stderr bytes.Buffer
			if code := run(strings.Fields(tc.args), &stdout, &stderr); code != 1 {
				t.Fatalf("exit %d; want 1\n%s%s", code, &stdout, &stderr)
			}
			if !strings.Contains(stderr.String(), tc.stderr) || (tc.stderr == "") != (stderr.Len() == 0) {
				t.Errorf("stderr %q; want %q", &stderr, tc.stderr)
			}
			if tc.reason != "" {
				var got struct {
					Kind  string        `json:"kind"`
					Error *engine.Error `json:"error"`
				}
				if err := json.Unmarshal(stdout.Bytes(), &got); err != nil || got.Kind != "error" || got.Error.Code != engine.CodeInvalidInput || got.Error.Details["reason"] != tc.reason {
					t.Errorf("stdout: %s (%v); want the error envelope with reason %s", &stdout, err, tc.reason)
				}
			} else if stdout.Len() != 0 {
				t.Errorf("stdout: %s", &stdout)
			}
			after, _ := os.ReadFile(path)
			left, _ := os.ReadDir(home)
			if !bytes.Equal(before, after) || len(left) != len(entries) {
				t.Errorf("a refused compact changed the home: file unchanged %v, %d entries (was %d)", bytes.Equal(before, after), len(left), len(entries))
			}
		})
	}
}

func TestCompactHelp(t *testing.T) {
	for _, args := range []string{"compact --help", "compact -h", "help compact"} {
		var stdout, stderr bytes.Buffer
		if code := run(strings.Fields(args), &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "Usage: workrail compact [--json]") || !strings.Contains(stdout.String(), "-json") {
			t.Errorf("%s: exit %d\n%s%s", args, code, &stdout, &stderr)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"compact", "extra"}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), `unexpected argument "extra"`) {
		t.Errorf("compact extra: exit %d\n%s%s", code, &stdout, &stderr)
	}
}
