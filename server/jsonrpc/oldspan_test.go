package jsonrpc

import (
	"bytes"
	"encoding/json"
	"testing"
)

// oldArgumentsSpan and oldMember are ArgumentsSpan's encoding/json token
// walk before jsontext replaced it, kept in a test file only while
// FuzzArgumentsSpan holds the new one to it.
func oldArgumentsSpan(msg []byte) (start, end int, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(msg))
	if !oldMember(dec, "params") || !oldMember(dec, "arguments") {
		return 0, 0, false
	}
	var v json.RawMessage
	if dec.Decode(&v) != nil {
		return 0, 0, false
	}
	end = int(dec.InputOffset())
	return end - len(v), end, true
}

func oldMember(dec *json.Decoder, key string) bool {
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return false
		}
		if k == key {
			return true
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return false
}

// FuzzArgumentsSpan holds ArgumentsSpan to the encoding/json walk it
// replaced: the same span of the same messages.
func FuzzArgumentsSpan(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"continue_workflow","arguments":{"stateToken":"st","output":{"notesMarkdown":"a\"b"}}}}`,
		`{"params":{"arguments":[1,2]},"params":{"arguments":3}}`, `{"id":"x","params" : { "_meta":{"a":[{}]}, "arguments" : "s" } }`,
		`{"params":{"arguments":}}`, `{"params":{"arguments":{"a":1}`, `{"par\u0061ms":{"arguments":null}}`, "{\"\xff\":1,\"params\":{\"arguments\":1}}",
		`{"params":{"a":1,"a":2,"arguments":{"b":1,"b":2}}}`, `[{"params":{"arguments":1}}]`, `{"params":[],"arguments":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		s, e, ok := ArgumentsSpan(msg)
		os, oe, ook := oldArgumentsSpan(msg)
		if s != os || e != oe || ok != ook {
			t.Fatalf("ArgumentsSpan(%q) = %d, %d, %v; the old walk: %d, %d, %v", msg, s, e, ok, os, oe, ook)
		}
	})
}
