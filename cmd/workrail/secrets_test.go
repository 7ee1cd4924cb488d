package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/workrail/workrail/cmd/workrail/daemon"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/server/secrets"
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
// copy, deletes it and overwrites the freed pages: the file holds
// neither secret, and after compact neither.
func TestDoctorSecretsAndScrub(t *testing.T) {
	home := seedSecrets(t)
	out, _ := cli(t, 1, "doctor", "--secrets", "--json")
	var l daemon.SecretList
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
	if !strings.Contains(scrubbed, "the redacted copy is ses_3, and ses_1 was deleted") || !strings.Contains(scrubbed, "Overwrote the file's free pages") {
		t.Errorf("scrub said:\n%s", scrubbed)
	}
	// No compact needed: the freed pages were overwritten.
	db, err := os.ReadFile(filepath.Join(home, "workrail.db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{oldGitHubToken, oldAWSKey} {
		if strings.Contains(string(db), secret) {
			t.Errorf("after scrub, the file holds %s", secret)
		}
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
	db, err = os.ReadFile(filepath.Join(home, "workrail.db"))
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

// A scrub while an agent advances the same session, as fast as it can:
// the scrub replaces the session by its copy in one write, so no write
// of the agent is lost (each one acknowledged in the original is in the
// copy) and no second copy is left; the agent's next call with the
// original's tokens gets SESSION_REPLACED, never TOKEN_UNKNOWN_NODE,
// and its nextCall rehydrates the same step in the copy, where the agent
// goes on. Then the file holds none of the secrets the session held.
func TestScrubWhileAnAgentWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "workrail.db")
	st, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ring, wf := executetest.Ring(t), executetest.Long(t, 400)
	old := execute.New(st, ring, wf, workflow.Preferences{}, executetest.Clock, t.Logf) // a build that stored secrets
	served := execute.New(st, ring, wf, workflow.Preferences{}, executetest.Clock, t.Logf, execute.WithSecrets(secrets.MustNew()))
	var stored []string
	for i := range 30 {
		stored = append(stored, fmt.Sprintf("ghp_R4nd0m%02dT0k3nV4lu3sXyZ0123456789abCd", i))
	}
	call := func(x *execute.Service, args map[string]any) protocol.Result {
		b, _ := json.Marshal(args)
		return x.Continue(context.Background(), b)
	}
	s, ok := old.Start(context.Background(), []byte(`{"workflowId":"wr.long"}`)).(protocol.StepResult)
	if !ok {
		t.Fatal("start failed")
	}
	for _, secret := range stored {
		if s, ok = call(old, map[string]any{"stateToken": s.StateToken, "ackToken": s.AckToken,
			"output": map[string]any{"notesMarkdown": "deployed with " + secret}}).(protocol.StepResult); !ok {
			t.Fatal("advance failed")
		}
	}
	orig := s.Session.SessionID

	// The agent: advances with notes of its own until told to stop, and
	// follows a SESSION_REPLACED's nextCall.
	var acked []string // notes acknowledged in the original session
	var replaced, others int
	var progress atomic.Int32 // advances answered, in either session
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			note := fmt.Sprintf("agent advance %d", i)
			switch r := call(served, map[string]any{"stateToken": s.StateToken, "ackToken": s.AckToken, "output": map[string]any{"notesMarkdown": note}}).(type) {
			case protocol.StepResult:
				if r.Session.SessionID == orig {
					acked = append(acked, note)
				}
				s = r
				progress.Add(1)
			case protocol.ErrorResult:
				if r.Error.Code != engine.CodeSessionReplaced || r.NextCall == nil {
					others++
					t.Errorf("advance %d: %s", i, r.Text)
					return
				}
				replaced++
				var args map[string]any
				json.Unmarshal(r.NextCall.Arguments, &args)
				if s, ok = call(served, args).(protocol.StepResult); !ok {
					t.Errorf("the nextCall of SESSION_REPLACED did not rehydrate")
					return
				}
			}
		}
	}()
	waitFor := func(n int32) {
		for deadline := time.Now().Add(10 * time.Second); progress.Load() < n && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
	}
	waitFor(5)
	res, err := daemon.ScrubSession(served, st, orig)
	if err != nil || len(res.Findings) != len(stored) || res.Copy == 0 {
		t.Fatalf("scrub: %+v, %v", res, err)
	}
	waitFor(progress.Load() + 5) // the agent goes on after the scrub
	close(stop)
	<-done
	if replaced != 1 || others != 0 {
		t.Fatalf("the agent got SESSION_REPLACED %d times and %d other errors", replaced, others)
	}
	if s.Session.SessionID != res.Copy {
		t.Errorf("the agent went on in %s; the copy is %s", s.Session.SessionID, res.Copy)
	}
	ids, err := st.SessionIDs()
	if err != nil || !slices.Equal(ids, []engine.SessionID{res.Copy}) {
		t.Errorf("sessions after the scrub: %v, %v; want only the copy %s", ids, err, res.Copy)
	}
	var notes strings.Builder
	err = st.View(res.Copy, func(tx execute.ReadTx) error {
		for i := engine.EventIndex(1); i <= tx.Head(); i++ {
			e, err := tx.Event(i)
			if err != nil {
				return err
			}
			if d, ok := e.Data.(*event.NodeOutputAppendedData); ok {
				notes.WriteString(d.NotesMarkdown + "\n")
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range acked {
		if !strings.Contains(notes.String(), n+"\n") {
			t.Errorf("%q was acknowledged in %s but is not in its copy", n, orig)
		}
	}
	if res.Wiped == nil || res.Wiped.Held || res.Wiped.Pages == 0 {
		t.Errorf("the wipe: %+v", res.Wiped)
	}
	db, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range stored {
		if bytes.Contains(db, []byte(secret)) {
			t.Errorf("the file still holds %s", secret)
		}
	}
	t.Logf("%d advances acknowledged in %s before the scrub, %d secrets scrubbed, %d pages overwritten", len(acked), orig, len(res.Findings), res.Wiped.Pages)
}
