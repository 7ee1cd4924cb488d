package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/workrail/workrail/engine"
)

// Call is a tool call WorkRail suggests: the exact arguments to send.
type Call struct {
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
}

// WithFix attaches to an error result the call that fixes it, so an agent
// that only copies nextCall still makes progress.
func WithFix(r ErrorResult, tool string, args any) ErrorResult {
	b, err := plainJSON(args)
	if err != nil {
		return r
	}
	r.NextCall = &Call{Tool: tool, Arguments: b}
	r.Text += "\n## Next call\nTo fix it, call " + tool + " with exactly these arguments:\n```json\n" + string(b) + "\n```\n"
	return r
}

// plainJSON marshals v compactly without HTML escapes: the agent must see
// "<name>" as typed, not "\u003cname\u003e".
func plainJSON(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// misnomer is a top-level key agents are known to send by mistake. A
// mapped key is still an error: WorkRail never accepts two spellings of
// one thing.
type misnomer struct {
	to        string // the path meant, suggested when the tool takes it
	note      string // for a key that means nothing WorkRail takes
	elsewhere string // where the path meant goes, when this tool does not take it
}

const (
	contextElsewhere = "context goes with start_workflow and continue_workflow"
	notesElsewhere   = "notes go with continue_workflow, once a step is done"
)

var misnomers = map[string]misnomer{
	"variables":      {to: "context", elsewhere: contextElsewhere},
	"vars":           {to: "context", elsewhere: contextElsewhere},
	"inputs":         {to: "context", elsewhere: contextElsewhere},
	"completedSteps": {note: "is not part of this contract: progress lives in the tokens; send stateToken and ackToken"},
	"workflow_id":    {to: "workflowId", elsewhere: "workflowId goes with start_workflow and inspect_workflow"},
	"state_token":    {to: "stateToken", elsewhere: "stateToken goes with continue_workflow"},
	"ack_token":      {to: "ackToken", elsewhere: "ackToken goes with continue_workflow"},
	"notes":          {to: "output.notesMarkdown", elsewhere: notesElsewhere},
	"notesMarkdown":  {to: "output.notesMarkdown", elsewhere: notesElsewhere},
}

// suggestKey says how to correct key, found at prefix (a dotted path ending
// in "." or empty) in the arguments of tool, whose type is args; known are
// the keys allowed there. Misnomers are top-level mistakes and are only
// suggested when the tool takes what they mean. Every did-you-mean is a
// full path from the root of the arguments.
func suggestKey(tool ToolName, args reflect.Type, prefix, key string, known []string) engine.Suggestion {
	s := engine.Suggestion{Path: prefix + key}
	if m, ok := misnomers[key]; ok && prefix == "" {
		switch {
		case m.to == "":
			s.Note = m.note
		case takes(args, m.to):
			s.DidYouMean = m.to
		default:
			s.Note = fmt.Sprintf("is not an argument of %s: leave it out; %s.", tool, m.elsewhere)
		}
		return s
	}
	if c := engine.Closest(key, known); c != "" {
		s.DidYouMean = prefix + c
		return s
	}
	s.Note = "is not an argument here: leave it out."
	return s
}

// takes reports whether arguments of type t have the dotted path.
func takes(t reflect.Type, path string) bool {
	for _, seg := range strings.Split(path, ".") {
		if t.Kind() == reflect.Slice {
			if _, err := strconv.Atoi(seg); err != nil {
				return false
			}
			t = t.Elem()
			continue
		}
		st, ok := structOf(t)
		if !ok {
			return false
		}
		f, ok := fieldNamed(st, seg)
		if !ok {
			return false
		}
		t = f.typ
	}
	return true
}

// RenameKeys applies an UNKNOWN_KEY error's suggestions to the arguments
// that caused it. Suggestion paths and did-you-means are dotted paths from
// the root ("preferences.autonomy", "output.resolvesGaps.0.summary"): a
// misspelt key moves to its suggested path (unless that key is already
// there), creating objects on the way (notes move to output.notesMarkdown),
// and keys without a did-you-mean are dropped. Numbers keep their text. ok
// is false when raw is not an object.
func RenameKeys(raw []byte, e *engine.Error) (map[string]any, bool) {
	var args map[string]any
	if decodeExact(raw, &args) != nil || args == nil {
		return nil, false
	}
	for _, s := range e.Suggestions {
		scope, key, ok := locate(args, s.Path)
		if !ok {
			continue
		}
		v := scope[key]
		delete(scope, key)
		if s.DidYouMean != "" {
			place(args, s.DidYouMean, v)
		}
	}
	return args, true
}

// locate finds the object that holds the last key of a dotted path, and
// that key. A key that itself contains dots is matched whole first.
func locate(root map[string]any, path string) (map[string]any, string, bool) {
	var cur any = root
	for rest := path; ; {
		if m, ok := cur.(map[string]any); ok {
			if _, ok := m[rest]; ok {
				return m, rest, true
			}
		}
		head, tail, more := strings.Cut(rest, ".")
		if !more {
			return nil, "", false
		}
		if cur = child(cur, head); cur == nil {
			return nil, "", false
		}
		rest = tail
	}
}

// place sets the dotted path to v unless it is already there, creating
// the objects it goes through when they are absent or null.
func place(root map[string]any, path string, v any) {
	segs := strings.Split(path, ".")
	var cur any = root
	for _, seg := range segs[:len(segs)-1] {
		next := child(cur, seg)
		if next == nil {
			m, ok := cur.(map[string]any)
			if !ok {
				return
			}
			next = map[string]any{}
			m[seg] = next
		}
		cur = next
	}
	m, ok := cur.(map[string]any)
	if !ok {
		return
	}
	if _, taken := m[segs[len(segs)-1]]; !taken {
		m[segs[len(segs)-1]] = v
	}
}

// child is v's member named seg: an object's key or an array's index;
// nil when there is none.
func child(v any, seg string) any {
	switch x := v.(type) {
	case map[string]any:
		return x[seg]
	case []any:
		if i, err := strconv.Atoi(seg); err == nil && i >= 0 && i < len(x) {
			return x[i]
		}
	}
	return nil
}
