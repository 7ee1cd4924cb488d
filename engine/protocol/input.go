package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/workflow"
)

// Boundary limits. Payloads beyond them are refused, never truncated.
const (
	MaxArgumentsBytes = 256 << 10 // a whole tool call's arguments
	MaxNotesBytes     = 32 << 10  // output.notesMarkdown
	MaxArtifacts      = 20        // output.artifacts entries
)

// Output is the one durable write path for notes, artifacts and gap
// resolutions.
type Output struct {
	NotesMarkdown string            `json:"notesMarkdown,omitempty"`
	Artifacts     []json.RawMessage `json:"artifacts,omitempty"`
	ResolvesGaps  []GapResolution   `json:"resolvesGaps,omitempty"`
}

// GapResolution resolves an open gap by linkage: it is recorded as a new
// gap record that names the old one.
type GapResolution struct {
	GapID   engine.EventID `json:"gapId"`
	Summary string         `json:"summary"`
}

// StartInput is start_workflow's arguments.
type StartInput struct {
	WorkflowID    engine.WorkflowID     `json:"workflowId"`
	Context       map[string]any        `json:"context,omitempty"`
	Preferences   *workflow.Preferences `json:"preferences,omitempty"`
	Mode          string                `json:"mode,omitempty"`
	WorkspacePath string                `json:"workspacePath,omitempty"`
}

// ContinueInput is continue_workflow's arguments.
type ContinueInput struct {
	StateToken    string                `json:"stateToken"`
	AckToken      string                `json:"ackToken,omitempty"`
	Context       map[string]any        `json:"context,omitempty"`
	Output        *Output               `json:"output,omitempty"`
	Preferences   *workflow.Preferences `json:"preferences,omitempty"`
	WorkspacePath string                `json:"workspacePath,omitempty"`
}

// misnomers maps keys agents are known to send by mistake to what they
// should send instead. A mapped key is still an error: WorkRail never
// accepts two spellings of one thing.
var misnomers = map[string]suggest{
	"variables":      {DidYouMean: "context"},
	"vars":           {DidYouMean: "context"},
	"inputs":         {DidYouMean: "context"},
	"completedSteps": {Note: "is not part of this contract: progress lives in the tokens; send stateToken and ackToken"},
	"workflow_id":    {DidYouMean: "workflowId"},
	"state_token":    {DidYouMean: "stateToken"},
	"ack_token":      {DidYouMean: "ackToken"},
	"notes":          {DidYouMean: "output.notesMarkdown"},
	"notesMarkdown":  {DidYouMean: "output.notesMarkdown"},
}

// suggest is how a wrong key should be corrected.
type suggest struct{ DidYouMean, Note string }

// ParseStart parses start_workflow arguments strictly.
func ParseStart(raw []byte) (StartInput, *engine.Error) {
	var in StartInput
	if err := parseArgs(raw, &in, []string{"workflowId", "context", "preferences", "mode", "workspacePath"}); err != nil {
		return in, err
	}
	if err := checkWorkspace(in.WorkspacePath); err != nil {
		return in, err
	}
	if in.WorkflowID == "" {
		return in, required("workflowId", "the id of a workflow from list_workflows, e.g. \"wr.hello\"")
	}
	return in, nil
}

// ParseContinue parses continue_workflow arguments strictly.
func ParseContinue(raw []byte) (ContinueInput, *engine.Error) {
	var in ContinueInput
	if err := parseArgs(raw, &in, []string{"stateToken", "ackToken", "context", "output", "preferences", "workspacePath"}); err != nil {
		return in, err
	}
	if err := checkWorkspace(in.WorkspacePath); err != nil {
		return in, err
	}
	if in.StateToken == "" {
		return in, required("stateToken", "the stateToken from the last WorkRail response")
	}
	if in.Output != nil {
		if len(in.Output.NotesMarkdown) > MaxNotesBytes {
			return in, engine.Errorf(engine.CodePayloadTooLarge,
				"output.notesMarkdown is %d bytes; the limit is %d. Send a shorter summary (1-10 lines).",
				len(in.Output.NotesMarkdown), MaxNotesBytes).With("pointer", "/output/notesMarkdown")
		}
		if len(in.Output.Artifacts) > MaxArtifacts {
			return in, engine.Errorf(engine.CodePayloadTooLarge,
				"output.artifacts has %d entries; the limit is %d.", len(in.Output.Artifacts), MaxArtifacts).
				With("pointer", "/output/artifacts")
		}
	}
	return in, nil
}

func required(key, what string) *engine.Error {
	return engine.Errorf(engine.CodeInvalidInput, "%s is required: %s.", key, what).With("pointer", "/"+key)
}

// checkWorkspace refuses a relative workspacePath: the daemon does not share
// the agent's working directory, so it would name some other folder.
func checkWorkspace(p string) *engine.Error {
	if p == "" || filepath.IsAbs(p) {
		return nil
	}
	return engine.Errorf(engine.CodeInvalidInput,
		"workspacePath must be an absolute path (the root folder of the project open in the IDE), not %q.", p).With("pointer", "/workspacePath")
}

// parseArgs checks size, unknown keys (top level and inside output) and
// that the values can be stored, then decodes strictly into v.
func parseArgs(raw []byte, v any, known []string) *engine.Error {
	if len(raw) > MaxArgumentsBytes {
		return engine.Errorf(engine.CodePayloadTooLarge, "the arguments are %d bytes; the limit is %d.", len(raw), MaxArgumentsBytes)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = []byte("{}")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return engine.Errorf(engine.CodeInvalidInput, "the arguments must be a JSON object: %v", err)
	}
	if e := unknownKeys(top, known, ""); e != nil {
		return e
	}
	if p, ok := top["preferences"]; ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(p, &m) == nil {
			if e := unknownKeys(m, []string{"autonomy", "riskPolicy"}, "preferences."); e != nil {
				return e
			}
		}
	}
	if out, ok := top["output"]; ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(out, &m) == nil {
			if e := unknownKeys(m, []string{"notesMarkdown", "artifacts", "resolvesGaps"}, "output."); e != nil {
				return e
			}
		}
	}
	if e := checkStorable(raw); e != nil {
		return e
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return typeError(err)
	}
	return nil
}

func unknownKeys(m map[string]json.RawMessage, known []string, prefix string) *engine.Error {
	var bad []string
	for k := range m {
		if !contains(known, k) {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	e := engine.Errorf(engine.CodeUnknownKey, "unknown argument %s: nothing was done. Allowed: %s.",
		quoteList(prefix, bad), quoteList(prefix, known))
	for _, k := range bad {
		s := suggestion(k, known)
		e.Suggestions = append(e.Suggestions, engine.Suggestion{Path: prefix + k, DidYouMean: s.DidYouMean, Note: s.Note})
	}
	return e
}

// suggestion says how to correct key, given the keys that are allowed.
func suggestion(key string, known []string) suggest {
	if s, ok := misnomers[key]; ok {
		return s
	}
	if c := engine.Closest(key, known); c != "" {
		return suggest{DidYouMean: c}
	}
	return suggest{Note: "is not an argument here: leave it out."}
}

func typeError(err error) *engine.Error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		ptr := "/" + strings.ReplaceAll(te.Field, ".", "/")
		return engine.Errorf(engine.CodeInvalidInput, "%s must be %s, not a JSON %s.", ptr, jsonType(te.Type.Kind().String()), te.Value).With("pointer", ptr)
	}
	return engine.Errorf(engine.CodeInvalidInput, "the arguments could not be read: %v", err)
}

func jsonType(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "map", "struct", "ptr":
		return "an object"
	case "slice":
		return "an array"
	default:
		return "a " + goKind
	}
}

func quoteList(prefix string, ks []string) string {
	q := make([]string, len(ks))
	for i, k := range ks {
		q[i] = fmt.Sprintf("%q", prefix+k)
	}
	return strings.Join(q, ", ")
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// ListInput is list_workflows' arguments.
type ListInput struct {
	WorkspacePath string `json:"workspacePath,omitempty"`
}

// ParseList parses list_workflows arguments strictly.
func ParseList(raw []byte) (ListInput, *engine.Error) {
	var in ListInput
	if e := parseArgs(raw, &in, []string{"workspacePath"}); e != nil {
		return in, e
	}
	return in, checkWorkspace(in.WorkspacePath)
}

// InspectMode is the closed set of inspect_workflow modes.
type InspectMode string

// Inspect modes.
const (
	InspectMetadata InspectMode = "metadata"
	InspectPreview  InspectMode = "preview"
)

// InspectInput is inspect_workflow's arguments.
type InspectInput struct {
	WorkflowID    engine.WorkflowID `json:"workflowId"`
	Mode          InspectMode       `json:"mode,omitempty"`
	WorkspacePath string            `json:"workspacePath,omitempty"`
}

// ParseInspect parses inspect_workflow arguments strictly; mode defaults
// to metadata.
func ParseInspect(raw []byte) (InspectInput, *engine.Error) {
	var in InspectInput
	if e := parseArgs(raw, &in, []string{"workflowId", "mode", "workspacePath"}); e != nil {
		return in, e
	}
	if e := checkWorkspace(in.WorkspacePath); e != nil {
		return in, e
	}
	if in.WorkflowID == "" {
		return in, required("workflowId", "the id of a workflow from list_workflows")
	}
	switch in.Mode {
	case "":
		in.Mode = InspectMetadata
	case InspectMetadata, InspectPreview:
	default:
		return in, engine.Errorf(engine.CodeInvalidInput, "mode must be \"metadata\" or \"preview\", not %q", in.Mode).With("pointer", "/mode")
	}
	return in, nil
}
