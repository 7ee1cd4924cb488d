package execute_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/bundle"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/golden"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/server/secrets"
)

// Fake secrets of three rules the scanner knows.
const (
	ghToken  = "ghp_R4nd0mT0k3nV4lu3sXyZ0123456789abCdEf"
	awsKey   = "AKIAZ7XQ3VQ4LMNOPQRS"
	urlPass  = "hunter2pass"
	dbURL    = "postgres://app:" + urlPass + "@db.internal:5432/prod"
	ghMarker = "[redacted: github-pat]"
)

// secretWorkflow asks for a token (a user-only dependency), takes a
// context value and reports gaps on its first step.
const secretWorkflow = `{"id":"wr.sec","name":"Sec","description":"d","version":"1",
 "context":[{"name":"db","type":"string","description":"the database URL"}],
 "steps":[
  {"id":"token","title":"Token","prompt":"get the token","userDependency":{"reason":"needs_user_secret_or_token","summary":"The deploy token","requestedFromUser":"Paste the deploy token"}},
  {"id":"work","title":"Work","prompt":"work"},
  {"id":"done","title":"Done","prompt":"finish"}]}`

func secretRig(t *testing.T) *rig {
	t.Helper()
	s := memstore.New()
	wf := catalogOf(t, map[string]string{"wr.sec.json": secretWorkflow})
	return &rig{store: s, x: execute.New(s, executetest.Ring(t), wf, workflow.Preferences{}, executetest.Clock, t.Logf,
		execute.WithSecrets(secrets.MustNew()))}
}

// stored is every event of a session as JSON, the way a reader of the log
// would see it.
func (r *rig) stored(t *testing.T, s protocol.StepResult) string {
	t.Helper()
	b, err := json.Marshal(r.events(t, s.Session.SessionID))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// secretWarning is the SECRET_REDACTED warning of ws (it fails without).
func secretWarning(t *testing.T, ws []protocol.Warning) protocol.Warning {
	t.Helper()
	for _, w := range ws {
		if w.Code == event.NoticeSecretRedacted {
			return w
		}
	}
	t.Fatalf("no %s warning in %+v", event.NoticeSecretRedacted, ws)
	return protocol.Warning{}
}

func pointers(w protocol.Warning) []string {
	var ps []string
	for _, f := range w.Secrets {
		ps = append(ps, f.Pointer+"="+strings.Join(f.Rules, ","))
	}
	return ps
}

// Every kind of agent text is redacted before it is stored, and the
// warning names where and by which rule, never the secret.
func TestSecretsAreRedactedInEveryField(t *testing.T) {
	r := secretRig(t)
	s := r.step(t, "start", map[string]any{"workflowId": "wr.sec", "context": map[string]any{"db": dbURL}})
	if got := pointers(secretWarning(t, s.Warnings)); !slices.Equal(got, []string{"/context/db=url-password"}) {
		t.Errorf("start warning names %v", got)
	}
	if strings.Contains(s.Text, "Paste the deploy token") && !strings.Contains(s.Text, "never send its value to WorkRail") {
		t.Errorf("the secret step does not tell the agent to keep the secret in the chat:\n%s", s.Text)
	}
	cp := r.step(t, "checkpoint", checkpointArgs(s.StateToken, s.CheckpointToken, "found key "+awsKey))
	if got := pointers(secretWarning(t, cp.Warnings)); !slices.Equal(got, []string{"/output/notesMarkdown=aws-access-token"}) {
		t.Errorf("checkpoint warning names %v", got)
	}
	args := map[string]any{"stateToken": cp.StateToken, "ackToken": cp.AckToken,
		"context": map[string]any{"db": dbURL, "nested": map[string]any{"list": []any{"ok", "token " + ghToken}}},
		"output": map[string]any{"notesMarkdown": "used " + ghToken,
			"artifacts": []any{map[string]any{"kind": "wr.user_response", "response": ghToken}}}}
	res, first := r.call(t, "continue", args)
	s2, ok := res.(protocol.StepResult)
	if !ok {
		t.Fatalf("continue: %s", first)
	}
	w := secretWarning(t, s2.Warnings)
	want := []string{"/context/db=url-password", "/context/nested/list/1=github-pat", "/output/notesMarkdown=github-pat", "/output/artifacts/0/response=github-pat"}
	if got := pointers(w); !slices.Equal(got, want) {
		t.Errorf("continue warning names %v; want %v", got, want)
	}
	for _, secret := range []string{ghToken, awsKey, urlPass} {
		if strings.Contains(string(first), secret) || strings.Contains(w.Message, secret) {
			t.Errorf("the answer shows the secret %s", secret)
		}
	}

	// The same call again: the same bytes, no OUTPUT_IGNORED_ON_REPLAY.
	if _, again := r.call(t, "continue", args); string(again) != string(first) {
		t.Fatalf("replay differs:\n%s\n%s", first, again)
	}
	log := r.stored(t, s) + r.snapshot(t, s2)
	for _, secret := range []string{ghToken, awsKey, urlPass} {
		if strings.Contains(log, secret) {
			t.Errorf("the log holds %s", secret)
		}
	}
	for _, m := range []string{ghMarker, "[redacted: aws-access-token]", "[redacted: url-password]"} {
		if !strings.Contains(log, m) {
			t.Errorf("the log lacks the marker %s", m)
		}
	}
}

// snapshot is the JSON of the snapshot at the node s's tokens name: the
// context lives there, outside the log.
func (r *rig) snapshot(t *testing.T, s protocol.StepResult) string {
	t.Helper()
	var out []byte
	err := r.store.View(s.Session.SessionID, func(tx execute.ReadTx) error {
		n, err := tx.Node(r.tip(t, s))
		if err != nil {
			return err
		}
		snap, err := tx.Snapshot(n.Snapshot)
		if err != nil {
			return err
		}
		out, err = json.Marshal(snap)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// A checkpoint sent again with the same secret answers the same bytes: the
// notes are compared redacted, and the warning is shown again.
func TestCheckpointWithSecretReplaysIdentically(t *testing.T) {
	r := secretRig(t)
	s := r.step(t, "start", map[string]any{"workflowId": "wr.sec"})
	args := checkpointArgs(s.StateToken, s.CheckpointToken, "key "+awsKey)
	_, first := r.call(t, "checkpoint", args)
	_, again := r.call(t, "checkpoint", args)
	if string(first) != string(again) {
		t.Fatalf("replay differs:\n%s\n%s", first, again)
	}
	if strings.Contains(string(first), "CHECKPOINT_IGNORED") || strings.Contains(string(first), "IGNORED_ON_REPLAY") {
		t.Errorf("the resent secret was reported as different notes: %s", first)
	}
}

// A resolvesGaps summary is redacted like notes.
func TestGapResolutionSummaryIsRedacted(t *testing.T) {
	r := autonomyRig(t)
	r.x = execute.New(r.store, executetest.Ring(t), catalogOf(t, map[string]string{"wr.auto.json": autonomyWorkflow}), workflow.Preferences{},
		executetest.Clock, t.Logf, execute.WithSecrets(secrets.MustNew()))
	s := r.step(t, "start", map[string]any{"workflowId": "wr.auto", "mode": "wr.modes.full_auto_never_stop"})
	s2 := r.step(t, "continue", map[string]any{"stateToken": s.StateToken, "ackToken": s.AckToken})
	s3 := r.step(t, "continue", map[string]any{"stateToken": s2.StateToken, "ackToken": s2.AckToken,
		"output": map[string]any{"resolvesGaps": []map[string]any{{"gapId": s2.Gaps[0].GapID, "summary": "used " + ghToken}}}})
	if got := pointers(secretWarning(t, s3.Warnings)); !slices.Equal(got, []string{"/output/resolvesGaps/0/summary=github-pat"}) {
		t.Errorf("warning names %v", got)
	}
	if log := r.stored(t, s); strings.Contains(log, ghToken) || !strings.Contains(log, ghMarker) {
		t.Errorf("the gap summary was stored unredacted")
	}
}

// A step that needs the user's secret tells the agent, in its text, its
// blocked text and its example, to keep the secret in the chat: pinned.
func TestSecretStepTextGolden(t *testing.T) {
	var got strings.Builder
	for i, res := range executetest.Drive(t, secretRig(t).x, "wr.sec", "") {
		fmt.Fprintf(&got, "======== %02d %s\n%s\n", i, res.ResultKind(), res.RenderedText())
	}
	golden.Check(t, filepath.Join("testdata", "golden", "secret-step.txt"), []byte(got.String()))
}

// A secret used as an object key (of a context value or an artifact) is
// replaced on the way in, and the pointer names the member by its marker.
// In a session stored before keys were scanned, doctor --secrets finds it
// and export --redact, which keeps keys, masks it.
func TestSecretsInObjectKeys(t *testing.T) {
	r := secretRig(t)
	s := r.step(t, "start", map[string]any{"workflowId": "wr.sec", "context": map[string]any{"hosts": map[string]any{ghToken: "ci"}}})
	if got := pointers(secretWarning(t, s.Warnings)); !slices.Equal(got, []string{"/context/hosts/" + ghMarker + "=github-pat"}) {
		t.Errorf("start warning names %v", got)
	}
	if snap := r.snapshot(t, s); strings.Contains(snap, ghToken) || !strings.Contains(snap, ghMarker) {
		t.Errorf("the snapshot holds the key: %s", snap)
	}

	plain := execute.New(r.store, executetest.Ring(t), catalogOf(t, map[string]string{"wr.sec.json": secretWorkflow}), workflow.Preferences{}, executetest.Clock, t.Logf)
	old := (&rig{store: r.store, x: plain}).step(t, "start", map[string]any{"workflowId": "wr.sec", "context": map[string]any{"hosts": map[string]any{ghToken: "ci"}}})
	(&rig{store: r.store, x: plain}).step(t, "continue", map[string]any{"stateToken": old.StateToken, "ackToken": old.AckToken,
		"output": map[string]any{"artifacts": []any{map[string]any{"kind": "wr.user_response", "response": "provided"}, map[string]any{"kind": "demo.files", "by": map[string]any{awsKey: true}}}}})
	id := old.Session.SessionID
	fs, err := r.x.FindSecrets(id)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, f := range fs {
		found = append(found, f.Pointer+"="+strings.Join(f.Rules, ","))
	}
	if !slices.Contains(found, "/snapshot/context/hosts/"+ghMarker+"=github-pat") || !slices.Contains(found, "/data/artifacts/1/by/[redacted: aws-access-token]=aws-access-token") {
		t.Errorf("doctor --secrets finds %v", found)
	}
	full, err := r.x.Export(id, bundle.ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	masked, err := r.x.Export(id, bundle.ExportOptions{Redact: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(full), ghToken) {
		t.Fatal("the plain export lost the key: the test shows nothing")
	}
	for _, secret := range []string{ghToken, awsKey} {
		if strings.Contains(string(masked), secret) {
			t.Errorf("export --redact keeps the key %s", secret)
		}
	}
	if _, err := bundle.Read(masked); err != nil {
		t.Errorf("the redacted bundle does not verify: %v", err)
	}
}
