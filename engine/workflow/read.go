package workflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"

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
	tree, rest, err := readTree(src)
	if err != nil {
		return Workflow{}, Problems{syntaxProblem(src, err)}
	}
	// encoding/json's Decoder.More, which this check was first made with,
	// takes a closing bracket for the end of the stream; such a file is
	// refused below, once its types are checked, as json.Unmarshal
	// refused it.
	if len(rest) > 0 && rest[0] != ']' && rest[0] != '}' {
		return Workflow{}, Problems{locate(src, Problem{Message: "trailing data after the workflow object"})}
	}
	return parseTree(src, tree, rest)
}

// ParseDecoded is Parse for a file its caller has decoded already, as
// the legacy normalizer has the file it writes: src is valid UTF-8
// holding one JSON value and nothing after it, and tree is what
// encoding/json's Decoder with UseNumber reads of it.
func ParseDecoded(src []byte, tree any) (Workflow, error) { return parseTree(src, tree, nil) }

// parseTree checks tree, read from src with rest after it, and decodes
// the model from src.
func parseTree(src []byte, tree any, rest []byte) (Workflow, error) {
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
	if len(rest) > 0 {
		return Workflow{}, Problems{{Message: fmt.Sprintf("could not be read: invalid character '%c' after top-level value", rest[0])}}
	}
	var w Workflow
	if err := jsonv2.Unmarshal(src, &w, modelOptions); err != nil {
		// Only a name given twice, its first value of another type, gets
		// here: the tree keeps the last. encoding/json says what is wrong,
		// as it always did.
		if old := json.Unmarshal(src, new(Workflow)); old != nil {
			err = old
		}
		return Workflow{}, Problems{{Message: "could not be read: " + err.Error()}}
	}
	r.problems = append(r.problems, w.check()...)
	if len(r.problems) > 0 {
		return Workflow{}, r.located(src)
	}
	return w, nil
}

// readTree decodes src's first JSON value as encoding/json's Decoder did
// with UseNumber (objects as maps, a name given twice keeping its last
// value, numbers as json.Number) and returns what follows it, spaces
// trimmed. jsontext reads it; what jsontext refuses is read again by
// encoding/json, whose errors are the ones authors have always seen (and
// which takes a letter right after a top-level number, leaving it for the
// trailing-data check).
func readTree(src []byte) (any, []byte, error) {
	dec := jsontext.NewDecoder(bytes.NewBuffer(src), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if v, err := treeValue(dec); err == nil {
		return v, bytes.TrimLeft(src[dec.InputOffset():], " \t\r\n"), nil
	}
	var v any
	old := json.NewDecoder(bytes.NewReader(src))
	old.UseNumber()
	if err := old.Decode(&v); err != nil {
		return nil, nil, err
	}
	return v, bytes.TrimLeft(src[old.InputOffset():], " \t\r\n"), nil
}

// treeValue reads the value that starts at dec's next token.
func treeValue(dec *jsontext.Decoder) (any, error) {
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case '{':
		m := map[string]any{}
		for dec.PeekKind() != '}' {
			k, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			name := k.String() // the token is the decoder's until its next read
			v, err := treeValue(dec)
			if err != nil {
				return nil, err
			}
			m[name] = v
		}
		_, err := dec.ReadToken()
		return m, err
	case '[':
		arr := []any{}
		for dec.PeekKind() != ']' {
			v, err := treeValue(dec)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		_, err := dec.ReadToken()
		return arr, err
	case '"':
		return tok.String(), nil
	case '0':
		return json.Number(tok.String()), nil
	case 'n':
		return nil, nil
	}
	return tok.Bool(), nil
}

// modelOptions read the model with json/v2 as encoding/json did (its v1
// semantics: names matched without regard to case, a name given twice
// merged into the first's value), in one pass over the file: nodes are
// read from the file's decoder, not handed their bytes to validate again.
var modelOptions = jsonv2.JoinOptions(jsonv1.DefaultOptionsV1(),
	jsonv2.WithUnmarshalers(jsonv2.UnmarshalFromFunc(readNumber)))

// readNumber reads a json.Number, which json/v2 does not know: a
// number's text; anything else (a name given twice, its first value of
// another type) as encoding/json reads it.
func readNumber(dec *jsontext.Decoder, n *json.Number) error {
	kind := dec.PeekKind()
	b, err := dec.ReadValue()
	if err != nil {
		return err
	}
	if kind != '0' {
		return json.Unmarshal(b, n)
	}
	*n = json.Number(b)
	return nil
}

// Locate fills in the line and column of p's pointer in src.
func Locate(src []byte, p Problem) Problem { return locate(src, p) }

// invalidUTF8 returns the offset of the first byte that is not part of a
// valid UTF-8 sequence, or -1.
func invalidUTF8(src []byte) int {
	if utf8.Valid(src) {
		return -1
	}
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
	// Only the two keys that tell a loop decide; decoding every member
	// here made each nested body be copied once per level.
	var keys struct {
		Loop json.RawMessage `json:"loop"`
		Body json.RawMessage `json:"body"`
	}
	if err := json.Unmarshal(b, &keys); err != nil {
		return err
	}
	if keys.Loop != nil || keys.Body != nil {
		n.Loop = &Loop{}
		return json.Unmarshal(b, n.Loop)
	}
	n.Step = &Step{}
	return json.Unmarshal(b, n.Step)
}

// UnmarshalJSONFrom is UnmarshalJSON for json/v2, which Parse reads the
// model with. The decoder holds the whole file then: the node's member
// names are read in its buffer (loopByName), and the node is decoded
// from the file's decoder, not read out and decoded again (its body's
// nodes once more per level). A node whose names loopByName cannot read
// is read out and probed by a decode of its members.
func (n *Node) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() == '{' {
		if loop, ok := loopByName(bytes.TrimLeft(dec.UnreadBuffer(), ",: \t\r\n")); ok {
			if loop {
				n.Loop = &Loop{}
				return jsonv2.UnmarshalDecode(dec, n.Loop)
			}
			n.Step = &Step{}
			return jsonv2.UnmarshalDecode(dec, n.Step)
		}
	}
	b, err := dec.ReadValue()
	if err != nil {
		return err
	}
	opts := dec.Options()
	var keys struct {
		Loop jsontext.Value `json:"loop"`
		Body jsontext.Value `json:"body"`
	}
	if err := jsonv2.Unmarshal(b, &keys, opts); err != nil {
		return err
	}
	if keys.Loop != nil || keys.Body != nil {
		n.Loop = &Loop{}
		return jsonv2.Unmarshal(b, n.Loop, opts)
	}
	n.Step = &Step{}
	return jsonv2.Unmarshal(b, n.Step, opts)
}

// loopByName reports whether the JSON object b starts with has a
// member that json/v2's v1 options read into a field named "loop" or
// "body": a name equal to either but for case. It scans the bytes for
// the object's own names instead of decoding every member; ok is false
// when b does not start with an object, when a name holds an escape,
// which only the decoder reads right, or when the object does not end
// within b and has no such name before.
func loopByName(b []byte) (loop, ok bool) {
	if len(b) == 0 || b[0] != '{' {
		return false, false
	}
	depth, name := 0, false // name: the next string at depth 1 is a member's name
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{', '[':
			depth++
			name = depth == 1
		case '}', ']':
			if depth--; depth == 0 {
				return false, true
			}
		case ',':
			name = depth == 1
		case '"':
			j := i + 1
			for { // to the closing quote: one after an even run of backslashes
				k := bytes.IndexByte(b[j:], '"')
				if k < 0 {
					return false, false
				}
				j += k
				n := 0
				for b[j-1-n] == '\\' {
					n++
				}
				if n%2 == 0 {
					break
				}
				j++
			}
			if name {
				s := b[i+1 : j]
				if bytes.IndexByte(s, '\\') >= 0 {
					return false, false
				}
				if bytes.EqualFold(s, []byte("loop")) || bytes.EqualFold(s, []byte("body")) {
					return true, true
				}
				name = false
			}
			i = j
		}
	}
	return false, false
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
			r.check(x, t.Elem(), ptr+"/"+strconv.Itoa(i))
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

// fieldsOf caches jsonFields: the reader asks it of every object.
var fieldsOf sync.Map // reflect.Type → map[string]reflect.Type

func jsonFields(t reflect.Type) map[string]reflect.Type {
	if f, ok := fieldsOf.Load(t); ok {
		return f.(map[string]reflect.Type)
	}
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out[name] = f.Type
		}
	}
	fieldsOf.Store(t, out)
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
