package protocol_test

import (
	"encoding/json"
	"reflect"
	"sort"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/protocol"
)

// decode marshals r and reads it back as a generic object, the way a
// client that sees only structuredContent would.
func decode(t *testing.T, r protocol.Result) map[string]any {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func keys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Every result is one member of the kind union; its JSON carries the full
// text rendering in "text" and exactly the fields of its kind, never a
// null standing for a state.
func TestResultUnionJSON(t *testing.T) {
	tests := []struct {
		name   string
		result protocol.Result
		kind   protocol.Kind
		keys   []string
	}{
		{"minimal step", protocol.NewStep(minimalView(), minimalPending(), protocol.Progress{Part: 1, Parts: 1}), protocol.KindStep,
			[]string{"ackToken", "checkpointToken", "fills", "isComplete", "kind", "nextCall", "pending", "preferences", "progress", "session", "stateToken", "text", "warnings", "workflow"}},
		{"full step", protocol.NewStep(fullView(), fullPending(), protocol.Progress{Part: 2, Parts: 4}), protocol.KindStep,
			[]string{"ackToken", "checkpointToken", "fills", "fork", "gapsRecorded", "isComplete", "kind", "nextCall", "pending", "preferences", "progress", "recap", "session", "skipped", "stateToken", "text", "warnings", "workflow"}},
		{"blocked", protocol.NewBlocked(minimalView(), minimalPending(), allBlockers), protocol.KindBlocked,
			[]string{"ackToken", "blockers", "checkpointToken", "fills", "isComplete", "kind", "nextCall", "pending", "preferences", "session", "stateToken", "text", "warnings", "workflow"}},
		{"minimal complete", protocol.NewComplete(minimalView()), protocol.KindComplete,
			[]string{"isComplete", "kind", "openGapCount", "preferences", "session", "stateToken", "text", "warnings", "workflow"}},
		{"full complete", protocol.NewComplete(fullView()), protocol.KindComplete,
			[]string{"gapsRecorded", "isComplete", "kind", "openGapCount", "openGaps", "preferences", "session", "skipped", "stateToken", "text", "warnings", "workflow"}},
		{"error", protocol.NewError(engine.Errorf(engine.CodeWorkflowNotFound, "no workflow wr.x")), protocol.KindError,
			[]string{"error", "kind", "text"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.result.ResultKind() != tt.kind {
				t.Errorf("ResultKind %q; want %q", tt.result.ResultKind(), tt.kind)
			}
			m := decode(t, tt.result)
			if got := keys(m); !reflect.DeepEqual(got, tt.keys) {
				t.Errorf("keys %q\nwant %q", got, tt.keys)
			}
			if m["kind"] != string(tt.kind) {
				t.Errorf("kind %v; want %q", m["kind"], tt.kind)
			}
			if m["text"] != tt.result.RenderedText() || tt.result.RenderedText() == "" {
				t.Error(`"text" is not the rendered text`)
			}
			for k, v := range m {
				if v == nil {
					t.Errorf("%q is null", k)
				}
			}
			if w, ok := m["warnings"]; ok {
				if _, isList := w.([]any); !isList {
					t.Errorf("warnings %v is not a list", w)
				}
			}
		})
	}
}

func TestResultFields(t *testing.T) {
	v := fullView()
	p := fullPending()
	step := protocol.NewStep(v, p, protocol.Progress{Part: 2, Parts: 4})
	blocked := protocol.NewBlocked(v, p, allBlockers)
	done := protocol.NewComplete(v)

	tests := []struct {
		name      string
		got, want any
	}{
		{"step pending", step.Pending, p},
		{"step tokens", []string{step.StateToken, step.AckToken, step.CheckpointToken}, []string{testTokens.State, testTokens.Ack, testTokens.Checkpoint}},
		{"step is not complete", step.IsComplete, false},
		{"step session", step.Session, v.Session},
		{"step workflow", step.Workflow, v.Workflow},
		{"step progress", step.Progress, protocol.Progress{Part: 2, Parts: 4}},
		{"step preferences", step.Preferences, v.Preferences},
		{"step gaps", step.Gaps, v.Gaps},
		{"step recap", step.Recap, v.Recap},
		{"step skipped", step.Skipped, v.Skipped},
		{"step warnings", step.Warnings, v.Warnings},
		{"blocked pending", blocked.Pending, p},
		{"blocked tokens", []string{blocked.StateToken, blocked.AckToken, blocked.CheckpointToken}, []string{testTokens.State, testTokens.Ack, testTokens.Checkpoint}},
		{"blocked is not complete", blocked.IsComplete, false},
		{"blocked nextCall is the step's", blocked.NextCall, step.NextCall},
		{"blocked warnings", blocked.Warnings, v.Warnings},
		{"complete state token", done.StateToken, testTokens.State},
		{"complete is complete", done.IsComplete, true},
		{"complete gaps", done.Gaps, v.Gaps},
		{"complete skipped", done.Skipped, v.Skipped},
		{"complete session", done.Session, v.Session},
		{"complete workflow", done.Workflow, v.Workflow},
		{"no warnings is an empty list", protocol.NewComplete(minimalView()).Warnings, []protocol.Warning{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !reflect.DeepEqual(tt.got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", tt.got, tt.want)
			}
		})
	}
}

// The error envelope is the same everywhere: code, message, retry,
// details and suggestions as the engine built them.
func TestErrorEnvelope(t *testing.T) {
	e := engine.Errorf(engine.CodeDaemonUnavailable, "the daemon did not answer").With("socket", "/run/wr.sock")
	e.Suggestions = []engine.Suggestion{{Path: "x", Note: "n"}}
	r := protocol.NewError(e)
	if r.Kind != protocol.KindError || r.Error != e || r.NextCall != nil {
		t.Fatalf("result %+v", r)
	}
	m := decode(t, r)
	got, _ := json.Marshal(m["error"])
	want := `{"code":"DAEMON_UNAVAILABLE","details":{"socket":"/run/wr.sock"},"message":"the daemon did not answer",` +
		`"retry":{"afterMs":1000,"kind":"retryable_after_ms"},"suggestions":[{"note":"n","path":"x"}]}`
	if string(got) != want {
		t.Errorf("error %s\n want %s", got, want)
	}
}
