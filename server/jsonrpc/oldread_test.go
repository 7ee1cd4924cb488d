package jsonrpc

import (
	"encoding/json"
	"testing"
)

// oldValid is the hand-written validator Valid was before jsontext
// replaced it, kept in a test file only while FuzzValid holds the new one
// to it.
func oldValid(msg []byte) bool {
	v := validator{b: msg}
	v.space()
	if !v.value(0) {
		return false
	}
	v.space()
	return v.i == len(v.b)
}

// maxDepth is encoding/json's nesting limit: deeper values are invalid.
const maxDepth = 10000

type validator struct {
	b []byte
	i int
}

func (v *validator) space() {
	for v.i < len(v.b) {
		switch v.b[v.i] {
		case ' ', '\t', '\n', '\r':
			v.i++
		default:
			return
		}
	}
}

// value reads one value at nesting depth (the number of arrays and
// objects it is in).
func (v *validator) value(depth int) bool {
	if v.i >= len(v.b) {
		return false
	}
	switch c := v.b[v.i]; {
	case c == '"':
		return v.str()
	case c == '{' || c == '[':
		return depth < maxDepth && v.composite(depth+1)
	case c == '-' || c >= '0' && c <= '9':
		return v.number()
	case c == 't':
		return v.literal("true")
	case c == 'f':
		return v.literal("false")
	case c == 'n':
		return v.literal("null")
	}
	return false
}

// composite reads an object or an array, its opening byte at v.i.
func (v *validator) composite(depth int) bool {
	object := v.b[v.i] == '{'
	end := byte(']')
	if object {
		end = '}'
	}
	v.i++
	v.space()
	if v.i < len(v.b) && v.b[v.i] == end {
		v.i++
		return true
	}
	for {
		if object {
			if v.i >= len(v.b) || v.b[v.i] != '"' || !v.str() {
				return false
			}
			v.space()
			if v.i >= len(v.b) || v.b[v.i] != ':' {
				return false
			}
			v.i++
			v.space()
		}
		if !v.value(depth) {
			return false
		}
		v.space()
		if v.i >= len(v.b) {
			return false
		}
		switch v.b[v.i] {
		case ',':
			v.i++
			v.space()
		case end:
			v.i++
			return true
		default:
			return false
		}
	}
}

// plain marks the bytes a string holds as they are: all but the quote,
// the backslash and control characters.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// str reads a string, its opening quote at v.i.
func (v *validator) str() bool {
	v.i++
	for {
		for v.i < len(v.b) && plain[v.b[v.i]] {
			v.i++
		}
		switch {
		case v.i >= len(v.b) || v.b[v.i] < 0x20:
			return false
		case v.b[v.i] == '"':
			v.i++
			return true
		case !v.escape():
			return false
		}
	}
}

// escape reads one escape sequence, its backslash at v.i.
func (v *validator) escape() bool {
	v.i++
	if v.i >= len(v.b) {
		return false
	}
	switch v.b[v.i] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		v.i++
		return true
	case 'u':
		if v.i+4 >= len(v.b) {
			return false
		}
		for _, h := range v.b[v.i+1 : v.i+5] {
			if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
				return false
			}
		}
		v.i += 5
		return true
	}
	return false
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (v *validator) number() bool {
	if v.b[v.i] == '-' {
		v.i++
	}
	switch {
	case v.i < len(v.b) && v.b[v.i] == '0':
		v.i++
	case !v.digits():
		return false
	}
	if v.i < len(v.b) && v.b[v.i] == '.' {
		v.i++
		if !v.digits() {
			return false
		}
	}
	if v.i < len(v.b) && (v.b[v.i] == 'e' || v.b[v.i] == 'E') {
		v.i++
		if v.i < len(v.b) && (v.b[v.i] == '+' || v.b[v.i] == '-') {
			v.i++
		}
		if !v.digits() {
			return false
		}
	}
	return true
}

// digits reads one or more digits.
func (v *validator) digits() bool {
	start := v.i
	for v.i < len(v.b) && v.b[v.i] >= '0' && v.b[v.i] <= '9' {
		v.i++
	}
	return v.i > start
}

func (v *validator) literal(word string) bool {
	if len(v.b)-v.i < len(word) || string(v.b[v.i:v.i+len(word)]) != word {
		return false
	}
	v.i += len(word)
	return true
}

// oldLeadingID is LeadingID's walk over the hand-written validator
// before jsontext replaced both, kept in a test file only while
// FuzzLeadingID holds the new one to it.
func oldLeadingID(msg []byte) (id json.RawMessage, ok bool) {
	v := validator{b: msg}
	v.space()
	if v.i >= len(v.b) || v.b[v.i] != '{' {
		return nil, false
	}
	v.i++
	for {
		v.space()
		from := v.i
		if v.i >= len(v.b) || v.b[v.i] != '"' || !v.str() {
			return nil, false
		}
		key := msg[from:v.i]
		v.space()
		if v.i >= len(v.b) || v.b[v.i] != ':' {
			return nil, false
		}
		v.i++
		v.space()
		value := v.i
		if !v.value(1) {
			return nil, false
		}
		if string(key) == `"id"` {
			return idValue(msg[value:v.i])
		}
		v.space()
		if v.i >= len(v.b) || v.b[v.i] != ',' {
			return nil, false
		}
		v.i++
	}
}

// FuzzLeadingID holds LeadingID to the walk it replaced: the same id,
// or none, of any message.
func FuzzLeadingID(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":7,"method":"ping"}`, ` { "params" : {"id": 1, "x": [{"id":2}]} , "id" : "x" }`,
		`{"id":"a<b\u0041"}`, `{"id":null}`, `{"\u0069d":1,"id":2}`, `{"id":true}`, `{"id":1`, `{"a":[}`, `["id",1]`, `{"a":1 "id":2}`,
		"{\"a\":\"\xff\",\"id\":-1.5e3}", `{"id":"\ud800"}`, `{"a":1,"a":2,"id":"x"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		id, ok := LeadingID(msg)
		oldID, oldOK := oldLeadingID(msg)
		if ok != oldOK || string(id) != string(oldID) {
			t.Fatalf("LeadingID(%q) = %s, %v; the old walk: %s, %v", msg, id, ok, oldID, oldOK)
		}
	})
}
