package project_test

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/run"
)

// v1JSON is a document as runs/{id}.json wrote it with encoding/json.
func v1JSON(t *testing.T, d *project.Document) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestWriteJSONIsEncodingJSON holds WriteJSON to encoding/json's bytes
// over documents with every field set and unset and with the strings the
// two escape differently unless told: HTML, control characters, U+2028
// and U+2029, invalid UTF-8. TestProjectionOfGeneratedRuns does the same
// over generated runs.
func TestWriteJSONIsEncodingJSON(t *testing.T) {
	tricky := []string{"", "plain", "<b>&amp;</b>", "tab\tnew\nline\r\b\f\x00\x1f\x7f", "\u2028\u2029", "é ✓ 😀", "bad \xff utf-8", `quote " back \ slash`}
	docs := []*project.Document{{}, {OpenGaps: []project.DocGap{}, Branches: []project.DocBranch{}, Rows: []project.DocRow{}}}
	for _, s := range tricky {
		docs = append(docs, fullDocument(s))
	}
	for i, d := range docs {
		var got bytes.Buffer
		if err := d.WriteJSON(&got); err != nil {
			t.Fatal(err)
		}
		if want := v1JSON(t, d); !bytes.Equal(got.Bytes(), want) {
			t.Errorf("document %d:\n got %s\nwant %s", i, got.Bytes(), want)
		}
	}
}

// fullDocument is a document with every field set, s in each string
// field a workflow or an agent fills.
func fullDocument(s string) *project.Document {
	return &project.Document{SessionID: 7, RunID: 2, WorkflowID: engine.WorkflowID(s), RestartOf: 1, Verdict: project.VerdictBlocked, Tip: 9,
		OpenGaps:  []project.DocGap{{GapID: "evt_7_3", Severity: event.GapSeverity(s), Reason: "r", StepID: "s", Row: 1, NodeID: 2, Branch: "B"}, {GapID: "evt_7_4"}},
		StepsDone: 3, Progress: project.Progress{Step: 2, Steps: 5, Loops: []run.LoopPlace{{LoopID: "l", Title: s, Iteration: 1, MaxIterations: 3}}},
		Branches: []project.DocBranch{{Letter: "A", State: "complete", Origin: "first", Nodes: []engine.NodeID{1, 2}}, {Letter: "B", Nodes: []engine.NodeID{}, From: 1, End: 3, Changed: []string{s, "k"}}},
		Rows: []project.DocRow{{NodeID: 1, StepID: "s1", Title: s, Branch: "A", BlockedAttempts: 2, Done: true, Loop: &project.DocLoop{LoopID: "l", Iteration: 2},
			Outcomes: project.DocOutcomes{OpenGaps: 1, Refused: 2}, Checkpoints: []engine.NodeID{4}, Next: 5, Forks: []engine.NodeID{6},
			Attempts: []project.DocAttempt{
				{NodeID: 1, Attempt: 2, Outcome: event.OutcomeBlocked, Console: true, Blocker: []event.BlockerCode{"b"}, Refused: []project.Refusal{{Code: "c", Why: s}},
					NotRecorded: []project.CarriedGap{{Severity: s, Summary: s}, {Summary: "x"}}, Gaps: []engine.EventID{"evt_7_3"}},
				{NodeID: 1, Attempt: 3, Outcome: event.OutcomeAdvanced, To: 5, Blocker: []event.BlockerCode{}, Refused: []project.Refusal{}, NotRecorded: []project.CarriedGap{}, Gaps: []engine.EventID{}},
			}},
			{NodeID: 5, Forks: []engine.NodeID{}}}}
}

// FuzzWriteJSON holds WriteJSON's strings to encoding/json's.
func FuzzWriteJSON(f *testing.F) {
	for _, s := range []string{"", "<&>", "\x00\x1f\x7f\b\f", "\u2028", "\xff\xfe", "é😀", `"\\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d := fullDocument(s)
		var got bytes.Buffer
		if err := d.WriteJSON(&got); err != nil {
			t.Fatal(err)
		}
		if want := v1JSON(t, d); !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("%q:\n got %s\nwant %s", s, got.Bytes(), want)
		}
	})
}

// BenchmarkDocumentJSON writes a 1,000-row document (runs/{id}.json of a
// long run) with encoding/json and with WriteJSON.
func BenchmarkDocumentJSON(b *testing.B) {
	d := &project.Document{SessionID: 1, RunID: 1, WorkflowID: "wr.long", Verdict: project.VerdictInProgress, OpenGaps: []project.DocGap{},
		Progress: project.Progress{Loops: []run.LoopPlace{}}, Branches: []project.DocBranch{{Letter: "A", Nodes: []engine.NodeID{}}}}
	for i := range 1000 {
		n := engine.NodeID(i + 1)
		d.Branches[0].Nodes = append(d.Branches[0].Nodes, n)
		d.Rows = append(d.Rows, project.DocRow{NodeID: n, StepID: "step-0042", Title: "Step number 42 of the long workflow", Branch: "A", Done: true,
			Checkpoints: []engine.NodeID{}, Forks: []engine.NodeID{}, Next: n + 1,
			Attempts: []project.DocAttempt{{NodeID: n, Attempt: 1, Outcome: event.OutcomeAdvanced, To: n + 1, Blocker: []event.BlockerCode{},
				Refused: []project.Refusal{}, NotRecorded: []project.CarriedGap{}, Gaps: []engine.EventID{}}}})
	}
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			enc := json.NewEncoder(io.Discard)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(d); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("WriteJSON", func(b *testing.B) {
		for b.Loop() {
			if err := d.WriteJSON(io.Discard); err != nil {
				b.Fatal(err)
			}
		}
	})
}
