package workflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/canon"
)

// Problem is one precise complaint about a workflow file.
type Problem struct {
	Pointer    string `json:"pointer"`
	Line       int    `json:"line,omitempty"`
	Column     int    `json:"column,omitempty"`
	Message    string `json:"message"`
	DidYouMean string `json:"didYouMean,omitempty"`
}

// Problems is every complaint about one file, in document order.
type Problems []Problem

func (p Problems) Error() string {
	msgs := make([]string, len(p))
	for i, x := range p {
		msgs[i] = x.String()
	}
	return strings.Join(msgs, "; ")
}

func (p Problem) String() string {
	s := p.Pointer
	if s == "" {
		s = "(document)"
	}
	if p.Line > 0 {
		s = fmt.Sprintf("%d:%d: %s", p.Line, p.Column, s)
	}
	s += ": " + p.Message
	if p.DidYouMean != "" {
		s += fmt.Sprintf(" (did you mean %q?)", p.DidYouMean)
	}
	return s
}

// Parse reads a workflow file strictly. It never partially loads: any
// problem (syntax, unknown key, wrong type, failed semantic check) returns
// Problems and no workflow.
func Parse(src []byte) (Workflow, error) {
	// encoding/json would quietly turn invalid bytes into U+FFFD in some
	// places and keep them in raw values elsewhere; the canonical form the
	// workflow hash is taken over must be UTF-8, so refuse such files here.
	if off := invalidUTF8(src); off >= 0 {
		line, col := lineCol(src, off)
		return Workflow{}, Problems{{Line: line, Column: col, Message: "the file is not valid UTF-8 here: save it with UTF-8 encoding"}}
	}
	var tree any
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	if err := dec.Decode(&tree); err != nil {
		return Workflow{}, Problems{syntaxProblem(src, err)}
	}
	if dec.More() {
		return Workflow{}, Problems{locate(src, Problem{Message: "trailing data after the workflow object"})}
	}
	var r reader
	for _, n := range canon.BadNumbers(tree) {
		r.add(n.Pointer, n.Err.Error()+"; use a smaller number or a string", "")
	}
	r.check(tree, reflect.TypeFor[Workflow](), "")
	if r.typeErrors > 0 {
		return Workflow{}, r.located(src)
	}
	// Only unknown keys (or nothing) so far: the model decodes, so the
	// semantic checks can report the rest in the same pass.
	var w Workflow
	if err := json.Unmarshal(src, &w); err != nil {
		return Workflow{}, Problems{{Message: "could not be read: " + err.Error()}}
	}
	r.problems = append(r.problems, w.check()...)
	if len(r.problems) > 0 {
		return Workflow{}, r.located(src)
	}
	return w, nil
}

// Locate fills in the line and column of p's pointer in src.
func Locate(src []byte, p Problem) Problem { return locate(src, p) }

// invalidUTF8 returns the offset of the first byte that is not part of a
// valid UTF-8 sequence, or -1.
func invalidUTF8(src []byte) int {
	for off := 0; off < len(src); {
		r, n := utf8.DecodeRune(src[off:])
		if r == utf8.RuneError && n == 1 {
			return off
		}
		off += n
	}
	return -1
}

func syntaxProblem(src []byte, err error) Problem {
	off := len(src) // unexpected EOF: the problem is at the end
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// Offset counts the bytes read, the offending one included.
		off = max(int(se.Offset)-1, 0)
	}
	line, col := lineCol(src, off)
	return Problem{Line: line, Column: col, Message: "invalid JSON: " + err.Error()}
}

// UnmarshalJSON reads a node as a loop when it has a "loop" or "body" key,
// otherwise as a step.
func (n *Node) UnmarshalJSON(b []byte) error {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return err
	}
	if isLoop(keys) {
		n.Loop = &Loop{}
		return json.Unmarshal(b, n.Loop)
	}
	n.Step = &Step{}
	return json.Unmarshal(b, n.Step)
}

// MarshalJSON writes the node's one variant.
func (n Node) MarshalJSON() ([]byte, error) {
	if n.Loop != nil {
		return json.Marshal(n.Loop)
	}
	return json.Marshal(n.Step)
}

func isLoop[V any](keys map[string]V) bool {
	_, loop := keys["loop"]
	_, body := keys["body"]
	return loop || body
}

// reader walks a decoded JSON tree against the Go model, reporting unknown
// keys (with did-you-mean) and wrong types with JSON pointers, so the
// struct decode that follows cannot fail.
type reader struct {
	problems   Problems
	typeErrors int // problems that stop the model from decoding
}

var (
	rawType    = reflect.TypeFor[json.RawMessage]()
	numberType = reflect.TypeFor[json.Number]()
	nodeType   = reflect.TypeFor[Node]()
	// confirmType is true, false or a condition object.
	confirmType = reflect.TypeFor[Confirmation]()
)

// add records a wrong-type problem.
func (r *reader) add(ptr, msg, didYouMean string) {
	r.typeErrors++
	r.problems = append(r.problems, Problem{Pointer: ptr, Message: msg, DidYouMean: didYouMean})
}

func (r *reader) check(v any, t reflect.Type, ptr string) {
	switch {
	case t == rawType || t.Kind() == reflect.Interface:
		return
	case t == numberType:
		if _, ok := v.(json.Number); !ok {
			r.add(ptr, "must be a number, not "+jsonKind(v), "")
		}
		return
	case t == nodeType:
		r.checkNode(v, ptr)
		return
	case t == confirmType:
		switch v.(type) {
		case bool:
		case map[string]any:
			r.check(v, reflect.TypeFor[Condition](), ptr)
		default:
			r.add(ptr, "must be true, false or a condition, not "+jsonKind(v), "")
		}
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		r.check(v, t.Elem(), ptr)
	case reflect.Struct:
		r.checkStruct(v, t, ptr)
	case reflect.Slice:
		arr, ok := v.([]any)
		if !ok {
			r.add(ptr, "must be an array, not "+jsonKind(v), "")
			return
		}
		for i, x := range arr {
			r.check(x, t.Elem(), fmt.Sprintf("%s/%d", ptr, i))
		}
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			r.add(ptr, "must be an object, not "+jsonKind(v), "")
			return
		}
		for _, k := range sortedKeys(m) {
			r.check(m[k], t.Elem(), ptr+"/"+engine.PointerToken(k))
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			r.add(ptr, "must be a string, not "+jsonKind(v), "")
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			r.add(ptr, "must be true or false, not "+jsonKind(v), "")
		}
	case reflect.Int:
		n, ok := v.(json.Number)
		if _, err := n.Int64(); !ok || err != nil {
			r.add(ptr, "must be a whole number, not "+jsonKind(v), "")
		}
	default:
		panic("workflow: reader has no rule for " + t.String())
	}
}

func (r *reader) checkNode(v any, ptr string) {
	m, ok := v.(map[string]any)
	if !ok {
		r.add(ptr, "must be an object (a step or a loop), not "+jsonKind(v), "")
		return
	}
	if isLoop(m) {
		r.checkStruct(m, reflect.TypeFor[Loop](), ptr)
		return
	}
	r.checkStruct(m, reflect.TypeFor[Step](), ptr)
}

func (r *reader) checkStruct(v any, t reflect.Type, ptr string) {
	m, ok := v.(map[string]any)
	if !ok {
		r.add(ptr, "must be an object, not "+jsonKind(v), "")
		return
	}
	fields := jsonFields(t)
	for _, k := range sortedKeys(m) {
		f, ok := fields[k]
		if !ok {
			r.problems = append(r.problems, Problem{Pointer: ptr + "/" + engine.PointerToken(k),
				Message: fmt.Sprintf("unknown key %q", k), DidYouMean: engine.Closest(k, fieldNames(fields))})
			continue
		}
		r.check(m[k], f, ptr+"/"+engine.PointerToken(k))
	}
}

func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out[name] = f.Type
		}
	}
	return out
}

func fieldNames(fields map[string]reflect.Type) []string {
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

func sortedKeys[K ~string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// located fills in line and column for every problem and orders them as
// they appear in the document.
func (r *reader) located(src []byte) Problems {
	out := make(Problems, len(r.problems))
	for i, p := range r.problems {
		out[i] = locate(src, p)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Column < out[j].Column
	})
	return out
}
