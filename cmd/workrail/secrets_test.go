package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/store"
	"github.com/workrail/workrail/workflows"
)

// Fake secrets of rules the scanner knows.
const (
	oldGitHubToken = "ghp_R4nd0mT0k3nV4lu3sXyZ0123456789abCdEf"
	oldAWSKey      = "AKIAZ7XQ3VQ4LMNOPQRS"
)

// seedSecrets makes a home whose ses_1 was written, as builds before the
// scanner wrote it, with secrets in a note, a user response artifact, a
// context value and a checkpoint's notes; ses_2 holds none.
func seedSecrets(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("WORKRAIL_HOME", home)
	st, err := store.Open(filepath.Join(home, "workrail.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	uc := execute.New(st, executetest.Ring(t), executetest.Catalog(t, workflows.FS), workflow.Preferences{}, executetest.Clock, t.Logf)
	step := func(r protocol.Result) protocol.StepResult {
		t.Helper()
		s, ok := r.(protocol.StepResult)
		if !ok {
			t.Fatalf("want a step: %s", r.RenderedText())
		}
		return s
	}
	call := func(args map[string]any) []byte {
		b, _ := json.Marshal(args)
		return b
	}
	s := step(uc.Start(context.Background(), call(map[string]any{"workflowId": "wr.hello", "context": map[string]any{"aws": "key " + oldAWSKey}})))
	cp := step(uc.Checkpoint(context.Background(), call(map[string]any{"stateToken": s.StateToken, "checkpointToken": s.CheckpointToken,
		"output": map[string]any{"notesMarkdown": "aws " + oldAWSKey}})))
	step(uc.Continue(context.Background(), call(map[string]any{"stateToken": cp.StateToken, "ackToken": cp.AckToken,
		"output": map[string]any{"notesMarkdown": "used " + oldGitHubToken,
			"artifacts": []any{map[string]any{"kind": "wr.user_response", "response": oldGitHubToken}}}})))
	executetest.Drive(t, uc, "wr.hello", "")
	return home
}

// doctor --secrets finds what older builds stored, names where and which
// rule and never the secret; scrub replaces the session by a redacted
// copy and deletes it; after compact the file holds neither secret.
func TestDoctorSecretsAndScrub(t *testing.T) {
	home := seedSecrets(t)
	out, _ := cli(t, 1, "doctor", "--secrets", "--json")
	var l secretList
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	if l.Scanned != 2 || len(l.Sessions) != 1 || l.Sessions[0].Session != 1 {
		t.Fatalf("doctor --secrets: %s", out)
	}
	got := map[string]string{}
	for _, f := range l.Sessions[0].Findings {
		got[f.Pointer] = strings.Join(f.Rules, ",")
	}
	for ptr, rule := range map[string]string{"/snapshot/context/aws": "aws-access-token", "/data/notesMarkdown": "github-pat",
		"/data/artifacts/0/response": "github-pat"} {
		if got[ptr] != rule {
			t.Errorf("finding %s = %q; want %s (all: %v)", ptr, got[ptr], rule, got)
		}
	}
	text, _ := cli(t, 1, "doctor", "--secrets")
	for _, secret := range []string{oldGitHubToken, oldAWSKey} {
		if strings.Contains(out+text, secret) {
			t.Errorf("doctor --secrets printed the secret %s", secret)
		}
	}
	if !strings.Contains(text, "ses_1 holds") || !strings.Contains(text, "workrail scrub SESSION") {
		t.Errorf("doctor --secrets text:\n%s", text)
	}

	scrubbed, _ := cli(t, 0, "scrub", "ses_1")
	if !strings.Contains(scrubbed, "the redacted copy is ses_3, and ses_1 was deleted") {
		t.Errorf("scrub said:\n%s", scrubbed)
	}
	cli(t, 0, "doctor", "--secrets")
	cli(t, 0, "doctor")
	sessions, _ := cli(t, 0, "sessions", "--json")
	if strings.Contains(sessions, `"sessionId": "ses_1"`) || !strings.Contains(sessions, `"sessionId": "ses_3"`) {
		t.Errorf("sessions after scrub:\n%s", sessions)
	}
	bundleJSON, _ := cli(t, 0, "export", "ses_3")
	if !strings.Contains(bundleJSON, "[redacted: github-pat]") || !strings.Contains(bundleJSON, "[redacted: aws-access-token]") {
		t.Errorf("the copy lacks the markers")
	}
	cli(t, 0, "compact")
	db, err := os.ReadFile(filepath.Join(home, "workrail.db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{oldGitHubToken, oldAWSKey} {
		if strings.Contains(bundleJSON, secret) || strings.Contains(string(db), secret) {
			t.Errorf("%s is still stored", secret)
		}
	}
	cli(t, 0, "scrub", "ses_3")
}
