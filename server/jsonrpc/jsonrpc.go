// Package jsonrpc is the JSON-RPC 2.0 framing the daemon and the shim
// share, and only they: how large a message may be, the error codes a
// refusal carries, the envelope of a refusal (a tool result or a JSON-RPC
// error, its data the engine's error result), reading a message without
// decoding it (whether it is one JSON value, its id and method, a tool
// call's arguments), and which ids come back as sent. What an agent reads
// inside the envelope is the engine's (engine/protocol).
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strconv"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/protocol"
)

// MaxMessageBytes bounds one JSON-RPC message, as the daemon reads it and
// the shim reads a line: the arguments limit plus room for the envelope
// around them.
const MaxMessageBytes = protocol.MaxArgumentsBytes + 64<<10

// JSON-RPC 2.0 error codes a refusal carries.
const (
	ParseError     = -32700 // not JSON
	InvalidRequest = -32600 // JSON, but not a request WorkRail takes
	InternalError  = -32603
	ServerError    = -32000 // the daemon could not take the request
)

// Refusal is the reply to a request refused before any tool ran (by the
// shim or the daemon's guard), so that every refusal carries the error
// envelope: a tools/call whose id is known gets a tool result with
// isError set, as a tool's own error would; any other request gets a
// JSON-RPC error whose data is the same structured content. rpcCode is
// that JSON-RPC error's code.
func Refusal(id json.RawMessage, method string, rpcCode int, e *engine.Error) map[string]any {
	r := protocol.NewError(e)
	known := len(id) > 0 && string(id) != "null"
	if method == "tools/call" && known {
		return map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{
			"content":           []any{map[string]any{"type": "text", "text": r.Text}},
			"structuredContent": r,
			"isError":           true,
		}}
	}
	if !known {
		id = json.RawMessage("null")
	}
	return map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": rpcCode, "message": e.Message, "data": r}}
}

// Peek reads a message's id and method from as much of it as there is: a
// message cut short, or nested too deep to decode, still yields the
// members that come before the cut. id is nil when it cannot be read,
// and null when it is null (a request MCP does not allow);
// whole says the message is one well-formed JSON object (JSON-RPC
// answers a message that is not with id null, whatever it holds).
func Peek(msg []byte) (id json.RawMessage, method string, whole bool) {
	dec := json.NewDecoder(bytes.NewReader(msg))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, "", false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return id, method, false
		}
		v, err := dec.Token()
		if err != nil {
			return id, method, false
		}
		switch v := v.(type) {
		case nil:
			if key == "id" {
				id = json.RawMessage("null")
			}
		case json.Delim:
			if Skip(dec, v) != nil {
				return id, method, false
			}
		case json.Number:
			if key == "id" {
				id = json.RawMessage(v)
			}
		case string:
			if key == "id" {
				id, _ = json.Marshal(v)
			}
			if key == "method" {
				method = v
			}
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return id, method, false
	}
	_, err := dec.Token()
	return id, method, errors.Is(err, io.EOF)
}

// Skip consumes the rest of the value that starts with tok, the token
// dec has just returned: nothing for a scalar, up to the matching close
// for an object or array.
func Skip(dec *json.Decoder, tok json.Token) error {
	if d, ok := tok.(json.Delim); !ok || (d != '{' && d != '[') {
		return nil
	}
	for depth := 1; depth > 0; {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}

// KeepsID reports whether id (raw JSON, as Peek returns it) comes back
// as sent in an answer the MCP library writes: a string does, and a
// number whose value survives a double (the library holds a number id as
// one); 9007199254740993 comes back 9007199254740992, and 1e400 not at all.
func KeepsID(id json.RawMessage) bool {
	if len(id) == 0 || id[0] == '"' || string(id) == "null" {
		return true
	}
	f, err := strconv.ParseFloat(string(id), 64)
	if err != nil {
		return false
	}
	return SameID(id, json.RawMessage(strconv.FormatFloat(f, 'g', -1, 64)))
}

// SameID reports whether two ids (raw JSON: a string as encoding/json
// writes it, a number, null) are the same value: numbers are compared by
// value (1e2 is 100), strings by their text.
func SameID(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	if len(a) == 0 || len(b) == 0 || a[0] == '"' || b[0] == '"' {
		return false
	}
	x, okx := new(big.Rat).SetString(string(a))
	y, oky := new(big.Rat).SetString(string(b))
	return okx && oky && x.Cmp(y) == 0
}

// UnkeptID says why an id KeepsID refuses cannot be used.
func UnkeptID(id json.RawMessage) string {
	return fmt.Sprintf("the id %s cannot be answered as sent: the MCP library holds a number id as a double, which does not hold this one; "+
		"send a string id, or an integer of at most 2^53 (9007199254740992) in magnitude.", id)
}
