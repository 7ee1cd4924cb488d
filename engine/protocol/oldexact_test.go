package protocol

import (
	"encoding/json"
	"reflect"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/workrail/workrail/engine/canon"
)

// oldReadExact is the one-pass reader parseArgs used before json/v2
// (readExact) replaced it, kept in a test file only while FuzzReadExact
// holds the new one to it.
//
// It decodes raw, one JSON object, into v (a pointer to a tool's
// input struct) in one pass over its bytes, making on the way every check
// parseArgs makes: no key twice in any object, every key of an object
// decoded into a struct one of its fields (compared exactly), every value
// of its field's JSON type, every number one canon.CheckNumber takes and
// every string valid Unicode (what the canonical form needs to store the
// arguments as sent), nothing after the object. It fills v as
// encoding/json with UseNumber would (numbers in maps as json.Number,
// json.RawMessage items as their bytes, null as the zero value).
//
// ok is false at the first thing parseArgs would refuse, and at anything
// this reader does not take (a field type it does not know, nesting
// deeper than oldMaxExactDepth): v is then left part-filled, and parseArgs
// finds and names the problem the long way. So it decides only what it
// can decide exactly as parseArgs would; it never refuses on its own.
func oldReadExact(raw []byte, v any) (ok bool) {
	r := oldExactReader{in: raw}
	r.space()
	if !r.value(reflect.ValueOf(v).Elem()) {
		return false
	}
	r.space()
	return r.i == len(r.in)
}

// oldMaxExactDepth bounds the nesting oldReadExact follows; deeper arguments
// take the long way, whose decoder has its own bound.
const oldMaxExactDepth = 64

type oldExactReader struct {
	in    []byte
	i     int
	depth int
}

var oldRawMessage = reflect.TypeFor[json.RawMessage]()

func (r *oldExactReader) space() {
	for r.i < len(r.in) {
		switch r.in[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

func (r *oldExactReader) peek() byte {
	if r.i < len(r.in) {
		return r.in[r.i]
	}
	return 0
}

// value decodes the value at r.i into v.
func (r *oldExactReader) value(v reflect.Value) bool {
	if r.peek() == 'n' {
		if !r.literal("null") {
			return false
		}
		if k := v.Kind(); k == reflect.Pointer || k == reflect.Map || k == reflect.Slice || k == reflect.Interface {
			v.SetZero()
		}
		return true // encoding/json leaves anything else as it was
	}
	switch v.Kind() {
	case reflect.String:
		s, ok := r.string()
		v.SetString(s)
		return ok
	case reflect.Interface:
		if v.NumMethod() != 0 {
			return false
		}
		x, ok := r.any()
		if ok && x != nil {
			v.Set(reflect.ValueOf(x))
		}
		return ok
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String || v.Type().Elem().Kind() != reflect.Interface || v.Type().Elem().NumMethod() != 0 {
			return false
		}
		m, ok := r.object()
		v.Set(reflect.ValueOf(m))
		return ok
	case reflect.Pointer:
		if v.Type().Elem().Kind() != reflect.Struct {
			return false
		}
		p := reflect.New(v.Type().Elem())
		v.Set(p)
		return r.structure(p.Elem())
	case reflect.Struct:
		return r.structure(v)
	case reflect.Slice:
		return r.slice(v)
	}
	return false
}

// structure decodes an object into struct v: each key names a field
// exactly, once.
func (r *oldExactReader) structure(v reflect.Value) bool {
	st, ok := structOf(v.Type())
	if !ok || r.peek() != '{' || !r.enter() {
		return false
	}
	fields := fieldsOf(st)
	if len(fields) > 64 {
		return false
	}
	var seen uint64
	r.i++
	r.space()
	if r.peek() == '}' {
		r.i++
		return r.leave()
	}
	for {
		key, ok := r.string()
		if !ok {
			return false
		}
		at := -1
		for i, f := range fields {
			if f.name == key {
				at = i
				break
			}
		}
		if at < 0 || seen&(1<<at) != 0 {
			return false
		}
		seen |= 1 << at
		if !r.colon() || !r.value(v.Field(fields[at].index)) {
			return false
		}
		if done, ok := r.next('}'); !ok || done {
			return ok && r.leave()
		}
	}
}

// slice decodes an array into v: of structs, or of json.RawMessage.
func (r *oldExactReader) slice(v reflect.Value) bool {
	elem := v.Type().Elem()
	_, isStruct := structOf(elem)
	if elem != oldRawMessage && (!isStruct || elem.Kind() == reflect.Pointer) || r.peek() != '[' || !r.enter() {
		return false
	}
	out := reflect.MakeSlice(v.Type(), 0, 0)
	r.i++
	r.space()
	if r.peek() == ']' {
		r.i++
		v.Set(out)
		return r.leave()
	}
	for {
		item := reflect.New(elem).Elem()
		if elem == oldRawMessage {
			start := r.i
			if _, ok := r.any(); !ok {
				return false
			}
			item.SetBytes(append([]byte(nil), r.in[start:r.i]...))
		} else if !r.structure(item) {
			return false
		}
		out = reflect.Append(out, item)
		if done, ok := r.next(']'); !ok || done {
			v.Set(out)
			return ok && r.leave()
		}
	}
}

// any decodes any JSON value as encoding/json with UseNumber does into an
// interface: objects as map[string]any, arrays as []any, numbers as
// json.Number.
func (r *oldExactReader) any() (any, bool) {
	switch c := r.peek(); {
	case c == '{':
		return r.object()
	case c == '[':
		return r.array()
	case c == '"':
		return r.string()
	case c == 't':
		return true, r.literal("true")
	case c == 'f':
		return false, r.literal("false")
	case c == 'n':
		return nil, r.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return r.number()
	}
	return nil, false
}

func (r *oldExactReader) object() (map[string]any, bool) {
	if r.peek() != '{' || !r.enter() {
		return nil, false
	}
	m := map[string]any{}
	r.i++
	r.space()
	if r.peek() == '}' {
		r.i++
		return m, r.leave()
	}
	for {
		key, ok := r.string()
		if !ok {
			return nil, false
		}
		if _, dup := m[key]; dup || !r.colon() {
			return nil, false
		}
		if m[key], ok = r.any(); !ok {
			return nil, false
		}
		if done, ok := r.next('}'); !ok || done {
			return m, ok && r.leave()
		}
	}
}

func (r *oldExactReader) array() ([]any, bool) {
	if !r.enter() {
		return nil, false
	}
	a := []any{}
	r.i++
	r.space()
	if r.peek() == ']' {
		r.i++
		return a, r.leave()
	}
	for {
		x, ok := r.any()
		if !ok {
			return nil, false
		}
		a = append(a, x)
		if done, ok := r.next(']'); !ok || done {
			return a, ok && r.leave()
		}
	}
}

func (r *oldExactReader) enter() bool {
	r.depth++
	return r.depth <= oldMaxExactDepth
}

func (r *oldExactReader) leave() bool {
	r.depth--
	return true
}

// colon reads the ':' after a key and the space around it.
func (r *oldExactReader) colon() bool {
	r.space()
	if r.peek() != ':' {
		return false
	}
	r.i++
	r.space()
	return true
}

// next reads what follows a member or item: a ',' (and the space before
// the next key, which must follow), or the closing byte.
func (r *oldExactReader) next(closing byte) (done, ok bool) {
	r.space()
	switch r.peek() {
	case ',':
		r.i++
		r.space()
		return false, closing == ']' || r.peek() == '"'
	case closing:
		r.i++
		return true, true
	}
	return false, false
}

func (r *oldExactReader) literal(lit string) bool {
	if len(r.in)-r.i < len(lit) || string(r.in[r.i:r.i+len(lit)]) != lit {
		return false
	}
	r.i += len(lit)
	return true
}

// number reads a JSON number that canon.CheckNumber takes.
func (r *oldExactReader) number() (json.Number, bool) {
	start := r.i
	if r.peek() == '-' {
		r.i++
	}
	switch c := r.peek(); {
	case c == '0':
		r.i++
	case c >= '1' && c <= '9':
		r.digits()
	default:
		return "", false
	}
	if r.peek() == '.' {
		r.i++
		if !r.digits() {
			return "", false
		}
	}
	if c := r.peek(); c == 'e' || c == 'E' {
		r.i++
		if c := r.peek(); c == '+' || c == '-' {
			r.i++
		}
		if !r.digits() {
			return "", false
		}
	}
	n := string(r.in[start:r.i])
	return json.Number(n), canon.CheckNumber(n) == nil
}

func (r *oldExactReader) digits() bool {
	start := r.i
	for c := r.peek(); c >= '0' && c <= '9'; c = r.peek() {
		r.i++
	}
	return r.i > start
}

// string reads a JSON string of valid Unicode: valid UTF-8, and every
// \u escape of a surrogate one half of a pair.
func (r *oldExactReader) string() (string, bool) {
	if r.peek() != '"' {
		return "", false
	}
	r.i++
	start := r.i
	for r.i < len(r.in) {
		switch c := r.in[r.i]; {
		case c == '"':
			s := string(r.in[start:r.i])
			r.i++
			return s, true
		case c == '\\':
			return r.escaped(start)
		case c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			r.i++
		default:
			ch, size := utf8.DecodeRune(r.in[r.i:])
			if ch == utf8.RuneError && size == 1 {
				return "", false
			}
			r.i += size
		}
	}
	return "", false
}

// escaped reads the rest of a string that has escapes, from its first.
func (r *oldExactReader) escaped(start int) (string, bool) {
	out := append([]byte(nil), r.in[start:r.i]...)
	for r.i < len(r.in) {
		c := r.in[r.i]
		switch {
		case c == '"':
			r.i++
			return string(out), true
		case c < 0x20:
			return "", false
		case c != '\\':
			ch, size := utf8.DecodeRune(r.in[r.i:])
			if ch == utf8.RuneError && size == 1 {
				return "", false
			}
			out = append(out, r.in[r.i:r.i+size]...)
			r.i += size
			continue
		}
		r.i++
		e := r.peek()
		r.i++
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			ch, ok := r.hex4()
			if !ok {
				return "", false
			}
			if utf16.IsSurrogate(ch) {
				lo, ok := r.lowSurrogate()
				if ch >= 0xDC00 || !ok {
					return "", false // an unpaired half: the long way says why
				}
				ch = utf16.DecodeRune(ch, lo)
			}
			out = utf8.AppendRune(out, ch)
		default:
			return "", false
		}
	}
	return "", false
}

// lowSurrogate reads the \uDC00–\uDFFF escape that must follow a high
// surrogate.
func (r *oldExactReader) lowSurrogate() (rune, bool) {
	if len(r.in)-r.i < 2 || r.in[r.i] != '\\' || r.in[r.i+1] != 'u' {
		return 0, false
	}
	r.i += 2
	lo, ok := r.hex4()
	return lo, ok && lo >= 0xDC00 && lo <= 0xDFFF
}

func (r *oldExactReader) hex4() (rune, bool) {
	if len(r.in)-r.i < 4 {
		return 0, false
	}
	var n rune
	for _, c := range r.in[r.i : r.i+4] {
		switch {
		case c >= '0' && c <= '9':
			n = n<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			n = n<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			n = n<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	r.i += 4
	return n, true
}
