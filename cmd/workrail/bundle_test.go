package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workrail/workrail/cmd/workrail/daemon"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/bundle"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/store"
	"github.com/workrail/workrail/workflows"
)

// The sharing commands answer --help, refuse what they cannot take with
// exit 2 and the nearest flag, and fail with exit 1.
func TestShareCommandLine(t *testing.T) {
	t.Setenv("WORKRAIL_HOME", t.TempDir())
	for _, tc := range []struct {
		args           string
		code           int
		stdout, stderr string // substrings; "" for none expected
	}{
		{"sessions --help", 0, "Usage: workrail sessions [--json]", ""},
		{"export --help", 0, "-redact-notes", ""},
		{"export --help", 0, "mask everything an agent or a person wrote", ""},
		{"export -h", 0, "-o FILE", ""},
		{"import --help", 0, "-dry-run", ""},
		{"help import", 0, "Usage: workrail import FILE", ""},
		{"sessions", 0, "No sessions yet.", ""},
		{"sessions --json", 0, `"sessions": []`, ""},
		{"sessions extra", 2, "", `unexpected argument "extra"`},
		{"sessions --jsn", 2, "", "did you mean --json?"},
		{"export", 2, "", "name one session"},
		{"export ses_1 ses_2", 2, "", "name one session"},
		{"export nope", 2, "", `"nope" is not a session id`},
		{"export ses_1 --redact-note", 2, "", "flag provided but not defined: -redact-note; did you mean --redact-notes?"},
		{"export ses_1 --mark", 2, "", "did you mean --markdown?"},
		{"export ses_1", 1, "", "there is no session ses_1"},
		{"import", 2, "", "name one bundle file"},
		{"import a.json --dryrun", 2, "", "did you mean --dry-run?"},
		{"import missing.json", 1, "", "cannot read the bundle"},
		{"import --json missing.json", 1, `"code": "INVALID_INPUT"`, ""},
	} {
		t.Run(tc.args, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(strings.Fields(tc.args), &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit %d; want %d\nstdout: %s\nstderr: %s", code, tc.code, &stdout, &stderr)
			}
			for _, c := range []struct{ name, got, want string }{{"stdout", stdout.String(), tc.stdout}, {"stderr", stderr.String(), tc.stderr}} {
				if c.want == "" && c.got != "" {
					t.Errorf("unexpected %s:\n%s", c.name, c.got)
				}
				if !strings.Contains(c.got, c.want) {
					t.Errorf("%s lacks %q:\n%s", c.name, c.want, c.got)
				}
			}
		})
	}
}

// export --schema prints the bundle format's JSON Schema, no session
// needed.
func TestExportSchema(t *testing.T) {
	t.Setenv("WORKRAIL_HOME", t.TempDir())
	out, _ := cli(t, 0, "export", "--schema")
	var schema map[string]any
	if err := json.Unmarshal([]byte(out), &schema); err != nil || schema["$schema"] == nil {
		t.Fatalf("export --schema printed no JSON Schema (%v):\n%.300s", err, out)
	}
	if !bytes.Equal([]byte(out), bundle.Schema()) {
		t.Error("export --schema differs from bundle.Schema()")
	}
}

// cli runs the command line and requires exit code want: stdout, stderr.
func cli(t *testing.T, want int, args ...string) (string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != want {
		t.Fatalf("workrail %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, want, &stdout, &stderr)
	}
	return stdout.String(), stderr.String()
}

// seedHome makes a home (WORKRAIL_HOME, no daemon) holding two sessions
// of wr.hello: ses_1 driven to completion, ses_2 just started.
func seedHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("WORKRAIL_HOME", home)
	st, err := store.Open(filepath.Join(home, "workrail.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	uc := execute.New(st, executetest.Ring(t), executetest.Catalog(t, workflows.FS), workflow.Preferences{}, executetest.Clock, t.Logf)
	executetest.Drive(t, uc, "wr.hello", "")
	if r := uc.Start(context.Background(), []byte(`{"workflowId":"wr.hello"}`)); r.ResultKind() != protocol.KindStep {
		t.Fatalf("start: %s", r.RenderedText())
	}
	return home
}

// With no daemon, sessions reads the file: newest first, as JSON for
// scripts and as a table for people.
func TestSessionsWithNoDaemon(t *testing.T) {
	seedHome(t)
	out, _ := cli(t, 0, "sessions", "--json")
	var l daemon.SessionList
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Sessions) != 2 {
		t.Fatalf("%d sessions:\n%s", len(l.Sessions), out)
	}
	newest, oldest := l.Sessions[0], l.Sessions[1]
	if newest.Session != 2 || newest.Status != "in_progress" || oldest.Session != 1 || oldest.Status != "complete" {
		t.Errorf("sessions: %+v", l.Sessions)
	}
	for _, e := range l.Sessions {
		if len(e.Workflows) != 1 || e.Workflows[0] != "wr.hello" || e.Runs != 1 || e.LastEvent == 0 || e.LastKind == "" {
			t.Errorf("session entry %+v", e)
		}
	}
	table, _ := cli(t, 0, "sessions")
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "SESSION") || !strings.HasPrefix(lines[1], "ses_2") || !strings.HasPrefix(lines[2], "ses_1") ||
		!strings.Contains(lines[2], "complete") || !strings.Contains(lines[2], "wr.hello") || !strings.Contains(lines[2], "2026-01-02 03:04 UTC, event") {
		t.Errorf("table:\n%s", table)
	}
	if l.Sessions[0].LastTime != "2026-01-02T03:04:05.000Z" {
		t.Errorf("lastTime %q; want the clock's", l.Sessions[0].LastTime)
	}
	// Written to last, the older session comes first: recent activity,
	// by the store's write sequence.
	st, err := store.Open(filepath.Join(os.Getenv("WORKRAIL_HOME"), "workrail.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = st.Update(1, func(tx execute.Tx) error {
		_, err := tx.Append(1, 1, &event.NodeOutputAppendedData{StepID: "greet", NotesMarkdown: "One more thing."})
		return err
	})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	if table, _ := cli(t, 0, "sessions"); !strings.HasPrefix(strings.Split(table, "\n")[1], "ses_1") {
		t.Errorf("after writing to ses_1:\n%s", table)
	}
}

// With no daemon, export reads the file and import writes one: the same
// bundle whether on stdout, in a .json or a .json.gz; a dry run writes
// nothing; the import is a new session in the other home.
func TestExportThenImportWithNoDaemon(t *testing.T) {
	seedHome(t)
	dir := t.TempDir()
	plain, _ := cli(t, 0, "export", "ses_1")
	if again, _ := cli(t, 0, "export", "ses_1"); again != plain {
		t.Fatal("two exports of one session differ")
	}
	_, said := cli(t, 0, "export", "ses_1", "-o", filepath.Join(dir, "s.json.gz"))
	if !strings.Contains(said, "Wrote "+filepath.Join(dir, "s.json.gz")) {
		t.Errorf("export -o said %q", said)
	}
	cli(t, 0, "export", "-o", filepath.Join(dir, "s.json"), "ses_1")
	if got := readFile(t, filepath.Join(dir, "s.json")); string(got) != plain {
		t.Error("export -o s.json differs from the export on stdout")
	}
	if got := gunzip(t, readFile(t, filepath.Join(dir, "s.json.gz"))); string(got) != plain {
		t.Error("export -o s.json.gz does not unpack to the export on stdout")
	}
	if redacted, _ := cli(t, 0, "export", "ses_1", "--redact-notes"); redacted == plain || !strings.Contains(redacted, bundle.RedactedMarker) || strings.Contains(redacted, "Did greet.") {
		t.Error("export --redact-notes kept the notes")
	}
	redacted, _ := cli(t, 0, "export", "ses_1", "--redact")
	if !strings.Contains(redacted, `"redaction":"all"`) || strings.Contains(redacted, "Did greet.") {
		t.Error("export --redact kept the notes, or does not say it is redacted")
	}
	if both, _ := cli(t, 0, "export", "ses_1", "--redact", "--redact-notes"); both != redacted {
		t.Error("export --redact --redact-notes differs from --redact: --redact implies --redact-notes")
	}
	if md, _ := cli(t, 0, "export", "--markdown", "--redact", "ses_1"); !strings.Contains(md, "Redacted:") || strings.Contains(md, "Did greet.") {
		t.Errorf("export --markdown --redact:\n%.400s", md)
	}
	if md, _ := cli(t, 0, "export", "--markdown", "ses_1"); !strings.Contains(md, "wr.hello") || strings.HasPrefix(md, "{") {
		t.Errorf("export --markdown:\n%.400s", md)
	}

	t.Setenv("WORKRAIL_HOME", t.TempDir()) // a fresh home
	out, _ := cli(t, 0, "import", "--dry-run", "--json", filepath.Join(dir, "s.json.gz"))
	var dry bundle.ImportReport
	if err := json.Unmarshal([]byte(out), &dry); err != nil || !dry.DryRun || dry.Session != 0 || dry.Source != 1 || dry.Runs != 1 || dry.Events == 0 {
		t.Fatalf("dry run (%v):\n%s", err, out)
	}
	if l, _ := cli(t, 0, "sessions", "--json"); !strings.Contains(l, `"sessions": []`) {
		t.Fatalf("a dry run wrote a session:\n%s", l)
	}
	text, _ := cli(t, 0, "import", filepath.Join(dir, "s.json"))
	if !strings.HasPrefix(text, "Imported session ses_1") || !strings.Contains(text, " as ses_1: 1 run,") {
		t.Errorf("import said:\n%s", text)
	}
	out, _ = cli(t, 0, "import", filepath.Join(dir, "s.json.gz"), "--json")
	var done bundle.ImportReport
	if err := json.Unmarshal([]byte(out), &done); err != nil || done.DryRun || done.Session != 2 || done.Events != dry.Events {
		t.Fatalf("import (%v):\n%s", err, out)
	}
	l, _ := cli(t, 0, "sessions", "--json")
	var got daemon.SessionList
	json.Unmarshal([]byte(l), &got)
	if len(got.Sessions) != 2 || got.Sessions[0].Status != "complete" {
		t.Errorf("after two imports, the sessions:\n%s", l)
	}
}

// An export holds the user's notes, so only the user may read the file,
// whatever it replaces: a bundle, packed or not, and Markdown.
func TestExportsAreReadableByTheUserAlone(t *testing.T) {
	seedHome(t)
	dir := t.TempDir()
	old := filepath.Join(dir, "old.json")
	if err := os.WriteFile(old, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"-o", filepath.Join(dir, "s.json")},
		{"-o", filepath.Join(dir, "s.json.gz")},
		{"--markdown", "-o", filepath.Join(dir, "s.md")},
		{"-o", old},
	} {
		cli(t, 0, append([]string{"export", "ses_1"}, args...)...)
		fi, err := os.Stat(args[len(args)-1])
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("export %v wrote mode %v (%v); want -rw-------", args, fi.Mode().Perm(), err)
		}
	}
}

// A bundle import refuses says why: with --json the error envelope
// (exit 1), otherwise the message and its details on stderr.
func TestImportRefusals(t *testing.T) {
	seedHome(t)
	plain, _ := cli(t, 0, "export", "ses_1")
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// bomb unpacks to more than daemon.MaxBundle: one gzip member of 1 MiB of
	// zeros, repeated (a gzip reader reads every member), so making it
	// compresses 1 MiB, not daemon.MaxBundle.
	bomb := func() []byte {
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		w.Write(make([]byte, 1<<20))
		w.Close()
		return bytes.Repeat(z.Bytes(), daemon.MaxBundle>>20+1)
	}
	t.Setenv("WORKRAIL_HOME", t.TempDir())
	for _, tc := range []struct {
		name    string
		file    string
		code    engine.Code
		details map[string]any
	}{
		{"a note changed", write("tampered.json", []byte(strings.Replace(plain, "Did greet.", "Did greeT.", 1))), engine.CodeBundleInvalid,
			map[string]any{"problem": string(bundle.DigestMismatch)}},
		{"another format version", write("v3.json", []byte(strings.Replace(plain, `"bundleSchemaVersion":2`, `"bundleSchemaVersion":3`, 1))), engine.CodeBundleInvalid,
			map[string]any{"problem": string(bundle.UnsupportedVersion)}},
		{"not JSON", write("cut.json", []byte(plain[:len(plain)/2])), engine.CodeBundleInvalid, map[string]any{"problem": string(bundle.Malformed)}},
		{"named .json.gz but plain", write("plain.json.gz", []byte(plain)), engine.CodeInvalidInput, nil},
		{"too large unpacked", write("bomb.json.gz", bomb()), engine.CodePayloadTooLarge, map[string]any{"limitBytes": float64(daemon.MaxBundle)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, _ := cli(t, 1, "import", "--json", tc.file)
			var r protocol.ErrorResult
			if err := json.Unmarshal([]byte(out), &r); err != nil || r.Kind != protocol.KindError || r.Error.Code != tc.code {
				t.Fatalf("import --json %s (%v):\n%s", tc.file, err, out)
			}
			for k, v := range tc.details {
				if r.Error.Details[k] != v {
					t.Errorf("details[%s] = %v, want %v: %v", k, r.Error.Details[k], v, r.Error.Details)
				}
			}
			_, said := cli(t, 1, "import", tc.file)
			if !strings.HasPrefix(said, "workrail import: "+string(tc.code)+": ") {
				t.Errorf("stderr:\n%s", said)
			}
			for k := range tc.details {
				if !strings.Contains(said, "\n  "+k+": ") {
					t.Errorf("stderr lacks the detail %s:\n%s", k, said)
				}
			}
		})
	}
	if l, _ := cli(t, 0, "sessions", "--json"); !strings.Contains(l, `"sessions": []`) {
		t.Fatalf("a refused import wrote a session:\n%s", l)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func gunzip(t *testing.T, b []byte) []byte {
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
