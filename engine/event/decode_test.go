package event

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/canon"
	"github.com/workrail/workrail/engine/workflow"
)

// FuzzDecodeCanonical holds Decode's fast path to the strict one: what it
// accepts, decodeStrict accepts as the same event.
func FuzzDecodeCanonical(f *testing.F) {
	ref := engine.SnapshotRef(engine.Sum([]byte("snap")))
	for i, p := range []Payload{
		&SessionCreatedData{CreatedAt: "2026-01-02T03:04:05Z", WorkspacePath: "/w"},
		&SessionCreatedData{CreatedAt: "2026-01-02T03:04:05Z", ImportedFrom: &ImportSource{Session: 3, ChainHead: engine.Sum([]byte("head"))}},
		&RunStartedData{WorkflowID: "wr.hello", WorkflowHash: engine.WorkflowHash(ref)},
		&RunStartedData{WorkflowID: "wr.hello", WorkflowHash: engine.WorkflowHash(ref), RestartOf: 1},
		&RunStartedData{WorkflowID: "repo.hello", WorkflowHash: engine.WorkflowHash(ref), Repo: RepoPin{URL: "https://example.com/f.git", Commit: "0123456789abcdef0123456789abcdef01234567"}},
		&NodeCreatedData{NodeKind: NodeStep, Snapshot: ref},
		&EdgeCreatedData{EdgeKind: EdgeAckedStep, From: 1, To: 2},
		&NodeOutputAppendedData{StepID: "s", NotesMarkdown: "a <b> & \"c\"", Artifacts: []json.RawMessage{json.RawMessage(`{"kind":"x","n":1}`)}},
		&NodeOutputAppendedData{StepID: "s", NotesMarkdown: "## Done\n\t- \"a\" \\ <b> é \u2028 \x01\x7f"},
		&NodeOutputAppendedData{StepID: "s", Supersedes: "evt_7_3"},
		&PreferencesChangedData{Delta: workflow.Preferences{Autonomy: workflow.Guided}},
		&AdvanceRecordedData{KeyID: 1, Outcome: OutcomeBlocked, Blockers: []Blocker{{Code: BlockMissingRequiredOutput, Pointer: Pointer{Kind: PointOutputContract, ContractRef: "c"}, Message: "m"}}},
		&AdvanceRecordedData{KeyID: 1, Outcome: OutcomeAdvanced, ToNode: 3, Fork: &Fork{Siblings: []Branch{{Node: 2, Depth: 1}}, Downstream: Recap{Entries: []RecapEntry{{Node: 2, StepID: "s", NotesMarkdown: "n"}}}}},
	} {
		idx := engine.EventIndex(i + 1)
		b, err := Encode(Event{ID: engine.NewEventID(7, idx), Index: idx, Session: 7, Kind: p.Kind(), Run: 1, Node: 2, Data: p})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add([]byte(strings.Replace(string(b), `"kind":"`, `"Kind":"`, 1)))
		f.Add([]byte(strings.Replace(string(b), `"data":{`, `"data":{"kind":"session_created",`, 1)))
		stamped, err := Encode(Event{ID: engine.NewEventID(7, idx), Index: idx, Session: 7, Kind: p.Kind(), Run: 1, Node: 2, Data: p,
			AppendedAt: 1_790_000_000_123, Origin: OriginConsole})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(stamped)
		f.Add([]byte(strings.Replace(string(stamped), `"origin":"console"`, `"origin":"robot"`, 1)))
		f.Add([]byte(strings.Replace(string(stamped), `"appendedAt":1790000000123`, `"appendedAt":0`, 1)))
	}
	f.Add([]byte(`{"data":null,"eventId":"evt_1_1","eventIndex":1,"kind":"node_created","sessionId":"ses_1"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		for name, path := range map[string]func([]byte) (Event, bool){"decodeCanonical": decodeCanonical, "decodeFast": decodeFast} {
			fast, ok := path(b)
			if !ok {
				continue
			}
			strict, err := decodeStrict(b)
			if err != nil {
				t.Fatalf("%s accepted %s, which decodeStrict refuses: %v", name, b, err)
			}
			if !reflect.DeepEqual(fast, strict) {
				t.Fatalf("%s read %s as\n%#v\nnot\n%#v", name, b, fast, strict)
			}
		}
	})
}

// FuzzEncodeFast holds encodeFast to the general encoding, on the kinds
// it knows, with any field values.
func FuzzEncodeFast(f *testing.F) {
	f.Add(uint8(0), "step", "evt_7_3", "node_created", uint64(3), uint64(7), uint32(1), uint32(2), uint32(3), uint32(4))
	f.Add(uint8(1), "acked_step", "evt_7_3", "edge_created", uint64(3), uint64(7), uint32(0), uint32(0), uint32(0), uint32(0))
	f.Add(uint8(2), "advanced", "evt_1_1", "advance_recorded", uint64(1), uint64(1), uint32(1), uint32(0), uint32(5), uint32(1<<32-1))
	f.Add(uint8(2), "a<b>&\"\\\x7f\x01é", "e\u2028", "advance_recorded", uint64(1<<53+1), uint64(0), uint32(1), uint32(1), uint32(1), uint32(1))
	f.Add(uint8(6), "advanced", "evt_1_1", "advance_recorded", uint64(1), uint64(1), uint32(1), uint32(0), uint32(5), uint32(1<<32-1))
	f.Fuzz(func(t *testing.T, which uint8, name, id, kind string, index, session uint64, run, node, a, b uint32) {
		var p Payload
		switch which % 4 {
		case 0:
			p = &NodeCreatedData{NodeKind: NodeKind(name), Snapshot: engine.SnapshotRef(engine.Sum([]byte(id)))}
		case 1:
			p = &EdgeCreatedData{EdgeKind: EdgeKind(name), From: engine.NodeID(a), To: engine.NodeID(b)}
		case 2:
			p = &AdvanceRecordedData{Attempt: engine.Attempt(a), KeyID: b, Outcome: Outcome(name), ToNode: engine.NodeID(node)}
		case 3:
			p = &AdvanceRecordedData{Outcome: Outcome(name), Notices: []Notice{{Code: "c"}}}
		}
		e := Event{ID: engine.EventID(id), Index: engine.EventIndex(index), Session: engine.SessionID(session), Kind: Kind(kind), Run: engine.RunID(run), Node: engine.NodeID(node), Data: p}
		if which&4 != 0 { // stamped: a time and the one non-empty origin, or a name
			e.AppendedAt, e.Origin = Millis(index/3), Origin(name)
		}
		fast, ok := encodeFast(e)
		if !ok {
			return
		}
		want, err := canon.JSON(e)
		if err != nil {
			t.Fatalf("encodeFast encoded %#v, which canon.JSON refuses: %v", e, err)
		}
		if string(fast) != string(want) {
			t.Fatalf("encodeFast(%#v)\n got %s\nwant %s", e, fast, want)
		}
	})
}

// FuzzEncodeFastNotes holds encodeFast to the general encoding on
// outputs with any notes, step and superseded output, and on
// session_created with any time and workspace.
func FuzzEncodeFastNotes(f *testing.F) {
	f.Add("Read the three files.", "s1", "", uint64(4))
	f.Add("## Done\n\t- \"a\" \\ <b>&é\u2028\x00\x1f\x7f\b\f\r", "step-2", "evt_7_3", uint64(1<<40))
	f.Add("\xff\xfe", "s", "evt_1_1", uint64(0))
	f.Fuzz(func(t *testing.T, notes, step, supersedes string, at uint64) {
		e := Event{ID: "evt_7_9", Index: 9, Session: 7, Kind: NodeOutputAppended, Run: 1, Node: 2, AppendedAt: Millis(at),
			Data: &NodeOutputAppendedData{StepID: workflow.StepID(step), NotesMarkdown: notes, Supersedes: engine.EventID(supersedes)}}
		created := Event{ID: "evt_7_1", Index: 1, Session: 7, Kind: SessionCreated, AppendedAt: Millis(at),
			Data: &SessionCreatedData{CreatedAt: step, WorkspacePath: notes}}
		for _, e := range []Event{e, created} {
			fast, ok := encodeFast(e)
			if !ok {
				continue
			}
			want, err := canon.JSON(e)
			if err != nil {
				t.Fatalf("encodeFast encoded %#v, which canon.JSON refuses: %v", e, err)
			}
			if string(fast) != string(want) {
				t.Fatalf("encodeFast(%#v)\n got %s\nwant %s", e, fast, want)
			}
			if back, ok := decodeFast(fast); !ok || !reflect.DeepEqual(back, e) {
				t.Fatalf("decodeFast(%s) = %#v, %v", fast, back, ok)
			}
		}
	})
}

// TestFastPathsTakeARunsEvents checks the fast paths answer for the
// events a run is mostly made of, so they do not silently fall back.
func TestFastPathsTakeARunsEvents(t *testing.T) {
	ref := engine.SnapshotRef(engine.Sum([]byte("snap")))
	for _, e := range []Event{
		{Kind: NodeCreated, Run: 1, Node: 2, Data: &NodeCreatedData{NodeKind: NodeStep, Snapshot: ref}},
		{Kind: EdgeCreated, Run: 1, Data: &EdgeCreatedData{EdgeKind: EdgeAckedStep, From: 1, To: 2}},
		{Kind: AdvanceRecorded, Run: 1, Node: 1, Data: &AdvanceRecordedData{KeyID: 1, Outcome: OutcomeAdvanced, ToNode: 2}},
		{Kind: AdvanceRecorded, Run: 1, Node: 1, Data: &AdvanceRecordedData{Attempt: 2, KeyID: 1, Outcome: OutcomeBlocked}},
		{Kind: NodeCreated, Run: 1, Node: 2, AppendedAt: 1_790_000_000_123, Data: &NodeCreatedData{NodeKind: NodeStep, Snapshot: ref}},
		{Kind: EdgeCreated, Run: 1, AppendedAt: 1, Origin: OriginConsole, Data: &EdgeCreatedData{EdgeKind: EdgeForkedFromNonTip, From: 1, To: 2}},
		{Kind: SessionCreated, Data: &SessionCreatedData{CreatedAt: "2026-01-02T03:04:05Z", WorkspacePath: "/home/ana/Projets/été"}},
		{Kind: SessionCreated, AppendedAt: 9, Data: &SessionCreatedData{CreatedAt: "2026-01-02T03:04:05Z"}},
		{Kind: NodeOutputAppended, Run: 1, Node: 2, Data: &NodeOutputAppendedData{StepID: "s", NotesMarkdown: "Read the three files."}},
		{Kind: NodeOutputAppended, Run: 1, Node: 2, AppendedAt: 5, Data: &NodeOutputAppendedData{StepID: "s", Supersedes: "evt_3_4",
			NotesMarkdown: "## Found\n\n- `a.go`: \"x\" \\ <y> & é — 日本\t\r\x01"}},
	} {
		e.Index, e.Session = 12, 3
		e.ID = engine.NewEventID(e.Session, e.Index)
		b, ok := encodeFast(e)
		if !ok {
			t.Fatalf("encodeFast declined %#v", e)
		}
		got, ok := decodeFast(b)
		if !ok || !reflect.DeepEqual(got, e) {
			t.Fatalf("decodeFast(%s) = %#v, %v", b, got, ok)
		}
	}
}

// Every kind Kinds lists has its payload type, and the list names each
// kind once.
func TestKindsHavePayloads(t *testing.T) {
	seen := map[Kind]bool{}
	for _, k := range Kinds() {
		if p, ok := newPayload(k); !ok || p.Kind() != k {
			t.Errorf("kind %s has no payload of its own", k)
		}
		if seen[k] {
			t.Errorf("Kinds lists %s twice", k)
		}
		seen[k] = true
	}
}

// BenchmarkCodec measures reading and writing the events a run is mostly
// made of, an advance and an output with about 2 KB of notes: the fixed
// layouts (encodeFast, decodeFast), and the general path the library
// gives (canon.JSON; unmarshalling and re-encoding to check the bytes,
// as decodeCanonical does).
// The fixed layouts stay while they are the faster by a margin that
// shows on a rehydrate, which decodes and re-encodes every event.
func BenchmarkCodec(b *testing.B) {
	for _, e := range []Event{
		{Kind: AdvanceRecorded, Run: 1, Node: 1, Data: &AdvanceRecordedData{KeyID: 1, Outcome: OutcomeAdvanced, ToNode: 2}},
		{Kind: NodeOutputAppended, Run: 1, Node: 2, AppendedAt: 5, Data: &NodeOutputAppendedData{StepID: "s",
			NotesMarkdown: strings.Repeat("Read the files and note what \"each\" exports.\n", 45)}},
	} {
		e.Index, e.Session = 12, 3
		e.ID = engine.NewEventID(e.Session, e.Index)
		enc, _ := encodeFast(e)
		for _, c := range []struct {
			name string
			run  func() bool
		}{
			{"encode/fixed", func() bool { _, ok := encodeFast(e); return ok }},
			{"encode/general", func() bool { _, err := canon.JSON(e); return err == nil }},
			{"decode/fixed", func() bool { _, ok := decodeFast(enc); return ok }},
			{"decode/general", func() bool {
				p, _ := newPayload(e.Kind)
				x := Event{Data: p}
				if json.Unmarshal(enc, &x) != nil {
					return false
				}
				again, err := canon.JSON(x)
				return err == nil && string(again) == string(enc)
			}},
		} {
			b.Run(string(e.Kind)+"/"+c.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if !c.run() {
						b.Fatal("declined")
					}
				}
			})
		}
	}
}
