package event_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/workflow"
)

func sample() []event.Event {
	ref := engine.SnapshotRef(engine.Sum([]byte("snap")))
	hash := engine.WorkflowHash(engine.Sum([]byte("wf")))
	payloads := []event.Payload{
		&event.SessionCreatedData{CreatedAt: "2026-01-02T03:04:05Z"},
		&event.ObservationRecordedData{Key: event.ObsGitBranch, Value: "main"},
		&event.RunStartedData{WorkflowID: "wr.hello", WorkflowHash: hash},
		&event.NodeCreatedData{NodeKind: event.NodeStep, Snapshot: ref},
		&event.EdgeCreatedData{EdgeKind: event.EdgeAckedStep, From: 1, To: 2},
		&event.NodeOutputAppendedData{NotesMarkdown: "did <it> & more", Artifacts: []json.RawMessage{json.RawMessage(`{"kind":"x","n":1}`)}},
		&event.PreferencesChangedData{Delta: workflow.Preferences{Autonomy: workflow.Guided}, Effective: workflow.Preferences{Autonomy: workflow.Guided, RiskPolicy: workflow.Conservative}},
		&event.CapabilityObservedData{Capability: "delegation", Status: "available", Provenance: "probe_step"},
		&event.GapRecordedData{Reason: "assumption_made", Severity: "warning", Summary: "s"},
		&event.DivergenceRecordedData{Reason: "r", Summary: "s"},
		&event.DecisionTraceAppendedData{TraceKind: event.TraceDetectedNonTipAdvance, Summary: "s"},
		&event.AdvanceRecordedData{Attempt: 0, KeyID: 1, Outcome: event.OutcomeAdvanced, ToNode: 2},
		&event.NodeCreatedData{NodeKind: event.NodeCheckpoint, Snapshot: ref},
		&event.EdgeCreatedData{EdgeKind: event.EdgeCheckpoint, From: 1, To: 3, Attempt: 2, KeyID: 1},
		&event.ObservationRecordedData{Key: event.ObsRepoRoot, Value: "/home/u/src/app"},
		&event.RunStartedData{WorkflowID: "repo.hello", WorkflowHash: hash, Repo: event.RepoPin{URL: "https://example.com/flows.git", Commit: strings.Repeat("ab", 20)}},
		&event.RunStartedData{WorkflowID: "wr.hello", WorkflowHash: hash, RestartOf: 1}, // last: TestRestartOfIsOptional
	}
	var out []event.Event
	for i, p := range payloads {
		idx := engine.EventIndex(i + 1)
		out = append(out, event.Event{ID: engine.NewEventID(7, idx), Index: idx, Session: 7, Kind: p.Kind(), Run: 1, Node: 1, Data: p})
	}
	return out
}

func TestEncodeDecodeRoundTripsEveryKind(t *testing.T) {
	for _, e := range sample() {
		t.Run(string(e.Kind), func(t *testing.T) {
			b, err := event.Encode(e)
			if err != nil {
				t.Fatal(err)
			}
			got, err := event.Decode(b)
			if err != nil {
				t.Fatalf("decode %s: %v", b, err)
			}
			if !reflect.DeepEqual(got, e) {
				t.Fatalf("round trip changed the event:\n got %#v\nwant %#v", got, e)
			}
			again, _ := event.Encode(got)
			if !bytes.Equal(again, b) {
				t.Fatalf("re-encoding is not byte-identical:\n%s\n%s", b, again)
			}
		})
	}
}

func TestEncodeIsCanonical(t *testing.T) {
	e := sample()[2]
	b, err := event.Encode(e)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"data":{"workflowHash":"` + e.Data.(*event.RunStartedData).WorkflowHash.String() + `","workflowId":"wr.hello"},"eventId":"evt_7_3","eventIndex":3,"kind":"run_started","nodeId":"node_1","runId":"run_1","sessionId":"ses_7"}`
	if string(b) != want {
		t.Fatalf("encoding\n got %s\nwant %s", b, want)
	}
}

// A checkpoint edge carries its attempt and key in key order; every other
// edge encodes exactly as before those fields existed.
func TestCheckpointEdgeFields(t *testing.T) {
	for _, tt := range []struct {
		d    event.EdgeCreatedData
		want string
	}{
		{event.EdgeCreatedData{EdgeKind: event.EdgeAckedStep, From: 1, To: 2}, `{"edgeKind":"acked_step","fromNodeId":"node_1","toNodeId":"node_2"}`},
		{event.EdgeCreatedData{EdgeKind: event.EdgeCheckpoint, From: 1, To: 3, KeyID: 4},
			`{"edgeKind":"checkpoint","fromNodeId":"node_1","keyId":4,"toNodeId":"node_3"}`},
		{event.EdgeCreatedData{EdgeKind: event.EdgeCheckpoint, From: 1, To: 3, Attempt: 2, KeyID: 4},
			`{"attempt":2,"edgeKind":"checkpoint","fromNodeId":"node_1","keyId":4,"toNodeId":"node_3"}`},
	} {
		e := event.Event{ID: engine.NewEventID(7, 5), Index: 5, Session: 7, Kind: event.EdgeCreated, Run: 1, Node: tt.d.To, Data: &tt.d}
		b, err := event.Encode(e)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), `{"data":`+tt.want+`,"eventId"`) {
			t.Errorf("encoding %s; want data %s", b, tt.want)
		}
		got, err := event.Decode(b)
		if err != nil || !reflect.DeepEqual(got, e) {
			t.Errorf("decode %s: %v, %+v", b, err, got)
		}
	}
}

// TestRestartOfIsOptional: a run that restarts another names it; one
// that does not encodes exactly as before the field existed, and a
// restartOf naming no run (run_0) is not what Encode writes.
func TestRestartOfIsOptional(t *testing.T) {
	evs := sample()
	restart := evs[len(evs)-1]
	b, err := event.Encode(restart)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"restartOf":"run_1","workflowHash":"`) {
		t.Fatalf("restartOf is not encoded in key order: %s", b)
	}
	plain, _ := event.Encode(evs[2])
	if strings.Contains(string(plain), "restartOf") {
		t.Fatalf("a run that restarts nothing names restartOf: %s", plain)
	}
	for name, in := range map[string]string{
		"run_0":      strings.Replace(string(b), `"run_1","workflowHash"`, `"run_0","workflowHash"`, 1),
		"not an id":  strings.Replace(string(b), `"run_1","workflowHash"`, `"1","workflowHash"`, 1),
		"wrong case": strings.Replace(string(b), `"restartOf"`, `"RestartOf"`, 1),
	} {
		if _, err := event.Decode([]byte(in)); err == nil {
			t.Errorf("%s: Decode(%s) succeeded; want an error", name, in)
		}
	}
}

// TestRepoIsOptional: a run whose workflow a repository defined names
// the repository and commit before its workflow, and one read from any
// other source encodes exactly as before the field existed, as every
// log written before it does; an empty repo is not what Encode writes.
func TestRepoIsOptional(t *testing.T) {
	evs := sample()
	b, err := event.Encode(evs[len(evs)-2])
	if err != nil {
		t.Fatal(err)
	}
	want := `"data":{"repo":{"commit":"` + strings.Repeat("ab", 20) + `","url":"https://example.com/flows.git"},"workflowHash":"`
	if !strings.Contains(string(b), want) {
		t.Fatalf("repo is not encoded in key order: %s", b)
	}
	plain, _ := event.Encode(evs[2])
	if strings.Contains(string(plain), "repo") {
		t.Fatalf("a run of no repository names repo: %s", plain)
	}
	for name, in := range map[string]string{
		"empty":   strings.Replace(string(plain), `"data":{`, `"data":{"repo":{"commit":"","url":""},`, 1),
		"unknown": strings.Replace(string(b), `"commit":`, `"ref":"main","commit":`, 1),
	} {
		if _, err := event.Decode([]byte(in)); err == nil {
			t.Errorf("%s: Decode(%s) succeeded; want an error", name, in)
		}
	}
}

func TestDecodeRejects(t *testing.T) {
	good, _ := event.Encode(sample()[0])
	cases := map[string]string{
		"unknown kind":      strings.Replace(string(good), `"session_created"`, `"session_deleted"`, 1),
		"unknown field":     strings.Replace(string(good), `"eventId"`, `"extra":1,"eventId"`, 1),
		"unknown data key":  strings.Replace(string(good), `"createdAt"`, `"x":1,"createdAt"`, 1),
		"mismatched id":     strings.Replace(string(good), `"evt_7_1"`, `"evt_7_2"`, 1),
		"trailing data":     string(good) + "{}",
		"truncated":         string(good[:len(good)-3]),
		"flipped byte":      strings.Replace(string(good), `"kind"`, `"kinc"`, 1),
		"payload for other": strings.Replace(string(good), `"createdAt":"2026-01-02T03:04:05Z"`, `"workflowId":"x"`, 1),
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := event.Decode([]byte(in)); err == nil {
				t.Fatalf("Decode(%s) succeeded; want an error", in)
			}
		})
	}
}

func TestEncodeRejectsMismatchedPayload(t *testing.T) {
	e := sample()[0]
	e.Kind = event.RunStarted
	if _, err := event.Encode(e); err == nil {
		t.Fatal("Encode accepted a session_created payload under kind run_started")
	}
}

func TestChainDetectsAnyChange(t *testing.T) {
	var prev engine.Digest
	var encoded [][]byte
	var digests []engine.Digest
	for _, e := range sample() {
		b, _ := event.Encode(e)
		prev = event.Chain(prev, b)
		encoded = append(encoded, b)
		digests = append(digests, prev)
	}
	// Changing one byte of event 5 changes digest 5 and every later digest.
	encoded[4] = bytes.Replace(encoded[4], []byte("acked_step"), []byte("acked_stop"), 1)
	prev = engine.Digest{}
	for i, b := range encoded {
		prev = event.Chain(prev, b)
		if changed := prev != digests[i]; changed != (i >= 4) {
			t.Fatalf("digest %d changed=%v", i+1, changed)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, e := range sample() {
		b, _ := event.Encode(e)
		f.Add(b)
	}
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"kind":"node_created","data":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := event.Decode(b)
		if err != nil {
			return
		}
		// Decode accepts exactly Encode's output: what decodes encodes
		// back to the same bytes.
		enc, err := event.Encode(e)
		if err != nil || !bytes.Equal(enc, b) {
			t.Fatalf("decoded bytes are not its encoding: %v\n%s\n%s", err, b, enc)
		}
	})
}

// Decode refuses bytes that parse but are not what Encode writes: the
// store only ever holds Encode's output, so anything else was not written
// by WorkRail.
func TestDecodeRefusesNonCanonicalBytes(t *testing.T) {
	good, err := event.Encode(sample()[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := event.Decode(good); err != nil {
		t.Fatalf("Encode's own output: %v", err)
	}
	for name, b := range map[string]string{
		"extra whitespace":       " " + string(good),
		"key in another case":    strings.Replace(string(good), `"eventIndex"`, `"eventindex"`, 1),
		"missing node ids":       `{"data":{"edgeKind":"acked_step"},"eventId":"evt_7_5","eventIndex":5,"kind":"edge_created","sessionId":"ses_7"}`,
		"empty list spelled out": `{"data":{"artifacts":[],"notesMarkdown":"n"},"eventId":"evt_7_6","eventIndex":6,"kind":"node_output_appended","sessionId":"ses_7"}`,
	} {
		if _, err := event.Decode([]byte(b)); err == nil || !strings.Contains(err.Error(), "canonical") {
			t.Errorf("%s: Decode = %v; want a refusal", name, err)
		}
	}
}

// A stamp is part of the canonical bytes (so the chain covers it), is
// absent when empty (so the logs of earlier builds keep their bytes), and
// an origin outside the closed set is refused both ways.
func TestStampIsInTheEnvelope(t *testing.T) {
	ref := engine.SnapshotRef(engine.Sum([]byte("snap")))
	plain := event.Event{ID: engine.NewEventID(3, 4), Index: 4, Session: 3, Kind: event.NodeCreated, Run: 1, Node: 2,
		Data: &event.NodeCreatedData{NodeKind: event.NodeStep, Snapshot: ref}}
	old, err := event.Encode(plain)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(old), "appendedAt") || strings.Contains(string(old), "origin") {
		t.Fatalf("an unstamped event encodes a stamp: %s", old)
	}
	for _, s := range []event.Stamp{{At: 1_790_000_000_123}, {At: 5, Origin: event.OriginConsole}, {Origin: event.OriginConsole}} {
		e := plain.Stamped(s)
		b, err := event.Encode(e)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) == string(old) {
			t.Fatalf("stamp %+v left the bytes unchanged", s)
		}
		got, err := event.Decode(b)
		if err != nil || got.Stamp() != s {
			t.Fatalf("Decode(%s) = %+v, %v; want stamp %+v", b, got.Stamp(), err, s)
		}
	}
	bad := plain.Stamped(event.Stamp{Origin: "robot"})
	if _, err := event.Encode(bad); err == nil {
		t.Fatal("Encode took an origin outside the closed set")
	}
	forged := strings.Replace(string(mustEncode(t, plain.Stamped(event.Stamp{Origin: event.OriginConsole}))), `"console"`, `"robot"`, 1)
	if _, err := event.Decode([]byte(forged)); err == nil {
		t.Fatalf("Decode took %s", forged)
	}
}

func mustEncode(t *testing.T, e event.Event) []byte {
	t.Helper()
	b, err := event.Encode(e)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
