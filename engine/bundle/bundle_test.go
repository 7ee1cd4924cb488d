package bundle_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/bundle"
	"github.com/workrail/workrail/engine/canon"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/workflows"
)

// sample is a real bundle: wr.bug_investigation driven to its end in the
// default mode (blocked attempts and all), then a checkpoint and a fork
// at the root from the Console, so it holds two runs, several pinned
// snapshots and notes.
func sample(t *testing.T) []byte {
	t.Helper()
	s := memstore.New()
	x := execute.New(s, executetest.Ring(t), executetest.Catalog(t, workflows.FS), workflow.Preferences{}, executetest.Clock, t.Logf)
	results := executetest.Drive(t, x, "wr.bug_investigation", "")
	first := results[0].(protocol.StepResult)
	id := first.Session.SessionID
	cp, _ := json.Marshal(map[string]any{"stateToken": first.StateToken, "checkpointToken": first.CheckpointToken,
		"output": map[string]any{"notesMarkdown": "Looked around first."}})
	if r, ok := x.Checkpoint(context.Background(), cp).(protocol.StepResult); !ok {
		t.Fatalf("checkpoint: %v", r)
	}
	if _, at := x.Fork(context.Background(), execute.Place{Session: id, Run: 1, Node: 1}, []byte(`{}`)); at.Run != 2 {
		t.Fatalf("fork at the root went to %+v", at)
	}
	b, err := x.Export(id, bundle.ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// read decodes a bundle that verifies.
func read(t *testing.T, b []byte) *bundle.Bundle {
	t.Helper()
	v, err := bundle.Read(b)
	if err != nil {
		t.Fatal(err)
	}
	return v.Bundle
}

// forge re-encodes a bundle as a forger would who knows the format:
// every manifest digest recomputed, and with events given, the chain
// too. Only the checks past the manifest can then refuse it.
func forge(t *testing.T, b *bundle.Bundle, evs []event.Event) []byte {
	t.Helper()
	if evs != nil {
		b.Events = nil
		var head engine.Digest
		for _, e := range evs {
			enc, err := event.Encode(e)
			if err != nil {
				t.Fatal(err)
			}
			b.Events, head = append(b.Events, enc), event.Chain(head, enc)
		}
		b.Manifest.ChainHead, b.Manifest.EventCount = head, len(evs)
	}
	if err := b.Seal(); err != nil {
		t.Fatal(err)
	}
	out, err := bundle.Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// events decodes a bundle's events, to be changed and forged.
func events(t *testing.T, b []byte) []event.Event {
	t.Helper()
	v, err := bundle.Read(b)
	if err != nil {
		t.Fatal(err)
	}
	return append([]event.Event(nil), v.Events...)
}

// generic edits a bundle as JSON.
func generic(t *testing.T, b []byte, edit func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, err := canon.JSON(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// flip changes the last byte of the nth occurrence (from 0) of s in b.
func flip(t *testing.T, b []byte, s string, nth int) []byte {
	t.Helper()
	out := bytes.Clone(b)
	at := 0
	for i := 0; ; i++ {
		j := bytes.Index(out[at:], []byte(s))
		if j < 0 {
			t.Fatalf("%q occurs only %d times", s, i)
		}
		if i == nth {
			out[at+j+len(s)-1] ^= 0x01
			return out
		}
		at += j + len(s)
	}
}

// rebuild builds the bundle good copies again, with o.
func rebuild(t *testing.T, good []byte, o bundle.ExportOptions) *bundle.Bundle {
	t.Helper()
	v, err := bundle.Read(good)
	if err != nil {
		t.Fatal(err)
	}
	wfs := map[engine.WorkflowHash][]byte{}
	for h, raw := range v.Bundle.Workflows {
		wfs[h] = raw
	}
	b, err := bundle.Build(bundle.Source{Events: v.Events, Snapshots: v.Snapshots, Workflows: wfs}, o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// forgeSnapshot moves snapshot ref of b to the address of its content,
// renames it in every event and node that names it, and forges the rest.
func forgeSnapshot(t *testing.T, b *bundle.Bundle, ref engine.SnapshotRef) []byte {
	t.Helper()
	enc, err := canon.JSON(b.Snapshots[ref])
	if err != nil {
		t.Fatal(err)
	}
	to := engine.SnapshotRef(engine.Sum(enc))
	b.Snapshots[to] = enc
	delete(b.Snapshots, ref)
	for i := range b.Runs {
		for j := range b.Runs[i].Nodes {
			if b.Runs[i].Nodes[j].Snapshot == ref {
				b.Runs[i].Nodes[j].Snapshot = to
			}
		}
	}
	var evs []event.Event
	for _, raw := range b.Events {
		e, err := event.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := e.Data.(*event.NodeCreatedData); ok && d.Snapshot == ref {
			e.Data = &event.NodeCreatedData{NodeKind: d.NodeKind, Snapshot: to}
		}
		evs = append(evs, e)
	}
	return forge(t, b, evs)
}

func firstSnapshot(b *bundle.Bundle) engine.SnapshotRef {
	ref := b.Runs[0].Nodes[1].Snapshot
	return ref
}

// Every kind of damage is refused with BUNDLE_INVALID, names its problem,
// and says where it is; nothing in the bundle is taken on trust.
func TestReadRefusesDamage(t *testing.T) {
	good := sample(t)
	tests := []struct {
		name    string
		damage  func(t *testing.T) []byte
		problem bundle.Problem
		details map[string]any // details the error must carry
		says    string         // in the message
	}{
		{"a flipped byte in an event's notes", func(t *testing.T) []byte { return flip(t, good, "Did ", 0) },
			bundle.DigestMismatch, map[string]any{"entry": "manifest.parts.events"}, "part \"events\" does not match its manifest digest"},
		{"a flipped byte in the readable outputs", func(t *testing.T) []byte {
			return flip(t, good, `"notesMarkdown":"Did `, bytes.Count(good, []byte(`"notesMarkdown":"Did `))-1)
		}, bundle.DigestMismatch, map[string]any{"entry": "manifest.parts.outputs"}, "manifest.parts.outputs"},
		{"a dropped snapshot", func(t *testing.T) []byte {
			b := read(t, good)
			delete(b.Snapshots, firstSnapshot(b))
			return forge(t, b, nil)
		}, bundle.MissingReference, map[string]any{"nodeId": "node_2"}, "node_2"},
		{"a dropped snapshot, manifest left alone", func(t *testing.T) []byte {
			return generic(t, good, func(m map[string]any) {
				snaps := m["snapshots"].(map[string]any)
				for k := range snaps {
					delete(snaps, k)
					break
				}
			})
		}, bundle.DigestMismatch, map[string]any{"entry": "manifest.parts.snapshots"}, ""},
		{"two events swapped", func(t *testing.T) []byte {
			b := read(t, good)
			b.Events[3], b.Events[4] = b.Events[4], b.Events[3]
			return forge(t, b, nil)
		}, bundle.EventOrder, map[string]any{"index": engine.EventIndex(4), "found": engine.EventIndex(5)}, "events[3] is event 5"},
		{"an event changed, chain head kept", func(t *testing.T) []byte {
			b := read(t, good)
			head := b.Manifest.ChainHead
			evs := events(t, good)
			evs[0].Data = &event.SessionCreatedData{CreatedAt: "2001-01-01T00:00:00Z"}
			forge(t, b, evs)
			b.Manifest.ChainHead = head
			return forge(t, b, nil)
		}, bundle.ChainMismatch, map[string]any{"entry": "manifest.chainHead"}, "chain"},
		{"a count of events that is not the count", func(t *testing.T) []byte {
			b := read(t, good)
			b.Manifest.EventCount++
			return forge(t, b, nil)
		}, bundle.EventOrder, map[string]any{"expected": len(read(t, good).Events) + 1}, "counts"},
		{"schema version 3", func(t *testing.T) []byte {
			return generic(t, good, func(m map[string]any) { m["bundleSchemaVersion"] = 3 })
		}, bundle.UnsupportedVersion, map[string]any{"bundleSchemaVersion": "3", "supported": 2}, "versions 1 to 2"},
		{"a version 1 bundle with a redaction", func(t *testing.T) []byte {
			b := read(t, good)
			b.Version = 1
			return forge(t, b, nil)
		}, bundle.SchemaViolation, map[string]any{"violation": "/session/redaction"}, "version 2 added"},
		{"a redaction that is not one", func(t *testing.T) []byte {
			b := read(t, good)
			b.Session.Redaction = "most"
			return forge(t, b, nil)
		}, bundle.SchemaViolation, map[string]any{"violation": "/session/redaction"}, `"most"`},
		{"redacted, but redacting nothing", func(t *testing.T) []byte {
			b := read(t, good)
			b.Session.Redacted = true
			return forge(t, b, nil)
		}, bundle.SchemaViolation, map[string]any{"violation": "/session/redacted"}, "session.redacted is true"},
		{"all redacted, but only the notes are", func(t *testing.T) []byte {
			b := rebuild(t, good, bundle.ExportOptions{RedactNotes: true})
			b.Session.Redaction = bundle.RedactAll
			return forge(t, b, nil)
		}, bundle.NotRedacted, nil, "says everything is redacted, but event"},
		{"all redacted, but a snapshot holds context", func(t *testing.T) []byte {
			b := rebuild(t, good, bundle.ExportOptions{Redact: true})
			ref := firstSnapshot(b)
			raw := string(b.Snapshots[ref])
			if strings.Contains(raw, `"context"`) {
				t.Fatalf("the sample's snapshot has a context already: %s", raw)
			}
			b.Snapshots[ref] = json.RawMessage(strings.Replace(raw, `"position":`, `"context":{"planted":"a secret"},"position":`, 1))
			// The forger renames the snapshot to its new address.
			return forgeSnapshot(t, b, ref)
		}, bundle.NotRedacted, nil, "holds context values"},
		{"no schema version", func(t *testing.T) []byte {
			return generic(t, good, func(m map[string]any) { delete(m, "bundleSchemaVersion") })
		}, bundle.UnsupportedVersion, map[string]any{"bundleSchemaVersion": "missing"}, ""},
		{"another format", func(t *testing.T) []byte {
			return generic(t, good, func(m map[string]any) { m["format"] = "workrail.workflow" })
		}, bundle.NotABundle, map[string]any{"format": `"workrail.workflow"`}, "not a WorkRail session bundle"},
		{"an unknown top-level field", func(t *testing.T) []byte {
			return generic(t, good, func(m map[string]any) { m["signature"] = "x" })
		}, bundle.SchemaViolation, nil, "at /: additional properties 'signature' not allowed"},
		{"an unknown field in a node", func(t *testing.T) []byte {
			return generic(t, good, func(m map[string]any) {
				m["runs"].([]any)[0].(map[string]any)["nodes"].([]any)[1].(map[string]any)["color"] = "red"
			})
		}, bundle.SchemaViolation, nil, "at /runs/0/nodes/1: additional properties 'color' not allowed"},
		{"no events, manifest resealed", func(t *testing.T) []byte {
			b := read(t, good)
			return forge(t, b, []event.Event{})
		}, bundle.SchemaViolation, map[string]any{"violation": "/events"}, "no events"},
		{"a missing part", func(t *testing.T) []byte {
			return generic(t, good, func(m map[string]any) { delete(m, "gaps") })
		}, bundle.DigestMismatch, map[string]any{"entry": "manifest.parts.gaps"}, ""},
		{"an unknown field in an event", func(t *testing.T) []byte {
			b := read(t, good)
			b.Events[0] = json.RawMessage(strings.Replace(string(b.Events[0]), `"data":{`, `"data":{"extra":1,`, 1))
			return forge(t, b, nil)
		}, bundle.InvalidEvent, map[string]any{"index": engine.EventIndex(1)}, "event 1 (events[0])"},
		{"truncated", func(t *testing.T) []byte { return good[:len(good)/2] }, bundle.Malformed, nil, "truncated"},
		{"garbage", func(t *testing.T) []byte { return []byte("PK\x03\x04 not json") }, bundle.Malformed, map[string]any{"offset": int64(1)}, "not JSON"},
		{"gzip bytes", func(t *testing.T) []byte { return []byte{0x1f, 0x8b, 0x08, 0x00} }, bundle.Malformed, nil, "not JSON"},
		{"empty", func(t *testing.T) []byte { return nil }, bundle.Malformed, nil, "it is empty"},
		{"an array", func(t *testing.T) []byte { return []byte(`[1,2]`) }, bundle.Malformed, nil, "but not a JSON object"},
		{"a format that is not a string", func(t *testing.T) []byte {
			return generic(t, good, func(m map[string]any) { m["format"] = 1 })
		}, bundle.NotABundle, map[string]any{"format": "1"}, ""},
		{"data after the bundle", func(t *testing.T) []byte { return append(bytes.Clone(good), []byte(` {}`)...) }, bundle.Malformed, nil, "after"},
		{"a snapshot that is not its address", func(t *testing.T) []byte {
			b := read(t, good)
			ref := firstSnapshot(b)
			b.Snapshots[ref] = json.RawMessage(strings.Replace(string(b.Snapshots[ref]), `"v":1`, `"v":2`, 1))
			return forge(t, b, nil)
		}, bundle.ReferenceMismatch, map[string]any{"nodeId": "node_2"}, "does not match its address"},
		{"a snapshot no node names", func(t *testing.T) []byte {
			b := read(t, good)
			extra := json.RawMessage(`{"v":1}`)
			b.Snapshots[engine.SnapshotRef(engine.Sum(extra))] = extra
			return forge(t, b, nil)
		}, bundle.Unreferenced, nil, "which no node names"},
		{"a workflow no run is pinned to", func(t *testing.T) []byte {
			b := read(t, good)
			extra := json.RawMessage(`{}`)
			b.Workflows[engine.WorkflowHash(engine.Sum(extra))] = extra
			return forge(t, b, nil)
		}, bundle.Unreferenced, nil, "which no run is pinned to"},
		{"a missing workflow", func(t *testing.T) []byte {
			b := read(t, good)
			for h := range b.Workflows {
				delete(b.Workflows, h)
			}
			return forge(t, b, nil)
		}, bundle.MissingReference, map[string]any{"runId": "run_1"}, "is pinned to workflow"},
		{"nodes out of sequence", func(t *testing.T) []byte {
			evs := events(t, good)
			for i, e := range evs {
				if e.Kind == event.NodeCreated && e.Node == 2 {
					evs[i].Node = 7
					break
				}
			}
			return forge(t, read(t, good), evs)
		}, bundle.InvalidHistory, nil, "the next node is node_2"},
		{"a resolution of an event that is no gap", func(t *testing.T) []byte {
			evs := events(t, good)
			evs = append(evs, event.Event{ID: engine.NewEventID(1, engine.EventIndex(len(evs)+1)), Index: engine.EventIndex(len(evs) + 1),
				Session: 1, Kind: event.GapRecorded, Run: 1, Node: 1,
				Data: &event.GapRecordedData{Reason: event.GapAssumptionMade, Severity: event.SeverityWarning, Summary: "s", ResolvesGapID: "evt_1_1"}})
			return forge(t, read(t, good), evs)
		}, bundle.InvalidHistory, map[string]any{"eventId": "evt_1_1"}, "not an earlier gap_recorded"},
		{"a readable part that says otherwise", func(t *testing.T) []byte {
			b := read(t, good)
			b.Outputs[0].NotesMarkdown = "Something else."
			return forge(t, b, nil)
		}, bundle.DerivedMismatch, map[string]any{"part": "outputs"}, "says something other than its events do, first at outputs/0/notesMarkdown"},
		{"a preferred tip that is not", func(t *testing.T) []byte {
			b := read(t, good)
			b.Runs[0].PreferredTip = b.Runs[0].Root
			return forge(t, b, nil)
		}, bundle.DerivedMismatch, map[string]any{"part": "runs", "at": "runs/0/preferredTipNodeId"}, ""},
	}
	seen := map[bundle.Problem]bool{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := bundle.Read(tc.damage(t))
			var e *engine.Error
			if !errors.As(err, &e) || e.Code != engine.CodeBundleInvalid {
				t.Fatalf("Read = %v; want BUNDLE_INVALID", err)
			}
			if v != nil {
				t.Error("Read refused the bundle and returned it too")
			}
			if got := e.Details["problem"]; got != string(tc.problem) {
				t.Fatalf("problem %v; want %s (%s)", got, tc.problem, e.Message)
			}
			for k, v := range tc.details {
				if got := e.Details[k]; fmt.Sprint(got) != fmt.Sprint(v) {
					t.Errorf("details[%s] = %v; want %v (%s)", k, got, v, e.Message)
				}
			}
			if !strings.Contains(e.Message, tc.says) {
				t.Errorf("message %q does not say %q", e.Message, tc.says)
			}
			if e.Details["entry"] != nil && (e.Details["expected"] == nil || e.Details["actual"] == nil || e.Details["expected"] == e.Details["actual"]) {
				t.Errorf("a digest mismatch must name both digests: %v", e.Details)
			}
			seen[tc.problem] = true
		})
	}
	for _, p := range bundle.Problems() {
		if !seen[p] {
			t.Errorf("no damage reaches %s", p)
		}
	}
}

// What verifies reads back as what was written, byte for byte.
func TestEncodeReadRoundTrip(t *testing.T) {
	good := sample(t)
	again, err := bundle.Encode(read(t, good))
	if err != nil || !bytes.Equal(again, good) {
		t.Fatalf("re-encoding a read bundle changes it (%v)", err)
	}
	// Formatting is not content: an indented copy verifies too.
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, good, "", "  "); err != nil {
		t.Fatal(err)
	}
	if _, err := bundle.Read(pretty.Bytes()); err != nil {
		t.Fatalf("an indented bundle: %v", err)
	}
}

// A part that says more than its events is reported at its first
// difference in key order, keys only the bundle has included, the same
// on every read.
func TestDerivedMismatchIsReportedAtOnePlace(t *testing.T) {
	b := read(t, sample(t))
	b.Outputs[0].Supersedes, b.Outputs[0].SupersededBy = "evt_1_1", []engine.EventID{"evt_1_2"}
	forged := forge(t, b, nil)
	for range 10 {
		_, err := bundle.Read(forged)
		var e *engine.Error
		if !errors.As(err, &e) || e.Details["problem"] != string(bundle.DerivedMismatch) {
			t.Fatalf("Read = %v; want %s", err, bundle.DerivedMismatch)
		}
		if at := e.Details["at"]; at != "outputs/0/supersededBy" {
			t.Fatalf("the first difference is reported at %v; want outputs/0/supersededBy", at)
		}
	}
}

// A version 1 bundle, written before session.redaction, still reads:
// plain, and with its notes redacted.
func TestReadsVersion1(t *testing.T) {
	good := sample(t)
	for _, tc := range []struct {
		name string
		o    bundle.ExportOptions
		want bundle.Redaction
	}{
		{"plain", bundle.ExportOptions{}, bundle.RedactNone},
		{"notes redacted", bundle.ExportOptions{RedactNotes: true}, bundle.RedactNotes},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := rebuild(t, good, tc.o)
			b.Version, b.Session.Redaction = 1, ""
			v1 := forge(t, b, nil)
			if !bytes.Contains(v1, []byte(`"bundleSchemaVersion":1`)) || bytes.Contains(v1, []byte(`"redaction"`)) {
				t.Fatal("the forged bundle is not version 1")
			}
			got := read(t, v1)
			if got.Session.Level() != tc.want {
				t.Fatalf("a version 1 bundle reads as redaction %q; want %q", got.Session.Level(), tc.want)
			}
			if err := validate(t, compiledSchema(t), v1); err != nil {
				t.Fatalf("the schema refuses a version 1 bundle: %v", err)
			}
		})
	}
}
