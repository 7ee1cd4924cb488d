package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/canon"
	"github.com/workrail/workrail/engine/workflow"
)

// Boundary limits. Payloads beyond them are refused, never truncated.
const (
	MaxArgumentsBytes = 256 << 10 // a whole tool call's arguments
	MaxNotesBytes     = 32 << 10  // output.notesMarkdown
	MaxArtifacts      = 20        // output.artifacts entries
)

// Output is the one durable write path for notes, artifacts and gap
// resolutions. SupersedesOutputID names an earlier output of the run that
// these notes and artifacts replace (the earlier one stays in the log).
type Output struct {
	NotesMarkdown      string            `json:"notesMarkdown,omitempty"`
	Artifacts          []json.RawMessage `json:"artifacts,omitempty"`
	ResolvesGaps       []GapResolution   `json:"resolvesGaps,omitempty"`
	SupersedesOutputID engine.EventID    `json:"supersedesOutputId,omitempty"`
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
	// StateToken, when set, is a run's stateToken: the new run starts in
	// that run's session instead of a new one.
	StateToken string `json:"stateToken,omitempty"`
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

// ParseStart parses start_workflow arguments strictly.
func ParseStart(raw []byte) (StartInput, *engine.Error) {
	var in StartInput
	if err := parseArgs(raw, &in, ToolStart); err != nil {
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
	if err := parseArgs(raw, &in, ToolContinue); err != nil {
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

// parseArgs checks, in this order: the size; that the arguments are one
// JSON object with no key sent twice; that every key names a field of v
// (a pointer to the tool's input struct), compared exactly, at every level
// decoded into a struct; that the values can be stored; and that every
// value has its field's JSON type. Arguments that pass are decoded into v
// in one pass that makes all these checks on the way (readExact), with no
// canonical form built: the event that records them is canonicalised
// when it is appended, where its digest needs it. Only arguments that
// fail one are read again, piece by piece, to say which check and where.
func parseArgs(raw []byte, v any, tool ToolName) *engine.Error {
	if len(raw) > MaxArgumentsBytes {
		return engine.Errorf(engine.CodePayloadTooLarge, "the arguments are %d bytes; the limit is %d.", len(raw), MaxArgumentsBytes)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = []byte("{}")
	}
	if readExact(raw, v) {
		return nil // the one parse: arguments as they should be sent
	}
	// Something in raw is refused (or is beyond what readExact reads):
	// find and name it, decoding from scratch.
	reflect.ValueOf(v).Elem().SetZero()
	return parseLong(raw, v, tool)
}

// parseLong is parseArgs the long way, one check after the other over
// raw, so that the first that fails is named with its pointer.
func parseLong(raw []byte, v any, tool ToolName) *engine.Error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return engine.Errorf(engine.CodeInvalidInput, "the arguments must be a JSON object: %v", err)
	}
	// The canonical form refuses duplicate keys among other things; only
	// then is it worth finding which key, to name it.
	_, canonErr := canon.JSON(json.RawMessage(raw))
	if canonErr != nil {
		if e := checkDuplicates(raw); e != nil {
			return e
		}
	}
	t := reflect.TypeOf(v).Elem()
	if e := (keyCheck{tool: tool, args: t}).object(top, t, ""); e != nil {
		return e
	}
	if e := storable(raw, canonErr); e != nil {
		return e
	}
	if err := decodeExact(raw, v); err != nil {
		// Name the first value of the wrong type by its pointer.
		if e := checkTypes(raw, t, ""); e != nil {
			return e
		}
		return engine.Errorf(engine.CodeInvalidInput, "the arguments could not be read: %v", err)
	}
	return nil
}

// decodeExact decodes the one JSON value in raw into v, keeping numbers as
// json.Number so none is rounded.
func decodeExact(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("json: data after the value")
	}
	return nil
}

// keyCheck refuses keys that name no field of a tool's arguments.
// encoding/json matches keys case-insensitively, so every object decoded
// into a struct is checked here, exactly, before decoding.
type keyCheck struct {
	tool ToolName
	args reflect.Type // the tool's input struct
}

// walk checks raw, a value of type t at prefix (a dotted path ending in
// "." or empty): an object's own keys first, then its fields in order,
// then array items in order. Values of the wrong type are left to
// checkTypes.
func (c keyCheck) walk(raw json.RawMessage, t reflect.Type, prefix string) *engine.Error {
	if t.Kind() == reflect.Slice {
		if !isStructSlice(t) {
			return nil
		}
		var items []json.RawMessage
		json.Unmarshal(raw, &items) // not an array: items stays empty
		for i, item := range items {
			if e := c.walk(item, t.Elem(), prefix+strconv.Itoa(i)+"."); e != nil {
				return e
			}
		}
		return nil
	}
	var m map[string]json.RawMessage
	if _, ok := structOf(t); !ok || json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return c.object(m, t, prefix)
}

// object is walk for an object already decoded into m.
func (c keyCheck) object(m map[string]json.RawMessage, t reflect.Type, prefix string) *engine.Error {
	st, ok := structOf(t)
	if !ok {
		return nil
	}
	fields := fieldsOf(st)
	if e := c.refuse(m, fields, prefix); e != nil {
		return e
	}
	for _, f := range fields {
		if sub, ok := m[f.name]; ok {
			if e := c.walk(sub, f.typ, prefix+f.name+"."); e != nil {
				return e
			}
		}
	}
	return nil
}

// refuse names every key of m that is not a field, sorted, with how to
// correct it.
func (c keyCheck) refuse(m map[string]json.RawMessage, fields []field, prefix string) *engine.Error {
	known := make([]string, len(fields))
	for i, f := range fields {
		known[i] = f.name
	}
	var bad []string
	for k := range m {
		if !slices.Contains(known, k) {
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
		e.Suggestions = append(e.Suggestions, suggestKey(c.tool, c.args, prefix, k, known))
	}
	return e
}

// checkTypes refuses the first value whose JSON type does not fit its
// field (fields in order, array items in order), named by JSON pointer.
func checkTypes(raw json.RawMessage, t reflect.Type, ptr string) *engine.Error {
	if st, ok := structOf(t); ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return mistyped(raw, t, ptr)
		}
		for _, f := range fieldsOf(st) {
			if sub, ok := m[f.name]; ok {
				if e := checkTypes(sub, f.typ, ptr+"/"+engine.PointerToken(f.name)); e != nil {
					return e
				}
			}
		}
		return nil
	}
	if t.Kind() == reflect.Slice && isStructSlice(t) {
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return mistyped(raw, t, ptr)
		}
		for i, item := range items {
			if e := checkTypes(item, t.Elem(), ptr+"/"+strconv.Itoa(i)); e != nil {
				return e
			}
		}
		return nil
	}
	if decodeExact(raw, reflect.New(t).Interface()) != nil {
		return mistyped(raw, t, ptr)
	}
	return nil
}

func mistyped(raw json.RawMessage, t reflect.Type, ptr string) *engine.Error {
	return engine.Errorf(engine.CodeInvalidInput, "%s must be %s, not a JSON %s.", ptr, jsonType(t), jsonKind(raw)).With("pointer", ptr)
}

// jsonType names the JSON type a Go type decodes from.
func jsonType(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Slice:
		return "an array"
	default:
		return "a " + t.Kind().String()
	}
}

// jsonKind names the type of the JSON value raw, as encoding/json does.
func jsonKind(raw json.RawMessage) string {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 {
		return "value"
	}
	switch b[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	default:
		return "number"
	}
}

// field is one JSON field of an input struct.
type field struct {
	name  string
	typ   reflect.Type
	index int // in the struct, for reflect.Value.Field
}

// fieldsOf lists the JSON fields of struct type t in declaration order.
// fieldsOf lists the JSON fields of struct type t (computed once per
// type: every call of a tool asks).
func fieldsOf(t reflect.Type) []field {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.([]field)
	}
	fs := structFields(t)
	fieldCache.Store(t, fs)
	return fs
}

var fieldCache sync.Map // reflect.Type → []field

func structFields(t reflect.Type) []field {
	var fs []field
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if !sf.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		fs = append(fs, field{name: name, typ: sf.Type, index: i})
	}
	return fs
}

func fieldNamed(t reflect.Type, name string) (field, bool) {
	for _, f := range fieldsOf(t) {
		if f.name == name {
			return f, true
		}
	}
	return field{}, false
}

// isStructSlice reports whether slice type t holds objects with fixed keys.
func isStructSlice(t reflect.Type) bool {
	_, ok := structOf(t.Elem())
	return ok
}

var unmarshaler = reflect.TypeFor[json.Unmarshaler]()

// structOf returns the struct type t decodes into, through one pointer,
// when its keys are field names (not a map, not custom-decoded).
func structOf(t reflect.Type) (reflect.Type, bool) {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || reflect.PointerTo(t).Implements(unmarshaler) {
		return nil, false
	}
	return t, true
}

func quoteList(prefix string, ks []string) string {
	q := make([]string, len(ks))
	for i, k := range ks {
		q[i] = fmt.Sprintf("%q", prefix+k)
	}
	return strings.Join(q, ", ")
}

// ListInput is list_workflows' arguments.
type ListInput struct {
	WorkspacePath string `json:"workspacePath,omitempty"`
}

// ParseList parses list_workflows arguments strictly.
func ParseList(raw []byte) (ListInput, *engine.Error) {
	var in ListInput
	if e := parseArgs(raw, &in, ToolList); e != nil {
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
	// StateToken, when sent, asks for the version that token's run is
	// pinned to, with a warning when the workflow has drifted since.
	StateToken string `json:"stateToken,omitempty"`
}

// ParseInspect parses inspect_workflow arguments strictly; mode defaults
// to metadata.
func ParseInspect(raw []byte) (InspectInput, *engine.Error) {
	var in InspectInput
	if e := parseArgs(raw, &in, ToolInspect); e != nil {
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
