package jsonrpc

import (
	"bytes"
	"encoding/json"

	"github.com/go-json-experiment/json/jsontext"
)

// Valid reports whether msg is one well-formed JSON value, as json.Valid
// does (the same grammar, the same nesting limit, bytes in strings taken
// as they are, a name twice allowed), at a fraction of its cost:
// jsontext skips a string's plain bytes in a tight loop, and the
// daemon's answers are mostly long strings. FuzzValid holds it to
// json.Valid.
func Valid(msg []byte) bool {
	return jsontext.Value(msg).IsValid(anyUTF8, anyNames)
}

var anyUTF8, anyNames = jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true)

// LeadingID is a message's id, read no further than the member holding
// it (jsontext skips the members before it, checking them): a string as
// encoding/json writes it, a number as sent, or null; ok is false when
// the message holds none (a notification) or is no object. The member's
// name is matched as written, "id" with no escape.
func LeadingID(msg []byte) (id json.RawMessage, ok bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(msg), anyUTF8, anyNames)
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, false
	}
	for dec.PeekKind() == '"' {
		name, err := dec.ReadValue()
		if err != nil {
			return nil, false
		}
		isID := string(name) == `"id"`
		value, err := dec.ReadValue()
		if err != nil {
			return nil, false
		}
		if isID {
			return idValue(value)
		}
	}
	return nil, false
}

// idValue is a string, number or null id as LeadingID returns it.
func idValue(raw []byte) (json.RawMessage, bool) {
	switch c := raw[0]; {
	case c == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, false
		}
		b, _ := json.Marshal(s)
		return b, true
	case c == '-' || c >= '0' && c <= '9':
		return raw, true
	case string(raw) == "null":
		return json.RawMessage("null"), true
	}
	return nil, false
}

// ArgumentsSpan finds params.arguments in a JSON-RPC message: msg[start:end]
// is its value. Values on the way are skipped whole, not decoded; like
// encoding/json, jsontext takes a name twice and invalid UTF-8 there.
func ArgumentsSpan(msg []byte) (start, end int, ok bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(msg), anyNames, anyUTF8)
	if !member(dec, "params") || !member(dec, "arguments") {
		return 0, 0, false
	}
	v, err := dec.ReadValue()
	if err != nil {
		return 0, 0, false
	}
	end = int(dec.InputOffset())
	return end - len(v), end, true
}

// member moves dec, at the start of an object, to the value of its
// member key, skipping the members before it.
func member(dec *jsontext.Decoder, key string) bool {
	if t, err := dec.ReadToken(); err != nil || t.Kind() != '{' {
		return false
	}
	for dec.PeekKind() == '"' {
		k, err := dec.ReadToken()
		if err != nil {
			return false
		}
		if k.String() == key {
			return true
		}
		if dec.SkipValue() != nil {
			return false
		}
	}
	return false
}
