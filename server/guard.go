package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/workrail/workrail/engine/protocol"
)

// maxBody bounds one JSON-RPC message: the arguments limit plus room for
// the envelope around them.
const maxBody = protocol.MaxArgumentsBytes + 64<<10

// JSON-RPC 2.0 error codes.
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
)

// guard reads a JSON-RPC message before the MCP library does, and answers
// itself what that library would refuse opaquely or take whole: a body
// over maxBody, a batch, a tool call whose arguments cannot be stored as
// sent (a number outside float64 fails the library's decoding). Anything
// else goes on unchanged.
func guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		if err != nil {
			rpcError(w, nil, rpcParseError, "the request could not be read: "+err.Error())
			return
		}
		if len(body) > maxBody {
			rpcError(w, idOf(body), rpcInvalidRequest, fmt.Sprintf(
				"the request is over %d bytes; a tool call's arguments may be at most %d bytes: send less (shorter notes, fewer artifacts)", maxBody, protocol.MaxArgumentsBytes))
			return
		}
		if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && t[0] == '[' {
			rpcError(w, nil, rpcInvalidRequest, "JSON-RPC batches are not supported: send one message per request")
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Arguments json.RawMessage `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &msg) == nil && msg.Method == "tools/call" && len(msg.ID) > 0 && len(msg.Params.Arguments) > 0 {
			if e := protocol.CheckArguments(msg.Params.Arguments); e != nil {
				rpcReply(w, map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": toolResult(protocol.NewError(e))})
				return
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

// idOf finds the id of a message that was cut short, when it comes before
// the cut; nil otherwise.
func idOf(body []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil
		}
		if key == "id" {
			return v
		}
	}
	return nil
}

func rpcError(w http.ResponseWriter, id json.RawMessage, code int, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	rpcReply(w, map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": message}})
}

// rpcReply answers with HTTP 200: a JSON-RPC error is a JSON-RPC answer,
// which the shim relays as it is.
func rpcReply(w http.ResponseWriter, msg any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(msg)
}
