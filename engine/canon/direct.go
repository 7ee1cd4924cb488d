package canon

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// direct writes the canonical JSON of v straight from the Go value, in
// one pass: encoding/json then transform would write every string twice
// and copy each object's members again to put them in order, which was
// a fifth of compiling a large workflow. It takes a subset of what
// encoding/json takes, the kinds compiled workflows are made of: structs
// of tagged fields (omitempty, no embedding), pointers, slices, maps with
// keys of printable ASCII, strings of valid UTF-8, bools, integers of at
// most 15 digits, json.Number integers likewise, json.RawMessage, and
// interfaces holding any of these. On anything else it declines (false)
// and JSON takes the old path, so its bytes are the old path's wherever
// it answers (FuzzTransform and TestDirectIsMarshalThenTransform hold it
// to them).
func direct(v any) ([]byte, bool) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return []byte("null"), true
	}
	enc := encoderOf(rv.Type())
	if enc == nil {
		return nil, false
	}
	buf := buffers.Get().(*[]byte)
	e := encoder{out: (*buf)[:0]}
	ok := enc(&e, rv)
	var out []byte
	if ok {
		out = make([]byte, len(e.out))
		copy(out, e.out)
	}
	if cap(e.out) <= maxPooled {
		*buf = e.out
		buffers.Put(buf)
	}
	return out, ok
}

// buffers are what direct writes into: a compiled workflow's canonical
// form is hundreds of kilobytes, and growing a new slice to it, doubling,
// cost more than writing it. Buffers past maxPooled are left to the
// collector.
var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

const maxPooled = 4 << 20

type encoder struct {
	out   []byte
	depth int
}

// encFn appends v's canonical JSON to e.out, or declines. A type direct
// does not take has none (nil), and neither has a type holding one in a
// field, element or pointer: such a value declines before anything of
// it is written. Only what an interface holds is found out as it is
// written.
type encFn func(e *encoder, v reflect.Value) bool

// maxDirectDepth bounds nesting: past it (a cycle, say) direct declines
// and encoding/json says what is wrong.
const maxDirectDepth = 1000

var (
	encoders       sync.Map // reflect.Type → encFn
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	numberType     = reflect.TypeFor[json.Number]()
	marshalerType  = reflect.TypeFor[json.Marshaler]()
	textType       = reflect.TypeFor[encoding.TextMarshaler]()
)

// encoderOf returns t's encoder, built once. A type that refers to
// itself (a loop's body of nodes) finds its own encoder through an
// indirection until it is built, as encoding/json does.
func encoderOf(t reflect.Type) encFn {
	if f, ok := encoders.Load(t); ok {
		return f.(encFn)
	}
	var (
		wg sync.WaitGroup
		f  encFn
	)
	wg.Add(1)
	fi, loaded := encoders.LoadOrStore(t, encFn(func(e *encoder, v reflect.Value) bool {
		wg.Wait()
		return f != nil && f(e, v)
	}))
	if loaded {
		return fi.(encFn)
	}
	f = newEncoder(t)
	wg.Done()
	encoders.Store(t, f)
	return f
}

func newEncoder(t reflect.Type) encFn {
	switch {
	case t == rawMessageType:
		return rawEncoder
	case t == numberType:
		return numberEncoder
	case t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType),
		t.Implements(textType) || reflect.PointerTo(t).Implements(textType):
		return nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return boolEncoder
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return intEncoder
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return uintEncoder
	case reflect.String:
		return func(e *encoder, v reflect.Value) bool { return e.string(v.String()) }
	case reflect.Interface:
		return interfaceEncoder
	case reflect.Pointer:
		return pointerEncoder(t)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil // base64, or a Marshaler's bytes
		}
		return sliceEncoder(t)
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil
		}
		return mapEncoder(t)
	case reflect.Struct:
		return structEncoder(t)
	}
	return nil // floats, arrays, and what encoding/json refuses
}

func boolEncoder(e *encoder, v reflect.Value) bool {
	e.out = strconv.AppendBool(e.out, v.Bool())
	return true
}

// maxPlainInteger: integers below it in magnitude (15 digits) are
// written as their digits in the canonical form, as fastTransform takes
// them.
const maxPlainInteger = 1e15

func intEncoder(e *encoder, v reflect.Value) bool {
	n := v.Int()
	if n <= -maxPlainInteger || n >= maxPlainInteger {
		return false
	}
	e.out = strconv.AppendInt(e.out, n, 10)
	return true
}

func uintEncoder(e *encoder, v reflect.Value) bool {
	n := v.Uint()
	if n >= maxPlainInteger {
		return false
	}
	e.out = strconv.AppendUint(e.out, n, 10)
	return true
}

// numberEncoder writes a json.Number that is a plain integer, which its
// canonical form keeps as it is; other numbers decline.
func numberEncoder(e *encoder, v reflect.Value) bool {
	s := v.String()
	if s == "" {
		s = "0" // encoding/json writes the empty Number as 0
	}
	digits := strings.TrimPrefix(s, "-")
	switch {
	case len(digits) == 0 || len(digits) > 15:
		return false
	case digits[0] == '0' && (len(digits) > 1 || len(digits) < len(s)):
		return false // a leading zero, or -0
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return false
		}
	}
	e.out = append(e.out, s...)
	return true
}

// rawEncoder writes a json.RawMessage in its canonical form, as
// transform would have written it within the whole document.
func rawEncoder(e *encoder, v reflect.Value) bool {
	raw := v.Bytes()
	if raw == nil {
		e.out = append(e.out, "null"...)
		return true
	}
	out, err := transform(bytes.Clone(raw), func() []byte { return raw })
	if err != nil {
		return false
	}
	e.out = append(e.out, out...)
	return true
}

func interfaceEncoder(e *encoder, v reflect.Value) bool {
	if v.IsNil() {
		e.out = append(e.out, "null"...)
		return true
	}
	x := v.Elem()
	enc := encoderOf(x.Type())
	return enc != nil && enc(e, x)
}

func pointerEncoder(t reflect.Type) encFn {
	elem := encoderOf(t.Elem())
	if elem == nil {
		return nil
	}
	return func(e *encoder, v reflect.Value) bool {
		if v.IsNil() {
			e.out = append(e.out, "null"...)
			return true
		}
		if e.depth++; e.depth > maxDirectDepth {
			return false
		}
		ok := elem(e, v.Elem())
		e.depth--
		return ok
	}
}

func sliceEncoder(t reflect.Type) encFn {
	elem := encoderOf(t.Elem())
	if elem == nil {
		return nil
	}
	return func(e *encoder, v reflect.Value) bool {
		if v.IsNil() {
			e.out = append(e.out, "null"...)
			return true
		}
		if e.depth++; e.depth > maxDirectDepth {
			return false
		}
		e.out = append(e.out, '[')
		for i := range v.Len() {
			if i > 0 {
				e.out = append(e.out, ',')
			}
			if !elem(e, v.Index(i)) {
				return false
			}
		}
		e.out = append(e.out, ']')
		e.depth--
		return true
	}
}

// mapEncoder writes a map's members in key order. Keys of printable
// ASCII other than quote and backslash are written as they are and sort
// by bytes as by UTF-16 code units; other keys decline.
func mapEncoder(t reflect.Type) encFn {
	elem := encoderOf(t.Elem())
	if elem == nil {
		return nil
	}
	return func(e *encoder, v reflect.Value) bool {
		if v.IsNil() {
			e.out = append(e.out, "null"...)
			return true
		}
		if e.depth++; e.depth > maxDirectDepth {
			return false
		}
		keys := v.MapKeys()
		names := make([]string, len(keys))
		for i, k := range keys {
			names[i] = k.String()
			if !plainName(names[i]) {
				return false
			}
		}
		order := make([]int, len(keys))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int { return strings.Compare(names[a], names[b]) })
		e.out = append(e.out, '{')
		for j, i := range order {
			if j > 0 {
				e.out = append(e.out, ',')
			}
			e.out = append(e.out, '"')
			e.out = append(e.out, names[i]...)
			e.out = append(e.out, '"', ':')
			if !elem(e, v.MapIndex(keys[i])) {
				return false
			}
		}
		e.out = append(e.out, '}')
		e.depth--
		return true
	}
}

func plainName(s string) bool {
	for i := 0; i < len(s); i++ {
		if !plain[s[i]] {
			return false
		}
	}
	return true
}

// field is one member a struct writes: its name, and its key as
// written (quoted, with the colon).
type field struct {
	name, key string
	index     int
	omitEmpty bool
	enc       encFn
}

// structEncoder writes the exported fields in key order. Embedded
// fields, the string and omitzero options, keys that are not plain
// (see tagName) and two fields with one key decline.
func structEncoder(t reflect.Type) encFn {
	var fields []field
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return nil
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		omit := false
		for opt := range strings.SplitSeq(opts, ",") {
			switch opt {
			case "", "omitempty":
				omit = omit || opt == "omitempty"
			default:
				return nil
			}
		}
		if name == "" {
			name = f.Name
		}
		if !tagName(name) {
			return nil
		}
		enc := encoderOf(f.Type)
		if enc == nil {
			return nil
		}
		fields = append(fields, field{name: name, key: `"` + name + `":`, index: i, omitEmpty: omit, enc: enc})
	}
	slices.SortFunc(fields, func(a, b field) int { return strings.Compare(a.name, b.name) })
	for i := 1; i < len(fields); i++ {
		if fields[i].name == fields[i-1].name {
			return nil
		}
	}
	return func(e *encoder, v reflect.Value) bool {
		if e.depth++; e.depth > maxDirectDepth {
			return false
		}
		e.out = append(e.out, '{')
		first := true
		for _, f := range fields {
			fv := v.Field(f.index)
			if f.omitEmpty && empty(fv) {
				continue
			}
			if !first {
				e.out = append(e.out, ',')
			}
			first = false
			e.out = append(e.out, f.key...)
			if !f.enc(e, fv) {
				return false
			}
		}
		e.out = append(e.out, '}')
		e.depth--
		return true
	}
}

// tagName reports whether a field's key is one encoding/json writes as
// it is and whose byte order is its UTF-16 order: letters, digits and
// "$-_.".
func tagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '$', c == '-', c == '_', c == '.':
		default:
			return false
		}
	}
	return true
}

// empty is encoding/json's omitempty rule.
func empty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

// string writes s as the canonical form quotes it. Invalid UTF-8
// declines.
func (e *encoder) string(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	e.out = AppendString(e.out, s, Canonical)
	return true
}
