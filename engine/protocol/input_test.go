package protocol_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
)

const (
	startAllowed    = `Allowed: "workflowId", "context", "preferences", "mode", "workspacePath", "stateToken".`
	continueAllowed = `Allowed: "stateToken", "ackToken", "context", "output", "preferences", "workspacePath".`
	outputAllowed   = `Allowed: "output.notesMarkdown", "output.artifacts", "output.resolvesGaps", "output.supersedesOutputId".`
)

// padded returns prefix + n bytes of 'a' + suffix, with n chosen so the
// whole is exactly size bytes long.
func padded(t *testing.T, prefix, suffix string, size int) []byte {
	t.Helper()
	n := size - len(prefix) - len(suffix)
	if n < 0 {
		t.Fatalf("size %d is too small for the frame", size)
	}
	return []byte(prefix + strings.Repeat("a", n) + suffix)
}

func TestParseStartAccepts(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want protocol.StartInput
	}{
		{"id only", `{"workflowId":"wr.hello"}`, protocol.StartInput{WorkflowID: "wr.hello"}},
		{"every field", `{"workflowId":"wr.hello","context":{"env":"dev","n":3,"big":9007199254740992,"tags":["a"]},
			"preferences":{"autonomy":"full_auto_never_stop","riskPolicy":"aggressive"},"mode":"fast","workspacePath":"/home/u/project"}`,
			protocol.StartInput{
				WorkflowID:    "wr.hello",
				Context:       map[string]any{"env": "dev", "n": json.Number("3"), "big": json.Number("9007199254740992"), "tags": []any{"a"}},
				Preferences:   &workflow.Preferences{Autonomy: workflow.FullAutoNeverStop, RiskPolicy: workflow.Aggressive},
				Mode:          "fast",
				WorkspacePath: "/home/u/project",
			}},
		{"numbers keep their text", `{"workflowId":"w","context":{"a":1.50,"b":-1e308,"c":-9007199254740992}}`,
			protocol.StartInput{WorkflowID: "w", Context: map[string]any{"a": json.Number("1.50"), "b": json.Number("-1e308"), "c": json.Number("-9007199254740992")}}},
		{"paired surrogates", `{"workflowId":"w","context":{"smile":"\ud83d\ude00"}}`,
			protocol.StartInput{WorkflowID: "w", Context: map[string]any{"smile": "😀"}}},
		{"null values are absent", `{"workflowId":"w","context":null,"preferences":null}`, protocol.StartInput{WorkflowID: "w"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, e := protocol.ParseStart([]byte(tt.raw))
			if e != nil {
				t.Fatalf("ParseStart: %v", e)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestParseStartRefuses(t *testing.T) {
	missingID := wantErr{Code: engine.CodeInvalidInput, Pointer: "/workflowId",
		Message: `workflowId is required: the id of a workflow from list_workflows, e.g. "wr.hello".`}
	tests := []struct {
		name string
		raw  string
		want wantErr
	}{
		{"empty arguments", ``, missingID},
		{"blank arguments", " \n\t", missingID},
		{"null arguments", `null`, missingID},
		{"empty object", `{}`, missingID},
		{"empty id", `{"workflowId":""}`, missingID},
		{"not an object", `["wr.hello"]`, wantErr{Code: engine.CodeInvalidInput, Pointer: "-", Prefix: true,
			Message: "the arguments must be a JSON object: "}},
		{"a string", `"wr.hello"`, wantErr{Code: engine.CodeInvalidInput, Prefix: true, Message: "the arguments must be a JSON object: "}},
		{"malformed", `{"workflowId":`, wantErr{Code: engine.CodeInvalidInput, Prefix: true, Message: "the arguments must be a JSON object: "}},
		{"two values", `{} {}`, wantErr{Code: engine.CodeInvalidInput, Prefix: true, Message: "the arguments must be a JSON object: "}},
		{"variables is context", `{"workflowId":"w","variables":{"a":1}}`, wantErr{Code: engine.CodeUnknownKey, Pointer: "-",
			Message:     `unknown argument "variables": nothing was done. ` + startAllowed,
			Suggestions: []engine.Suggestion{{Path: "variables", DidYouMean: "context"}}}},
		{"several unknown keys, sorted", `{"workflowId":"w","zz":1,"workflowid":"x","vars":{},"inputs":{}}`, wantErr{Code: engine.CodeUnknownKey,
			Message: `unknown argument "inputs", "vars", "workflowid", "zz": nothing was done. ` + startAllowed,
			Suggestions: []engine.Suggestion{
				{Path: "inputs", DidYouMean: "context"},
				{Path: "vars", DidYouMean: "context"},
				{Path: "workflowid", DidYouMean: "workflowId"},
				{Path: "zz", Note: "is not an argument here: leave it out."},
			}}},
		{"snake case id", `{"workflow_id":"w"}`, wantErr{Code: engine.CodeUnknownKey,
			Suggestions: []engine.Suggestion{{Path: "workflow_id", DidYouMean: "workflowId"}}}},
		{"near miss", `{"workflowId":"w","contxt":{}}`, wantErr{Code: engine.CodeUnknownKey,
			Suggestions: []engine.Suggestion{{Path: "contxt", DidYouMean: "context"}}}},
		{"prefix of a key", `{"workflowId":"w","pref":{}}`, wantErr{Code: engine.CodeUnknownKey,
			Suggestions: []engine.Suggestion{{Path: "pref", DidYouMean: "preferences"}}}},
		{"keys are case sensitive", `{"WorkflowId":"w"}`, wantErr{Code: engine.CodeUnknownKey,
			Suggestions: []engine.Suggestion{{Path: "WorkflowId", DidYouMean: "workflowId"}}}},
		{"completedSteps", `{"workflowId":"w","completedSteps":["a"]}`, wantErr{Code: engine.CodeUnknownKey,
			Suggestions: []engine.Suggestion{{Path: "completedSteps", Note: "is not part of this contract: progress lives in the tokens; send stateToken and ackToken"}}}},
		{"output is not a start argument", `{"workflowId":"w","output":{}}`, wantErr{Code: engine.CodeUnknownKey,
			Message: `unknown argument "output": nothing was done. ` + startAllowed}},
		{"unknown key wins over a bad number", `{"workflowId":"w","vars":{"n":1e400}}`, wantErr{Code: engine.CodeUnknownKey}},
		{"unknown key wins over a relative path", `{"workflowId":"w","vars":{},"workspacePath":"rel"}`, wantErr{Code: engine.CodeUnknownKey}},
		{"unknown preference", `{"workflowId":"w","preferences":{"autonomy":"guided","colour":"red"}}`, wantErr{Code: engine.CodeUnknownKey, Pointer: "-",
			Message:     `unknown argument "preferences.colour": nothing was done. Allowed: "preferences.autonomy", "preferences.riskPolicy".`,
			Suggestions: []engine.Suggestion{{Path: "preferences.colour", Note: "is not an argument here: leave it out."}}}},
		{"a misspelt preference names its full path", `{"workflowId":"w","preferences":{"autonomyy":"guided"}}`, wantErr{Code: engine.CodeUnknownKey,
			Suggestions: []engine.Suggestion{{Path: "preferences.autonomyy", DidYouMean: "preferences.autonomy"}}}},
		{"preference keys are case sensitive", `{"workflowId":"w","preferences":{"Autonomy":"guided"}}`, wantErr{Code: engine.CodeUnknownKey,
			Suggestions: []engine.Suggestion{{Path: "preferences.Autonomy", DidYouMean: "preferences.autonomy"}}}},
		{"notes are not a start argument", `{"workflowId":"w","notes":"did x"}`, wantErr{Code: engine.CodeUnknownKey,
			Message: `unknown argument "notes": nothing was done. ` + startAllowed,
			Suggestions: []engine.Suggestion{{Path: "notes",
				Note: "is not an argument of start_workflow: leave it out; notes go with continue_workflow, once a step is done."}}}},
		{"notesMarkdown is not a start argument", `{"workflowId":"w","notesMarkdown":"did x"}`, wantErr{Code: engine.CodeUnknownKey,
			Suggestions: []engine.Suggestion{{Path: "notesMarkdown",
				Note: "is not an argument of start_workflow: leave it out; notes go with continue_workflow, once a step is done."}}}},
		{"an ackToken is not a start argument", `{"workflowId":"w","ack_token":"s"}`, wantErr{Code: engine.CodeUnknownKey,
			Suggestions: []engine.Suggestion{{Path: "ack_token",
				Note: "is not an argument of start_workflow: leave it out; ackToken goes with continue_workflow."}}}},
		{"state_token is stateToken", `{"workflowId":"w","state_token":"s"}`, wantErr{Code: engine.CodeUnknownKey,
			Suggestions: []engine.Suggestion{{Path: "state_token", DidYouMean: "stateToken"}}}},
		{"duplicate key", `{"workflowId":"a","workflowId":"b"}`, wantErr{Code: engine.CodeInvalidInput, Pointer: "/workflowId",
			Message: `/workflowId: the key "workflowId" is sent twice in the same object; send it once.`}},
		{"id is a number", `{"workflowId":5}`, wantErr{Code: engine.CodeInvalidInput, Pointer: "/workflowId",
			Message: "/workflowId must be a string, not a JSON number."}},
		{"stateToken is a number", `{"workflowId":"w","stateToken":5}`, wantErr{Code: engine.CodeInvalidInput, Pointer: "/stateToken",
			Message: "/stateToken must be a string, not a JSON number."}},
		{"mode is a bool", `{"workflowId":"w","mode":true}`, wantErr{Code: engine.CodeInvalidInput, Pointer: "/mode",
			Message: "/mode must be a string, not a JSON bool."}},
		{"context is an array", `{"workflowId":"w","context":[1]}`, wantErr{Code: engine.CodeInvalidInput, Pointer: "/context",
			Message: "/context must be an object, not a JSON array."}},
		{"preferences is a string", `{"workflowId":"w","preferences":"guided"}`, wantErr{Code: engine.CodeInvalidInput, Pointer: "/preferences",
			Message: "/preferences must be an object, not a JSON string."}},
		{"autonomy is a number", `{"workflowId":"w","preferences":{"autonomy":2}}`, wantErr{Code: engine.CodeInvalidInput, Pointer: "/preferences/autonomy",
			Message: "/preferences/autonomy must be a string, not a JSON number."}},
		{"relative workspace", `{"workflowId":"w","workspacePath":"src/app"}`, wantErr{Code: engine.CodeInvalidInput, Pointer: "/workspacePath",
			Message: `workspacePath must be an absolute path (the root folder of the project open in the IDE), not "src/app".`}},
		{"dot workspace", `{"workflowId":"w","workspacePath":"."}`, wantErr{Code: engine.CodeInvalidInput, Pointer: "/workspacePath"}},
		{"workspace is checked before the id", `{"workspacePath":"./x"}`, wantErr{Code: engine.CodeInvalidInput, Pointer: "/workspacePath"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, e := protocol.ParseStart([]byte(tt.raw))
			checkErr(t, e, tt.want)
		})
	}
}

// A misspelt preference is named with its full path and pointed at the
// preference it most likely means.
func TestParseStartSuggestsPreferenceKeys(t *testing.T) {
	_, e := protocol.ParseStart([]byte(`{"workflowId":"w","preferences":{"autonomyy":"guided","risk":"balanced"}}`))
	checkErr(t, e, wantErr{Code: engine.CodeUnknownKey,
		Message: `unknown argument "preferences.autonomyy", "preferences.risk": nothing was done. Allowed: "preferences.autonomy", "preferences.riskPolicy".`})
	if len(e.Suggestions) != 2 {
		t.Fatalf("suggestions %+v; want 2", e.Suggestions)
	}
	for i, want := range []struct{ path, means string }{{"preferences.autonomyy", "autonomy"}, {"preferences.risk", "riskPolicy"}} {
		s := e.Suggestions[i]
		if s.Path != want.path || !strings.HasSuffix(s.DidYouMean, want.means) {
			t.Errorf("suggestion %d is %+v; want path %q meaning %q", i, s, want.path, want.means)
		}
	}
}

func TestParseArgumentsSizeLimit(t *testing.T) {
	const prefix, suffix = `{"workflowId":"w","context":{"pad":"`, `"}}`
	t.Run("at the limit", func(t *testing.T) {
		raw := padded(t, prefix, suffix, protocol.MaxArgumentsBytes)
		in, e := protocol.ParseStart(raw)
		if e != nil {
			t.Fatalf("ParseStart of %d bytes: %v", len(raw), e)
		}
		if pad, _ := in.Context["pad"].(string); len(pad) != protocol.MaxArgumentsBytes-len(prefix)-len(suffix) {
			t.Errorf("pad has %d bytes", len(pad))
		}
	})
	t.Run("one byte over", func(t *testing.T) {
		raw := padded(t, prefix, suffix, protocol.MaxArgumentsBytes+1)
		_, e := protocol.ParseStart(raw)
		checkErr(t, e, wantErr{Code: engine.CodePayloadTooLarge, Pointer: "-",
			Message: fmt.Sprintf("the arguments are %d bytes; the limit is %d.", protocol.MaxArgumentsBytes+1, protocol.MaxArgumentsBytes)})
	})
	t.Run("size is checked before syntax", func(t *testing.T) {
		raw := []byte(strings.Repeat("[", protocol.MaxArgumentsBytes+1))
		for name, parse := range parsers() {
			t.Run(name, func(t *testing.T) {
				checkErr(t, parse(raw), wantErr{Code: engine.CodePayloadTooLarge})
			})
		}
	})
	if protocol.MaxArgumentsBytes != 256<<10 || protocol.MaxNotesBytes != 32<<10 || protocol.MaxArtifacts != 20 {
		t.Errorf("limits are %d, %d, %d; DESIGN §4 says 256 KiB, 32 KiB, 20",
			protocol.MaxArgumentsBytes, protocol.MaxNotesBytes, protocol.MaxArtifacts)
	}
}

// parsers wraps the four entry points so a check can run against each.
func parsers() map[string]func([]byte) *engine.Error {
	return map[string]func([]byte) *engine.Error{
		"start":         func(b []byte) *engine.Error { _, e := protocol.ParseStart(b); return e },
		"continue":      func(b []byte) *engine.Error { _, e := protocol.ParseContinue(b); return e },
		"list":          func(b []byte) *engine.Error { _, e := protocol.ParseList(b); return e },
		"inspect":       func(b []byte) *engine.Error { _, e := protocol.ParseInspect(b); return e },
		"checkpoint":    func(b []byte) *engine.Error { _, e := protocol.ParseCheckpoint(b); return e },
		"start_session": func(b []byte) *engine.Error { _, e := protocol.ParseStartSession(b); return e },
		"resume":        func(b []byte) *engine.Error { _, e := protocol.ParseResume(b); return e },
	}
}

func TestParseContinueAccepts(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want protocol.ContinueInput
	}{
		{"rehydrate", `{"stateToken":"st.v1.x"}`, protocol.ContinueInput{StateToken: "st.v1.x"}},
		{"every field", `{"stateToken":"st.v1.x","ackToken":"ack.v1.y","context":{"ok":true},
			"output":{"notesMarkdown":"Did it.","artifacts":[{"kind":"wr.user_response","response":"yes"}],"resolvesGaps":[{"gapId":"evt_1_9","summary":"asked"}]},
			"preferences":{"riskPolicy":"conservative"},"workspacePath":"/w"}`,
			protocol.ContinueInput{
				StateToken: "st.v1.x", AckToken: "ack.v1.y", Context: map[string]any{"ok": true},
				Output: &protocol.Output{
					NotesMarkdown: "Did it.",
					Artifacts:     []json.RawMessage{json.RawMessage(`{"kind":"wr.user_response","response":"yes"}`)},
					ResolvesGaps:  []protocol.GapResolution{{GapID: "evt_1_9", Summary: "asked"}},
				},
				Preferences:   &workflow.Preferences{RiskPolicy: workflow.Conservative},
				WorkspacePath: "/w",
			}},
		{"a correction", `{"stateToken":"s","ackToken":"a","output":{"notesMarkdown":"In English.","supersedesOutputId":"evt_1_8"}}`,
			protocol.ContinueInput{StateToken: "s", AckToken: "a", Output: &protocol.Output{NotesMarkdown: "In English.", SupersedesOutputID: "evt_1_8"}}},
		{"null output", `{"stateToken":"s","output":null}`, protocol.ContinueInput{StateToken: "s"}},
		{"empty output", `{"stateToken":"s","output":{}}`, protocol.ContinueInput{StateToken: "s", Output: &protocol.Output{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, e := protocol.ParseContinue([]byte(tt.raw))
			if e != nil {
				t.Fatalf("ParseContinue: %v", e)
			}
			if mustCompact(t, got) != mustCompact(t, tt.want) {
				t.Errorf("got  %s\nwant %s", mustCompact(t, got), mustCompact(t, tt.want))
			}
			if (got.Output == nil) != (tt.want.Output == nil) {
				t.Errorf("output %v; want %v", got.Output, tt.want.Output)
			}
		})
	}
}

func TestParseContinueRefuses(t *testing.T) {
	missing := wantErr{Code: engine.CodeInvalidInput, Pointer: "/stateToken",
		Message: "stateToken is required: the stateToken from the last WorkRail response."}
	notesOver := `{"stateToken":"s","output":{"notesMarkdown":"` + strings.Repeat("n", protocol.MaxNotesBytes+1) + `"}}`
	// 'é' is two bytes: the limit counts bytes, not characters.
	wideNotes := `{"stateToken":"s","output":{"notesMarkdown":"` + strings.Repeat("é", protocol.MaxNotesBytes/2) + `x"}}`
	tests := []struct {
		name string
		raw  string
		want wantErr
	}{
		{"no state token", `{"ackToken":"a"}`, missing},
		{"empty state token", `{"stateToken":""}`, missing},
		{"no arguments", ``, missing},
		{"state token is a number", `{"stateToken":12}`, wantErr{Code: engine.CodeInvalidInput, Pointer: "/stateToken",
			Message: "/stateToken must be a string, not a JSON number."}},
		{"variables", `{"stateToken":"s","variables":{}}`, wantErr{Code: engine.CodeUnknownKey, Pointer: "-",
			Message:     `unknown argument "variables": nothing was done. ` + continueAllowed,
			Suggestions: []engine.Suggestion{{Path: "variables", DidYouMean: "context"}}}},
		{"top-level notes", `{"stateToken":"s","notes":"did it"}`, wantErr{Code: engine.CodeUnknownKey,
			Suggestions: []engine.Suggestion{{Path: "notes", DidYouMean: "output.notesMarkdown"}}}},
		{"top-level notesMarkdown", `{"stateToken":"s","notesMarkdown":"did it"}`, wantErr{Code: engine.CodeUnknownKey,
			Suggestions: []engine.Suggestion{{Path: "notesMarkdown", DidYouMean: "output.notesMarkdown"}}}},
		{"snake case tokens", `{"state_token":"s","ack_token":"a"}`, wantErr{Code: engine.CodeUnknownKey,
			Message:     `unknown argument "ack_token", "state_token": nothing was done. ` + continueAllowed,
			Suggestions: []engine.Suggestion{{Path: "ack_token", DidYouMean: "ackToken"}, {Path: "state_token", DidYouMean: "stateToken"}}}},
		{"completedSteps", `{"stateToken":"s","completedSteps":[]}`, wantErr{Code: engine.CodeUnknownKey,
			Suggestions: []engine.Suggestion{{Path: "completedSteps", Note: "is not part of this contract: progress lives in the tokens; send stateToken and ackToken"}}}},
		{"output.notes", `{"stateToken":"s","output":{"notes":"did it"}}`, wantErr{Code: engine.CodeUnknownKey, Pointer: "-",
			Message:     `unknown argument "output.notes": nothing was done. ` + outputAllowed,
			Suggestions: []engine.Suggestion{{Path: "output.notes", DidYouMean: "output.notesMarkdown"}}}},
		{"output junk", `{"stateToken":"s","output":{"zz":1,"notesMarkdown":"x"}}`, wantErr{Code: engine.CodeUnknownKey,
			Message:     `unknown argument "output.zz": nothing was done. ` + outputAllowed,
			Suggestions: []engine.Suggestion{{Path: "output.zz", Note: "is not an argument here: leave it out."}}}},
		{"top level before output", `{"stateToken":"s","notes":"a","output":{"zz":1}}`, wantErr{Code: engine.CodeUnknownKey,
			Suggestions: []engine.Suggestion{{Path: "notes", DidYouMean: "output.notesMarkdown"}}}},
		{"misnomers are top-level only", `{"stateToken":"s","output":{"variables":{}}}`, wantErr{Code: engine.CodeUnknownKey,
			Message:     `unknown argument "output.variables": nothing was done. ` + outputAllowed,
			Suggestions: []engine.Suggestion{{Path: "output.variables", Note: "is not an argument here: leave it out."}}}},
		{"output.context is not context", `{"stateToken":"s","output":{"context":{},"inputs":{}}}`, wantErr{Code: engine.CodeUnknownKey,
			Suggestions: []engine.Suggestion{{Path: "output.context", Note: "is not an argument here: leave it out."},
				{Path: "output.inputs", Note: "is not an argument here: leave it out."}}}},
		{"a near miss in output names its full path", `{"stateToken":"s","output":{"note":"x"}}`, wantErr{Code: engine.CodeUnknownKey,
			Suggestions: []engine.Suggestion{{Path: "output.note", DidYouMean: "output.notesMarkdown"}}}},
		{"workflow_id is not a continue argument", `{"stateToken":"s","workflow_id":"w"}`, wantErr{Code: engine.CodeUnknownKey,
			Suggestions: []engine.Suggestion{{Path: "workflow_id",
				Note: "is not an argument of continue_workflow: leave it out; workflowId goes with start_workflow and inspect_workflow."}}}},
		{"keys are case sensitive", `{"StateToken":"s"}`, wantErr{Code: engine.CodeUnknownKey,
			Suggestions: []engine.Suggestion{{Path: "StateToken", DidYouMean: "stateToken"}}}},
		{"output keys are case sensitive", `{"stateToken":"s","output":{"NotesMarkdown":"x"}}`, wantErr{Code: engine.CodeUnknownKey,
			Suggestions: []engine.Suggestion{{Path: "output.NotesMarkdown", DidYouMean: "output.notesMarkdown"}}}},
		{"unknown key in a gap resolution", `{"stateToken":"s","output":{"resolvesGaps":[{"gapId":"evt_1_9","sumary":"asked"}]}}`, wantErr{Code: engine.CodeUnknownKey, Pointer: "-",
			Message:     `unknown argument "output.resolvesGaps.0.sumary": nothing was done. Allowed: "output.resolvesGaps.0.gapId", "output.resolvesGaps.0.summary".`,
			Suggestions: []engine.Suggestion{{Path: "output.resolvesGaps.0.sumary", DidYouMean: "output.resolvesGaps.0.summary"}}}},
		{"gap resolution keys are case sensitive", `{"stateToken":"s","output":{"resolvesGaps":[{"gapId":"a","summary":"s"},{"GAPID":"b","summary":"s"}]}}`, wantErr{Code: engine.CodeUnknownKey,
			Suggestions: []engine.Suggestion{{Path: "output.resolvesGaps.1.GAPID", DidYouMean: "output.resolvesGaps.1.gapId"}}}},
		{"junk in a gap resolution", `{"stateToken":"s","output":{"resolvesGaps":[{"gapId":"a","summary":"s","why":1}]}}`, wantErr{Code: engine.CodeUnknownKey,
			Suggestions: []engine.Suggestion{{Path: "output.resolvesGaps.0.why", Note: "is not an argument here: leave it out."}}}},
		{"gap id is a number", `{"stateToken":"s","output":{"resolvesGaps":[{"gapId":1}]}}`, wantErr{Code: engine.CodeInvalidInput, Pointer: "/output/resolvesGaps/0/gapId",
			Message: "/output/resolvesGaps/0/gapId must be a string, not a JSON number."}},
		{"second gap's summary is an object", `{"stateToken":"s","output":{"resolvesGaps":[{"gapId":"a","summary":"s"},{"gapId":"b","summary":{}}]}}`, wantErr{Code: engine.CodeInvalidInput,
			Pointer: "/output/resolvesGaps/1/summary", Message: "/output/resolvesGaps/1/summary must be a string, not a JSON object."}},
		{"a gap resolution is a string", `{"stateToken":"s","output":{"resolvesGaps":["evt_1"]}}`, wantErr{Code: engine.CodeInvalidInput, Pointer: "/output/resolvesGaps/0",
			Message: "/output/resolvesGaps/0 must be an object, not a JSON string."}},
		{"the output replaced is named by its id, a string", `{"stateToken":"s","output":{"notesMarkdown":"x","supersedesOutputId":8}}`, wantErr{Code: engine.CodeInvalidInput,
			Pointer: "/output/supersedesOutputId", Message: "/output/supersedesOutputId must be a string, not a JSON number."}},
		{"supersedes near misses", `{"stateToken":"s","output":{"notesMarkdown":"x","supersedesOutputID":"evt_1_8"}}`, wantErr{Code: engine.CodeUnknownKey,
			Suggestions: []engine.Suggestion{{Path: "output.supersedesOutputID", DidYouMean: "output.supersedesOutputId"}}}},
		{"duplicate key", `{"stateToken":"a","stateToken":"b"}`, wantErr{Code: engine.CodeInvalidInput, Pointer: "/stateToken",
			Message: `/stateToken: the key "stateToken" is sent twice in the same object; send it once.`}},
		{"duplicate key before an unknown key", `{"stateToken":"s","vars":{"a":1},"vars":{"b":2}}`, wantErr{Code: engine.CodeInvalidInput, Pointer: "/vars"}},
		{"output is a string", `{"stateToken":"s","output":"did it"}`, wantErr{Code: engine.CodeInvalidInput, Pointer: "/output",
			Message: "/output must be an object, not a JSON string."}},
		{"notes is a bool", `{"stateToken":"s","output":{"notesMarkdown":true}}`, wantErr{Code: engine.CodeInvalidInput, Pointer: "/output/notesMarkdown",
			Message: "/output/notesMarkdown must be a string, not a JSON bool."}},
		{"artifacts is a string", `{"stateToken":"s","output":{"artifacts":"x"}}`, wantErr{Code: engine.CodeInvalidInput, Pointer: "/output/artifacts",
			Message: "/output/artifacts must be an array, not a JSON string."}},
		{"resolvesGaps is an object", `{"stateToken":"s","output":{"resolvesGaps":{}}}`, wantErr{Code: engine.CodeInvalidInput, Pointer: "/output/resolvesGaps",
			Message: "/output/resolvesGaps must be an array, not a JSON object."}},
		{"notes over the limit", notesOver, wantErr{Code: engine.CodePayloadTooLarge, Pointer: "/output/notesMarkdown",
			Message: fmt.Sprintf("output.notesMarkdown is %d bytes; the limit is %d. Send a shorter summary (1-10 lines).", protocol.MaxNotesBytes+1, protocol.MaxNotesBytes)}},
		{"notes limit counts bytes", wideNotes, wantErr{Code: engine.CodePayloadTooLarge, Pointer: "/output/notesMarkdown"}},
		{"too many artifacts", artifactsArgs(protocol.MaxArtifacts + 1), wantErr{Code: engine.CodePayloadTooLarge, Pointer: "/output/artifacts",
			Message: fmt.Sprintf("output.artifacts has %d entries; the limit is %d.", protocol.MaxArtifacts+1, protocol.MaxArtifacts)}},
		{"relative workspace", `{"stateToken":"s","workspacePath":"proj"}`, wantErr{Code: engine.CodeInvalidInput, Pointer: "/workspacePath",
			Message: `workspacePath must be an absolute path (the root folder of the project open in the IDE), not "proj".`}},
		{"workspace before state token", `{"workspacePath":"proj"}`, wantErr{Code: engine.CodeInvalidInput, Pointer: "/workspacePath"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, e := protocol.ParseContinue([]byte(tt.raw))
			checkErr(t, e, tt.want)
		})
	}
}

func artifactsArgs(n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf(`{"kind":"k%d"}`, i)
	}
	return `{"stateToken":"s","output":{"artifacts":[` + strings.Join(items, ",") + `]}}`
}

func TestParseContinueAtTheLimits(t *testing.T) {
	tests := []struct {
		name      string
		raw       string
		notes     int
		artifacts int
	}{
		{"notes at the limit", `{"stateToken":"s","output":{"notesMarkdown":"` + strings.Repeat("n", protocol.MaxNotesBytes) + `"}}`, protocol.MaxNotesBytes, 0},
		{"artifacts at the limit", artifactsArgs(protocol.MaxArtifacts), 0, protocol.MaxArtifacts},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, e := protocol.ParseContinue([]byte(tt.raw))
			if e != nil {
				t.Fatal(e)
			}
			if len(in.Output.NotesMarkdown) != tt.notes || len(in.Output.Artifacts) != tt.artifacts {
				t.Errorf("notes %d bytes, %d artifacts; want %d, %d", len(in.Output.NotesMarkdown), len(in.Output.Artifacts), tt.notes, tt.artifacts)
			}
		})
	}
}

func TestParseList(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want protocol.ListInput
		err  *wantErr
	}{
		{"nothing", ``, protocol.ListInput{}, nil},
		{"empty object", `{}`, protocol.ListInput{}, nil},
		{"absolute workspace", `{"workspacePath":"/srv/app"}`, protocol.ListInput{WorkspacePath: "/srv/app"}, nil},
		{"relative workspace", `{"workspacePath":"app"}`, protocol.ListInput{}, &wantErr{Code: engine.CodeInvalidInput, Pointer: "/workspacePath",
			Message: `workspacePath must be an absolute path (the root folder of the project open in the IDE), not "app".`}},
		{"variables do not fit list", `{"variables":{}}`, protocol.ListInput{}, &wantErr{Code: engine.CodeUnknownKey,
			Suggestions: []engine.Suggestion{{Path: "variables",
				Note: "is not an argument of list_workflows: leave it out; context goes with start_workflow and continue_workflow."}}}},
		{"misspelt workspace", `{"workspace":"/srv/app"}`, protocol.ListInput{}, &wantErr{Code: engine.CodeUnknownKey,
			Message:     `unknown argument "workspace": nothing was done. Allowed: "workspacePath".`,
			Suggestions: []engine.Suggestion{{Path: "workspace", DidYouMean: "workspacePath"}}}},
		{"a filter it does not take", `{"query":"review"}`, protocol.ListInput{}, &wantErr{Code: engine.CodeUnknownKey,
			Suggestions: []engine.Suggestion{{Path: "query", Note: "is not an argument here: leave it out."}}}},
		{"workspace is a number", `{"workspacePath":1}`, protocol.ListInput{}, &wantErr{Code: engine.CodeInvalidInput, Pointer: "/workspacePath",
			Message: "/workspacePath must be a string, not a JSON number."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, e := protocol.ParseList([]byte(tt.raw))
			if tt.err != nil {
				checkErr(t, e, *tt.err)
				return
			}
			if e != nil {
				t.Fatalf("ParseList: %v", e)
			}
			if got != tt.want {
				t.Errorf("got %+v; want %+v", got, tt.want)
			}
		})
	}
}

func TestParseInspect(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want protocol.InspectInput
		err  *wantErr
	}{
		{"mode defaults to metadata", `{"workflowId":"wr.hello"}`, protocol.InspectInput{WorkflowID: "wr.hello", Mode: protocol.InspectMetadata}, nil},
		{"metadata", `{"workflowId":"wr.hello","mode":"metadata"}`, protocol.InspectInput{WorkflowID: "wr.hello", Mode: "metadata"}, nil},
		{"preview in a workspace", `{"workflowId":"wr.hello","mode":"preview","workspacePath":"/p"}`,
			protocol.InspectInput{WorkflowID: "wr.hello", Mode: "preview", WorkspacePath: "/p"}, nil},
		{"unknown mode", `{"workflowId":"wr.hello","mode":"full"}`, protocol.InspectInput{}, &wantErr{Code: engine.CodeInvalidInput, Pointer: "/mode",
			Message: `mode must be "metadata" or "preview", not "full"`}},
		{"modes are case sensitive", `{"workflowId":"wr.hello","mode":"Preview"}`, protocol.InspectInput{}, &wantErr{Code: engine.CodeInvalidInput, Pointer: "/mode"}},
		{"mode is a number", `{"workflowId":"wr.hello","mode":1}`, protocol.InspectInput{}, &wantErr{Code: engine.CodeInvalidInput, Pointer: "/mode",
			Message: "/mode must be a string, not a JSON number."}},
		{"no id", `{"mode":"preview"}`, protocol.InspectInput{}, &wantErr{Code: engine.CodeInvalidInput, Pointer: "/workflowId",
			Message: "workflowId is required: the id of a workflow from list_workflows."}},
		{"near miss", `{"workflowId":"w","mod":"preview"}`, protocol.InspectInput{}, &wantErr{Code: engine.CodeUnknownKey,
			Message:     `unknown argument "mod": nothing was done. Allowed: "workflowId", "mode", "workspacePath", "stateToken".`,
			Suggestions: []engine.Suggestion{{Path: "mod", DidYouMean: "mode"}}}},
		{"relative workspace", `{"workflowId":"w","workspacePath":"p"}`, protocol.InspectInput{}, &wantErr{Code: engine.CodeInvalidInput, Pointer: "/workspacePath"}},
		{"relative workspace before mode", `{"workflowId":"w","mode":"x","workspacePath":"p"}`, protocol.InspectInput{}, &wantErr{Code: engine.CodeInvalidInput, Pointer: "/workspacePath"}},
		{"bad number", `{"workflowId":"w","workspacePath":1e999}`, protocol.InspectInput{}, &wantErr{Code: engine.CodeInvalidInput, Pointer: "/workspacePath",
			Message: "/workspacePath: 1e999 is outside the range of an IEEE-754 double; send it as a string."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, e := protocol.ParseInspect([]byte(tt.raw))
			if tt.err != nil {
				checkErr(t, e, *tt.err)
				return
			}
			if e != nil {
				t.Fatalf("ParseInspect: %v", e)
			}
			if got != tt.want {
				t.Errorf("got %+v; want %+v", got, tt.want)
			}
		})
	}
}

// checkpoint_workflow's output takes the output its notes replace, and
// nothing else beside them.
func TestParseCheckpointOutput(t *testing.T) {
	got, e := protocol.ParseCheckpoint([]byte(`{"stateToken":"s","checkpointToken":"c","output":{"notesMarkdown":"Fixed.","supersedesOutputId":"evt_2_9"}}`))
	if e != nil || *got.Output != (protocol.CheckpointOutput{NotesMarkdown: "Fixed.", SupersedesOutputID: "evt_2_9"}) {
		t.Fatalf("ParseCheckpoint = %+v, %v", got.Output, e)
	}
	_, e = protocol.ParseCheckpoint([]byte(`{"stateToken":"s","checkpointToken":"c","output":{"notesMarkdown":"Fixed.","supersedes":"evt_2_9"}}`))
	if e == nil || e.Code != engine.CodeUnknownKey || !strings.Contains(e.Message, `Allowed: "output.notesMarkdown", "output.supersedesOutputId".`) {
		t.Fatalf("an unknown key: %v", e)
	}
}
