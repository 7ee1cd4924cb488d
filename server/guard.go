package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/server/jsonrpc"
)

// maxBody bounds one JSON-RPC message.
const maxBody = jsonrpc.MaxMessageBytes

// guard reads a JSON-RPC message before the MCP library does, and answers
// itself what that library would refuse opaquely or take whole: a body
// over maxBody, a batch. A tool call's arguments are taken out of the
// message before the library sees it (withArguments): the library decodes
// only the envelope, and the use case parses the arguments, once, with
// every check they need (protocol.parseArgs) — a number outside float64,
// which would fail the library's decoding, included. Whatever the library
// still refuses (a malformed _meta, a message nested deeper than it
// decodes, an unknown method) is answered as every refusal is: with the
// error envelope (jsonrpc.Refusal).
func guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		if err != nil {
			rpcReply(w, jsonrpc.Refusal(nil, "", jsonrpc.ParseError, protocol.Refuse(protocol.RefusedInvalid, "the request could not be read: %v", err)))
			return
		}
		id, method, whole := jsonrpc.Peek(body)
		if len(body) > maxBody {
			rpcReply(w, jsonrpc.Refusal(id, method, jsonrpc.InvalidRequest, protocol.Refuse(protocol.RefusedTooLarge,
				"the request is over %d bytes; a tool call's arguments may be at most %d bytes: send less (shorter notes, fewer artifacts).", maxBody, protocol.MaxArgumentsBytes)))
			return
		}
		if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && t[0] == '[' {
			rpcReply(w, jsonrpc.Refusal(nil, "", jsonrpc.InvalidRequest, protocol.Refuse(protocol.RefusedInvalid, "JSON-RPC batches are not supported: send one message per request.")))
			return
		}
		if whole && method != "" && string(id) == "null" {
			// JSON-RPC answers a request it cannot take with Invalid
			// Request; MCP requests never have a null id (the library
			// would take it for a notification and answer nothing).
			rpcReply(w, jsonrpc.Refusal(nil, "", jsonrpc.InvalidRequest, protocol.Refuse(protocol.RefusedInvalid, nullID)))
			return
		}
		if whole && method != "" && !jsonrpc.KeepsID(id) {
			// The library would answer under the nearest double: a client
			// waiting for its own id would never see the answer.
			rpcReply(w, jsonrpc.Refusal(id, method, jsonrpc.InvalidRequest, protocol.Refuse(protocol.RefusedInvalid, "%s", jsonrpc.UnkeptID(id))))
			return
		}
		if method == "tools/call" && len(id) > 0 {
			body, r = withArguments(body, r)
		}
		if !whole {
			id = nil // not JSON: its id is unknown
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		mintClient(w, r, method)
		rec := &refusals{w: w}
		next.ServeHTTP(rec, r)
		rec.finish(id, method)
	})
}

// nullID says what is wrong with a request whose id is null.
const nullID = "a request's id must be a string or a number, never null (MCP does not allow it; a message without an id is a notification, which gets no answer)."

// argumentsKey is where withArguments leaves a tool call's arguments in
// its request's context.
type argumentsKey struct{}

// withArguments takes a tool call's arguments out of msg, leaving an empty
// object in their place, and hands them to the tool's handler through r's
// context (argumentsOf): as sent, to be parsed once by the use case. A
// message whose arguments cannot be found is left as it is.
func withArguments(msg []byte, r *http.Request) ([]byte, *http.Request) {
	start, end, ok := jsonrpc.ArgumentsSpan(msg)
	if !ok {
		return msg, r
	}
	args := msg[start:end]
	out := make([]byte, 0, len(msg)-len(args)+2)
	out = append(append(append(out, msg[:start]...), "{}"...), msg[end:]...)
	return out, r.WithContext(context.WithValue(r.Context(), argumentsKey{}, args))
}

// argumentsOf is the arguments withArguments took out of the call whose
// context is ctx.
func argumentsOf(ctx context.Context) ([]byte, bool) {
	args, ok := ctx.Value(argumentsKey{}).([]byte)
	return args, ok
}

// refusals passes on what the MCP library answers, except a refusal:
// a JSON-RPC error or a 4xx answer, which it holds back so finish can
// answer it with the envelope instead. Event streams pass at once.
type refusals struct {
	w      http.ResponseWriter
	status int
	held   *bytes.Buffer // a JSON or text answer, until finish
}

func (r *refusals) Header() http.Header { return r.w.Header() }

func (r *refusals) WriteHeader(status int) {
	if r.status != 0 {
		return
	}
	r.status = status
	ct, _, _ := mime.ParseMediaType(r.w.Header().Get("Content-Type"))
	if status == http.StatusOK && ct == "text/event-stream" || status < 200 || status == http.StatusAccepted || status >= 500 {
		r.w.WriteHeader(status)
		return
	}
	r.held = &bytes.Buffer{}
}

func (r *refusals) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.WriteHeader(http.StatusOK)
	}
	if r.held != nil {
		return r.held.Write(b)
	}
	return r.w.Write(b)
}

// Flush passes a stream's events on as they come.
func (r *refusals) Flush() {
	if f, ok := r.w.(http.Flusher); ok && r.held == nil {
		f.Flush()
	}
}

// finish writes what was held: unchanged unless it is a refusal, which
// becomes jsonrpc.Refusal with the library's words as the message.
func (r *refusals) finish(id json.RawMessage, method string) {
	if r.held == nil {
		return
	}
	if r.status < 400 && answered(r.held.Bytes()) {
		r.w.WriteHeader(r.status)
		r.w.Write(r.held.Bytes())
		return
	}
	var reply struct {
		Error *struct {
			Code    int             `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	isJSON := json.Unmarshal(r.held.Bytes(), &reply) == nil
	switch {
	case isJSON && reply.Error != nil && len(reply.Error.Data) == 0: // one with data already carries the envelope
		kind := protocol.RefusedInvalid
		if reply.Error.Code == jsonrpc.InternalError {
			kind = protocol.RefusedInternal
		}
		r.reply(jsonrpc.Refusal(id, method, reply.Error.Code, protocol.Refuse(kind, "the request was refused: %s.", strings.TrimSuffix(reply.Error.Message, "."))))
	case r.status >= 400:
		r.reply(jsonrpc.Refusal(id, method, jsonrpc.InvalidRequest, protocol.Refuse(protocol.RefusedInvalid, "the request was refused (HTTP %d): %s.",
			r.status, strings.TrimSuffix(strings.TrimSpace(r.held.String()), "."))))
	default:
		r.w.WriteHeader(r.status)
		r.w.Write(r.held.Bytes())
	}
}

// answered says reply is a JSON-RPC answer with a result, read no further
// than its members before "result" (jsonrpc, id): a tool's answer is
// passed on without decoding it, and only an error is read whole.
func answered(reply []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(reply))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil || k == "error" {
			return false
		}
		if k == "result" {
			return true
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return false
}

// reply answers with refusal in place of what the library said.
func (r *refusals) reply(refusal map[string]any) {
	r.w.Header().Del("Content-Length")
	rpcReply(r.w, refusal)
}

// rpcReply answers with HTTP 200: a JSON-RPC error is a JSON-RPC answer,
// which the shim relays as it is.
func rpcReply(w http.ResponseWriter, msg any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(msg)
}
