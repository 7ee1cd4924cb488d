package e2e

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A session moves between homes in one file, with or without daemons:
// `workrail sessions` finds it, `export -o x.json.gz` writes it, `import`
// makes it a new session in a fresh home, and a brand new chat there
// finds it with resume_session (tokens are never imported: the stateToken
// is the candidate's, minted by the new home) and finishes it through the
// real shim. A tampered file is refused with its named error and exit 1.
func TestExportImportResumeAnywhere(t *testing.T) {
	for _, tc := range []struct {
		name   string
		daemon bool // a daemon runs on both homes throughout (else none does)
	}{{"no daemon", false}, {"daemon running", true}} {
		t.Run(tc.name, func(t *testing.T) {
			from, to := newHome(t), newHome(t)
			if tc.daemon {
				startDaemon(t, from)
				startDaemon(t, to)
			}
			session, pending := parserSession(t, from, tc.daemon)

			list := sessionsOf(t, from)
			if len(list) != 1 || str(list[0], "sessionId") != session || str(list[0], "status") != "in_progress" {
				t.Fatalf("sessions of the first home: %v", list)
			}
			file := filepath.Join(t.TempDir(), "parser.json.gz")
			code, _, stderr := command(t, from, "export", session, "-o", file)
			if code != 0 || !strings.Contains(stderr, "Wrote "+file) {
				t.Fatalf("export: exit %d: %s", code, stderr)
			}
			if _, err := gzip.NewReader(bytes.NewReader(mustRead(t, file))); err != nil {
				t.Fatalf("%s is not gzip: %v", file, err)
			}
			code, md, stderr := command(t, from, "export", session, "--markdown")
			if code != 0 || !strings.Contains(md, "parser") {
				t.Fatalf("export --markdown: exit %d: %s\n%s", code, stderr, md)
			}

			var dry map[string]any
			shareJSON(t, to, 0, &dry, "import", file, "--dry-run", "--json")
			if dry["dryRun"] != true || dry["sessionId"] != nil || str(dry, "sourceSessionId") != session {
				t.Fatalf("dry run: %v", dry)
			}
			if l := sessionsOf(t, to); len(l) != 0 {
				t.Fatalf("a dry run created %v", l)
			}
			var done map[string]any
			shareJSON(t, to, 0, &done, "import", "--json", file)
			imported := str(done, "sessionId")
			if done["dryRun"] != false || imported == "" || done["events"] != dry["events"] {
				t.Fatalf("import: %v (dry run %v)", done, dry)
			}
			if l := sessionsOf(t, to); len(l) != 1 || str(l[0], "sessionId") != imported || str(l[0], "status") != "in_progress" {
				t.Fatalf("sessions of the second home: %v", l)
			}

			c := startShim(t, to)
			found := call(t, c, "resume_session", map[string]any{"query": "parser"})
			mustKind(t, found, "candidates")
			cands, _ := found.S["candidates"].([]any)
			if len(cands) != 1 {
				t.Fatalf("%d candidates:\n%s", len(cands), found.Text)
			}
			best := cands[0].(map[string]any)
			if str(best, "session", "sessionId") != imported {
				t.Fatalf("resume_session offers %s, want the import %s", str(best, "session", "sessionId"), imported)
			}
			next := best["nextCall"].(map[string]any)
			r := call(t, c, str(next, "tool"), next["arguments"].(map[string]any))
			mustKind(t, r, "step")
			if str(r.S, "pending", "stepId") != pending || !strings.Contains(r.Text, "flaky parser") {
				t.Fatalf("resumed at %s, want %s with the notes so far:\n%s", str(r.S, "pending", "stepId"), pending, r.Text)
			}
			for r.kind() == "step" {
				r = advance(t, c, r, "finished on the other machine")
			}
			mustKind(t, r, "complete")
			if str(r.S, "session", "sessionId") != imported {
				t.Fatalf("completed %s, want %s", str(r.S, "session", "sessionId"), imported)
			}
			if l := sessionsOf(t, to); str(l[0], "status") != "complete" {
				t.Fatalf("after finishing: %v", l)
			}
			healthyDoctor(t, to)

			tampered := filepath.Join(t.TempDir(), "tampered.json")
			plain := gunzipped(t, mustRead(t, file))
			if err := os.WriteFile(tampered, bytes.Replace(plain, []byte("flaky parser"), []byte("flaky parsex"), 1), 0o600); err != nil {
				t.Fatal(err)
			}
			var refused map[string]any
			shareJSON(t, to, 1, &refused, "import", "--json", tampered)
			if str(refused, "kind") != "error" || str(refused, "error", "code") != "BUNDLE_INVALID" ||
				str(refused, "error", "details", "problem") != "digest_mismatch" || !strings.HasPrefix(str(refused, "error", "details", "entry"), "manifest.") ||
				str(refused, "error", "details", "expected") == "" || str(refused, "error", "details", "actual") == str(refused, "error", "details", "expected") {
				t.Fatalf("the tampered bundle: %v", refused)
			}
			code, _, stderr = command(t, to, "import", tampered)
			if code != 1 || !strings.Contains(stderr, "BUNDLE_INVALID") || !strings.Contains(stderr, "  expected: sha256:") {
				t.Fatalf("import of the tampered bundle: exit %d:\n%s", code, stderr)
			}
			if l := sessionsOf(t, to); len(l) != 1 {
				t.Fatalf("the tampered bundle created a session: %v", l)
			}
		})
	}
}

// parserSession starts wr.hello on home through the shim and advances it
// once with notes about a flaky parser, then (unless a daemon is to keep
// running) stops the daemon the shim started. It returns the session and
// its pending step.
func parserSession(t *testing.T, home string, keepDaemon bool) (session, pending string) {
	t.Helper()
	s := startShimFull(t, home)
	r := advance(t, s.c, startHello(t, s.c), "Looked at the flaky parser test.")
	mustKind(t, r, "step")
	s.c.Close()
	if !keepDaemon {
		if code, out, stderr := command(t, home, "stop"); code != 0 {
			t.Fatalf("stop: exit %d: %s%s", code, out, stderr)
		}
		if code, _, _ := command(t, home, "status"); code != 3 {
			t.Fatalf("status after stop: exit %d, want 3", code)
		}
	}
	return str(r.S, "session", "sessionId"), str(r.S, "pending", "stepId")
}

// sessionsOf is `workrail sessions --json` on home.
func sessionsOf(t *testing.T, home string) []map[string]any {
	t.Helper()
	var l struct {
		Sessions []map[string]any `json:"sessions"`
	}
	shareJSON(t, home, 0, &l, "sessions", "--json")
	return l.Sessions
}

// shareJSON runs a command that prints JSON, requiring exit code want.
func shareJSON(t *testing.T, home string, want int, out any, args ...string) {
	t.Helper()
	code, stdout, stderr := command(t, home, args...)
	if code != want {
		t.Fatalf("workrail %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, want, stdout, stderr)
	}
	if err := json.Unmarshal([]byte(stdout), out); err != nil {
		t.Fatalf("workrail %s printed no JSON (%v):\n%s", strings.Join(args, " "), err, stdout)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func gunzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	z, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
