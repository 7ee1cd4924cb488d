package e2e

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What an agent, a person and the workspace put into a session, none of
// which a redacted export may carry.
var e2ePlanted = []string{
	"feature/secret-branch-e2e",                // the branch
	"5ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7", // HEAD
	"SECRET-ctx-e2e",                           // a context value
	"/home/victim/e2e-notes",                   // a path in the context
	"SECRET-note-e2e",                          // notes
	"ghp_SECRETe2eTOKEN0123456789",             // the user's answer
	"SECRET-checkpoint-e2e",                    // checkpoint notes
}

// `workrail export --redact` through the real binary and daemon writes a
// bundle holding nothing planted (the workspace, branch, commit, context,
// notes, user response, checkpoint), that `workrail import` verifies and
// stores in a fresh home, where a new chat finds it with resume_session,
// rehydrates and finishes the run. `--markdown --redact` holds nothing
// planted either.
func TestRedactedExportImportsAndFinishes(t *testing.T) {
	from, to := newHome(t), newHome(t)
	repo := t.TempDir()
	for name, content := range map[string]string{".git/HEAD": "ref: refs/heads/feature/secret-branch-e2e\n",
		".git/refs/heads/feature/secret-branch-e2e": e2ePlanted[1] + "\n"} {
		p := filepath.Join(repo, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	startDaemon(t, from)
	c := startShim(t, from)
	r := call(t, c, "start_workflow", map[string]any{"workflowId": "wr.hello", "workspacePath": repo,
		"context": map[string]any{"ticket": "SECRET-ctx-e2e", "seen": []any{"/home/victim/e2e-notes"}}})
	mustKind(t, r, "step")
	args := nextArgs(t, r, "SECRET-note-e2e")
	args["output"].(map[string]any)["artifacts"] = []any{map[string]any{"kind": "wr.user_response", "response": "ghp_SECRETe2eTOKEN0123456789"}}
	r = call(t, c, "continue_workflow", args)
	mustKind(t, r, "step")
	mustKind(t, checkpoint(t, c, r, "SECRET-checkpoint-e2e"), "step")
	session := str(r.S, "session", "sessionId")

	dir := t.TempDir()
	plainFile, file := filepath.Join(dir, "plain.json"), filepath.Join(dir, "redacted.json")
	if code, _, stderr := command(t, from, "export", session, "-o", plainFile); code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	for _, s := range append([]string{repo}, e2ePlanted...) {
		if !bytes.Contains(mustRead(t, plainFile), []byte(s)) {
			t.Fatalf("the plain export lacks %q: the session does not hold what the test plants", s)
		}
	}
	code, _, stderr := command(t, from, "export", session, "--redact", "-o", file)
	if code != 0 || !strings.Contains(stderr, "redacted (notes, artifacts") {
		t.Fatalf("export --redact: exit %d: %s", code, stderr)
	}
	code, md, stderr := command(t, from, "export", session, "--redact", "--markdown")
	if code != 0 || !strings.Contains(md, "Redacted:") {
		t.Fatalf("export --redact --markdown: exit %d: %s\n%s", code, stderr, md)
	}
	for _, s := range append([]string{repo}, e2ePlanted...) {
		if bytes.Contains(mustRead(t, file), []byte(s)) {
			t.Errorf("the redacted bundle holds %q", s)
		}
		if strings.Contains(md, s) {
			t.Errorf("the redacted Markdown holds %q", s)
		}
	}
	if !bytes.Contains(mustRead(t, file), []byte(`"redaction":"all"`)) {
		t.Fatal("the bundle does not say it is redacted")
	}

	var done map[string]any
	shareJSON(t, to, 0, &done, "import", "--json", file)
	imported := str(done, "sessionId")
	if imported == "" || str(done, "redaction") != "all" {
		t.Fatalf("import: %v", done)
	}
	c2 := startShim(t, to)
	found := call(t, c2, "resume_session", map[string]any{"query": "hello"})
	mustKind(t, found, "candidates")
	cands, _ := found.S["candidates"].([]any)
	if len(cands) != 1 || str(cands[0].(map[string]any), "session", "sessionId") != imported {
		t.Fatalf("resume_session does not offer the import %s:\n%s", imported, found.Text)
	}
	next := cands[0].(map[string]any)["nextCall"].(map[string]any)
	r = call(t, c2, str(next, "tool"), next["arguments"].(map[string]any))
	mustKind(t, r, "step")
	if !strings.Contains(r.Text, "[redacted]") {
		t.Errorf("the rehydrated step does not show the masked notes:\n%s", r.Text)
	}
	for r.kind() == "step" {
		r = advance(t, c2, r, "finished from the redacted copy")
	}
	mustKind(t, r, "complete")
	// The Console shows the imported session, masked values and all.
	token := strings.TrimSpace(string(mustRead(t, filepath.Join(to, "auth.token"))))
	code, _, page := get(t, mustInfo(t, to).URL+"/sessions/"+imported, "", "Authorization", "Bearer "+token)
	if code != http.StatusOK || !strings.Contains(page, "[redacted]") {
		t.Errorf("GET /sessions/%s = %d; want the page with the masked notes", imported, code)
	}
	healthyDoctor(t, to)
}
