package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/bundle"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/workflows"
)

// Fake secrets of four rules the scanner knows, each sent in a different
// field through the real shim.
var sentSecrets = map[string]string{
	"ghp_R4nd0mT0k3nV4lu3sXyZ0123456789abCdEf": "[redacted: github-pat]",
	"AKIAZ7XQ3VQ4LMNOPQRS":                     "[redacted: aws-access-token]",
	"hunter2pass":                              "[redacted: url-password]",
	"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c": "[redacted: jwt]",
}

// Secrets sent in notes, an artifact, a context value and a checkpoint's
// notes are never stored: not in the database file, the logs or an
// export, which hold the markers instead; the answers name the fields,
// and the same call again answers the same bytes.
func TestSecretsAreNeverStored(t *testing.T) {
	home := newHome(t)
	c := startShim(t, home)
	var gh, aws, pass, jwt string
	for s, m := range sentSecrets {
		switch {
		case strings.HasPrefix(m, "[redacted: github"):
			gh = s
		case strings.HasPrefix(m, "[redacted: aws"):
			aws = s
		case strings.HasPrefix(m, "[redacted: url"):
			pass = s
		default:
			jwt = s
		}
	}
	r := call(t, c, "start_workflow", map[string]any{"workflowId": "wr.hello",
		"context": map[string]any{"db": "postgres://app:" + pass + "@db.internal:5432/prod"}})
	mustKind(t, r, "step")
	wantWarning(t, r, "/context/db")
	cp := checkpoint(t, c, r, "Found the key "+aws+" in the old config.")
	mustKind(t, cp, "step")
	wantWarning(t, cp, "/output/notesMarkdown")
	args := nextArgs(t, cp, "Deployed with "+gh+".")
	args["output"].(map[string]any)["artifacts"] = []any{map[string]any{"kind": "wr.user_response", "response": "the session token is " + jwt}}
	first := call(t, c, "continue_workflow", args)
	mustKind(t, first, "step")
	wantWarning(t, first, "/output/notesMarkdown")
	wantWarning(t, first, "/output/artifacts/0/response")
	if again := call(t, c, "continue_workflow", args); string(again.Raw) != string(first.Raw) {
		t.Fatalf("the same call answered differently:\n%s\n%s", first.Raw, again.Raw)
	}
	for s := range sentSecrets {
		for _, res := range []result{r, cp, first} {
			if strings.Contains(string(res.Raw), s) {
				t.Errorf("an answer shows %.12s…", s)
			}
		}
	}

	code, export, stderr := command(t, home, "export", str(r.S, "session", "sessionId"))
	if code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	if code, out, _ := command(t, home, "doctor", "--secrets"); code != 0 || !strings.Contains(out, "No secrets found in 1 session") {
		t.Errorf("doctor --secrets through the daemon: exit %d\n%s", code, out)
	}
	db, err := os.ReadFile(filepath.Join(home, "workrail.db"))
	if err != nil {
		t.Fatal(err)
	}
	logs := readTree(t, filepath.Join(home, "logs"))
	for s, marker := range sentSecrets {
		for name, text := range map[string]string{"the database file": string(db), "logs/": logs, "the export": export} {
			if strings.Contains(text, s) {
				t.Errorf("%s holds %.12s…", name, s)
			}
		}
		if !strings.Contains(string(db), marker) || !strings.Contains(export, marker) {
			t.Errorf("the database file or the export lacks %s", marker)
		}
	}
}

// wantWarning fails unless r carries SECRET_REDACTED naming pointer.
func wantWarning(t *testing.T, r result, pointer string) {
	t.Helper()
	ws, _ := r.S["warnings"].([]any)
	for _, w := range ws {
		w, _ := w.(map[string]any)
		if w["code"] != "SECRET_REDACTED" {
			continue
		}
		fields, _ := w["secrets"].([]any)
		for _, f := range fields {
			if f, _ := f.(map[string]any); f["pointer"] == pointer {
				return
			}
		}
	}
	t.Errorf("no SECRET_REDACTED warning naming %s: %s", pointer, r.Raw)
}

// readTree is every file under dir, concatenated.
func readTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		b.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A session holding secrets (here imported from a bundle an older build
// exported: imports are verified, not rewritten) is listed by doctor
// --secrets and replaced by scrub, both through the running daemon.
func TestScrubThroughTheDaemon(t *testing.T) {
	home := newHome(t)
	startDaemon(t, home)
	st := memstore.New()
	x := execute.New(st, executetest.Ring(t), executetest.Catalog(t, workflows.FS), workflow.Preferences{}, executetest.Clock, t.Logf)
	executetest.Drive(t, x, "wr.hello", "")
	var gh string
	for s, m := range sentSecrets {
		if strings.Contains(m, "github") {
			gh = s
		}
	}
	old, _ := json.Marshal(map[string]any{"workflowId": "wr.hello", "context": map[string]any{"token": gh}})
	if r := x.Start(context.Background(), old); r.ResultKind() != "step" {
		t.Fatalf("start: %s", r.RenderedText())
	}
	b, err := x.Export(2, bundle.ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "old.json")
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := command(t, home, "import", file); code != 0 {
		t.Fatalf("import: exit %d\n%s%s", code, out, stderr)
	}
	// An agent holds ses_1's tokens, as resume_session hands them out.
	c := startShim(t, home)
	found := call(t, c, "resume_session", map[string]any{"query": "hello"})
	mustKind(t, found, "candidates")
	cands, _ := found.S["candidates"].([]any)
	if len(cands) != 1 {
		t.Fatalf("resume_session: %s", found.Text)
	}
	next := cands[0].(map[string]any)["nextCall"].(map[string]any)
	held := call(t, c, str(next, "tool"), next["arguments"].(map[string]any))
	mustKind(t, held, "step")

	code, out, _ := command(t, home, "doctor", "--secrets")
	if code != 1 || !strings.Contains(out, "ses_1 holds 1 secret(s):") || !strings.Contains(out, "/snapshot/context/token: github-pat") || strings.Contains(out, gh) {
		t.Fatalf("doctor --secrets: exit %d\n%s", code, out)
	}
	code, out, stderr := command(t, home, "scrub", "ses_1")
	if code != 0 || !strings.Contains(out, "the redacted copy is ses_2, and ses_1 was deleted") || !strings.Contains(out, "Overwrote the file's free pages") {
		t.Fatalf("scrub: exit %d\n%s%s", code, out, stderr)
	}
	db, err := os.ReadFile(filepath.Join(home, "workrail.db"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(db), gh) {
		t.Error("after a scrub through the running daemon, the file still holds the token")
	}
	if code, out, _ := command(t, home, "doctor", "--secrets"); code != 0 {
		t.Errorf("doctor --secrets after scrub: exit %d\n%s", code, out)
	}
	if code, out, _ := command(t, home, "sessions"); code != 0 || strings.Contains(out, "ses_1 ") || !strings.Contains(out, "ses_2") {
		t.Errorf("sessions after scrub:\n%s", out)
	}

	// The agent's next call with ses_1's tokens is told what happened, and
	// its nextCall picks the same step up in the copy.
	r := advance(t, c, held, "went on after the scrub")
	expectCode(t, r, engine.CodeSessionReplaced)
	if !strings.Contains(r.Text, "replaced by ses_2") || str(r.S, "error", "details", "replacedBy") != "ses_2" || str(r.S, "nextCall", "tool") != "continue_workflow" {
		t.Fatalf("SESSION_REPLACED:\n%s", r.Raw)
	}
	again := call(t, c, "continue_workflow", dig(r.S, "nextCall", "arguments").(map[string]any))
	mustKind(t, again, "step")
	if str(again.S, "session", "sessionId") != "ses_2" || str(again.S, "pending", "stepId") != str(held.S, "pending", "stepId") {
		t.Errorf("the nextCall rehydrated %s at %s; want ses_2 at %s", str(again.S, "session", "sessionId"), str(again.S, "pending", "stepId"), str(held.S, "pending", "stepId"))
	}
	mustKind(t, advance(t, c, again, "went on in the copy"), "step")
}

// codesCoveredByTestScrubThroughTheDaemon are the codes it reaches.
var codesCoveredByTestScrubThroughTheDaemon = []engine.Code{engine.CodeSessionReplaced}
