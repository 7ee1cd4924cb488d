package protocol_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/protocol"
)

// RenameKeys turns an UNKNOWN_KEY error back into the call the agent
// meant; the corrected call must then parse.
func TestRenameKeysFixesTheCall(t *testing.T) {
	tests := []struct {
		name string
		tool string
		raw  string
		want string
		then *wantErr // how the corrected call is refused; nil: accepted
	}{
		{"variables becomes context", "start", `{"workflowId":"w","variables":{"env":"dev"}}`,
			`{"context":{"env":"dev"},"workflowId":"w"}`, nil},
		{"several misnomers at once", "start", `{"workflow_id":"w","vars":{"a":1},"completedSteps":["x"],"zz":true}`,
			`{"context":{"a":1},"workflowId":"w"}`, nil},
		{"a near miss takes the right name", "inspect", `{"workflowId":"w","mod":"preview"}`,
			`{"mode":"preview","workflowId":"w"}`, nil},
		{"a misspelling never overwrites the right key", "start", `{"workflowId":"a","workflow_id":"b"}`,
			`{"workflowId":"a"}`, nil},
		{"notes move into a new output", "continue", `{"stateToken":"s","ackToken":"a","notes":"Did it."}`,
			`{"ackToken":"a","output":{"notesMarkdown":"Did it."},"stateToken":"s"}`, nil},
		{"notes join an existing output", "continue", `{"stateToken":"s","notesMarkdown":"Did it.","output":{"artifacts":[{"kind":"k"}]}}`,
			`{"output":{"artifacts":[{"kind":"k"}],"notesMarkdown":"Did it."},"stateToken":"s"}`, nil},
		{"notes never overwrite output.notesMarkdown", "continue", `{"stateToken":"s","notes":"old","output":{"notesMarkdown":"new"}}`,
			`{"output":{"notesMarkdown":"new"},"stateToken":"s"}`, nil},
		{"snake case tokens", "continue", `{"state_token":"s","ack_token":"a"}`,
			`{"ackToken":"a","stateToken":"s"}`, nil},
		{"completedSteps is dropped", "continue", `{"stateToken":"s","completedSteps":["a","b"]}`,
			`{"stateToken":"s"}`, nil},
		{"output.notes", "continue", `{"stateToken":"s","output":{"notes":"Did it.","artifacts":[]}}`,
			`{"output":{"artifacts":[],"notesMarkdown":"Did it."},"stateToken":"s"}`, nil},
		{"output.note", "continue", `{"stateToken":"s","output":{"note":"Did it."}}`,
			`{"output":{"notesMarkdown":"Did it."},"stateToken":"s"}`, nil},
		{"output junk is dropped", "continue", `{"stateToken":"s","output":{"zz":1,"notesMarkdown":"n"}}`,
			`{"output":{"notesMarkdown":"n"},"stateToken":"s"}`, nil},
		{"output.notes never overwrites notesMarkdown", "continue", `{"stateToken":"s","output":{"notes":"a","notesMarkdown":"b"}}`,
			`{"output":{"notesMarkdown":"b"},"stateToken":"s"}`, nil},
		{"list", "list", `{"workspace":"/p"}`, `{"workspacePath":"/p"}`, nil},
		{"a misspelt preference", "continue", `{"stateToken":"s","preferences":{"autonomyy":"guided","riskPolicy":"balanced"}}`,
			`{"preferences":{"autonomy":"guided","riskPolicy":"balanced"},"stateToken":"s"}`, nil},
		{"a preference in the wrong case", "start", `{"workflowId":"w","preferences":{"RiskPolicy":"balanced"}}`,
			`{"preferences":{"riskPolicy":"balanced"},"workflowId":"w"}`, nil},
		{"output.variables is dropped, not moved to context", "continue", `{"stateToken":"s","output":{"variables":{"a":1}}}`,
			`{"output":{},"stateToken":"s"}`, nil},
		{"notes are dropped at start", "start", `{"workflowId":"w","notes":"did x"}`, `{"workflowId":"w"}`, nil},
		{"context is dropped at list", "list", `{"vars":{"a":1}}`, `{}`, nil},
		{"a gap resolution's key", "continue", `{"stateToken":"s","output":{"resolvesGaps":[{"gapId":"a","summary":"s"},{"gapId":"b","sumary":"t"}]}}`,
			`{"output":{"resolvesGaps":[{"gapId":"a","summary":"s"},{"gapId":"b","summary":"t"}]},"stateToken":"s"}`, nil},
		{"a gap resolution's key in the wrong case", "continue", `{"stateToken":"s","output":{"resolvesGaps":[{"GAPID":"a","summary":"s"}]}}`,
			`{"output":{"resolvesGaps":[{"gapId":"a","summary":"s"}]},"stateToken":"s"}`, nil},
		{"a top-level key in the wrong case", "continue", `{"StateToken":"s"}`, `{"stateToken":"s"}`, nil},
		{"numbers keep their text", "start", `{"workflowId":"w","vars":{"id":9007199254740993,"x":1.50,"y":1e2}}`,
			`{"context":{"id":9007199254740993,"x":1.50,"y":1e2},"workflowId":"w"}`,
			&wantErr{Code: engine.CodeInvalidInput, Pointer: "/context/id",
				Message: "/context/id: the integer 9007199254740993 is larger than 2^53 and would be rounded; send it as a string."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parse := parsers()[tt.tool]
			e := parse([]byte(tt.raw))
			if e == nil || e.Code != engine.CodeUnknownKey {
				t.Fatalf("parse %s: %v; want UNKNOWN_KEY", tt.raw, e)
			}
			args, ok := protocol.RenameKeys([]byte(tt.raw), e)
			if !ok {
				t.Fatal("RenameKeys: not ok")
			}
			b, err := json.Marshal(args)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("got  %s\nwant %s", b, tt.want)
			}
			switch e := parse(b); {
			case tt.then != nil:
				checkErr(t, e, *tt.then)
			case e != nil:
				t.Errorf("the corrected call is refused: %v", e)
			}
		})
	}
}

func TestRenameKeysLeavesWhatItCannotFix(t *testing.T) {
	notes := &engine.Error{Code: engine.CodeUnknownKey, Suggestions: []engine.Suggestion{
		{Path: "output.notes", DidYouMean: "output.notesMarkdown"},
		{Path: "absent", DidYouMean: "context"},
	}}
	tests := []struct {
		name string
		raw  string
		e    *engine.Error
		want string // "" when not ok
	}{
		{"not JSON", `{"a":`, notes, ""},
		{"an array", `[{"notes":"x"}]`, notes, ""},
		{"a string", `"notes"`, notes, ""},
		{"null", `null`, notes, ""},
		{"no output to look in", `{"stateToken":"s"}`, notes, `{"stateToken":"s"}`},
		{"output is not an object", `{"stateToken":"s","output":"x"}`, notes, `{"output":"x","stateToken":"s"}`},
		{"no suggestions", `{"a":1}`, &engine.Error{Code: engine.CodeUnknownKey}, `{"a":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args, ok := protocol.RenameKeys([]byte(tt.raw), tt.e)
			if tt.want == "" {
				if ok || args != nil {
					t.Errorf("got %v, %v; want nil, false", args, ok)
				}
				return
			}
			if !ok {
				t.Fatal("not ok")
			}
			if b, _ := json.Marshal(args); string(b) != tt.want {
				t.Errorf("got  %s\nwant %s", b, tt.want)
			}
		})
	}
}

func TestWithFix(t *testing.T) {
	e := engine.Errorf(engine.CodeUnknownKey, "unknown argument %q: nothing was done.", "variables")
	e.Suggestions = []engine.Suggestion{{Path: "variables", DidYouMean: "context"}}
	base := protocol.NewError(e)
	fixed := protocol.WithFix(base, "start_workflow", map[string]any{"workflowId": "wr.hello", "context": map[string]any{"path": "src/a b.go"}})

	if base.NextCall != nil {
		t.Error("WithFix changed the result it was given")
	}
	if fixed.NextCall == nil {
		t.Fatal("no nextCall")
	}
	if fixed.NextCall.Tool != "start_workflow" {
		t.Errorf("tool %q", fixed.NextCall.Tool)
	}
	if got, want := mustCompact(t, fixed.NextCall.Arguments), `{"context":{"path":"src/a b.go"},"workflowId":"wr.hello"}`; got != want {
		t.Errorf("arguments %s; want %s", got, want)
	}
	wantTail := "\n## Next call\nTo fix it, call start_workflow with exactly these arguments:\n```json\n" +
		`{"context":{"path":"src/a b.go"},"workflowId":"wr.hello"}` + "\n```\n"
	if fixed.Text != base.Text+wantTail {
		t.Errorf("text\n%s\nwant the error text followed by\n%s", fixed.Text, wantTail)
	}
	if fixed.Error != e || fixed.Kind != protocol.KindError {
		t.Errorf("kind %q, error %v; want the same error", fixed.Kind, fixed.Error)
	}
	if _, err := protocol.ParseStart(fixed.NextCall.Arguments); err != nil {
		t.Errorf("the suggested call is refused: %v", err)
	}

	t.Run("the text shows <, > and & as typed", func(t *testing.T) {
		args := map[string]any{"workflowId": "wr.hello", "context": map[string]any{"ticket": "<ticket> & <more>"}}
		r := protocol.WithFix(base, "start_workflow", args)
		want := "```json\n" + `{"context":{"ticket":"<ticket> & <more>"},"workflowId":"wr.hello"}` + "\n```\n"
		if !strings.HasSuffix(r.Text, want) {
			t.Errorf("text\n%s\nwant it to end with\n%s", r.Text, want)
		}
		if string(r.NextCall.Arguments) != `{"context":{"ticket":"<ticket> & <more>"},"workflowId":"wr.hello"}` {
			t.Errorf("arguments %s; want them as typed", r.NextCall.Arguments)
		}
	})
	t.Run("unmarshalable arguments leave the result alone", func(t *testing.T) {
		r := protocol.WithFix(base, "start_workflow", map[string]any{"c": make(chan int)})
		if r.NextCall != nil || r.Text != base.Text {
			t.Errorf("got nextCall %v and text %q; want the result unchanged", r.NextCall, r.Text)
		}
	})
	t.Run("JSON has the call", func(t *testing.T) {
		b, err := json.Marshal(fixed)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"nextCall":{"tool":"start_workflow","arguments":{"context":{"path":"src/a b.go"},"workflowId":"wr.hello"}}`) {
			t.Errorf("JSON %s lacks the nextCall", b)
		}
		if b, _ := json.Marshal(base); strings.Contains(string(b), "nextCall") {
			t.Errorf("an error without a fix carries nextCall: %s", b)
		}
	})
}
