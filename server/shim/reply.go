package shim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/server/jsonrpc"
)

// JSON-RPC 2.0 error codes the shim answers with itself.
const (
	parseError     = jsonrpc.ParseError     // the line is not JSON
	invalidRequest = jsonrpc.InvalidRequest // JSON, but not one request object
	serverError    = jsonrpc.ServerError    // the daemon could not take the request
)

// statusError is the daemon refusing a message: an HTTP answer other than
// 200 or 202.
type statusError struct {
	code   int
	status string
	body   []byte // the first 4 KiB, trimmed
}

func (e *statusError) Error() string {
	return fmt.Sprintf("daemon answered %s: %s", e.status, e.body)
}

// refusal answers request in with the daemon's refusal, in the envelope,
// under the JSON-RPC code it answered (invalid request when its body
// holds none).
func (e *statusError) refusal(in incoming) map[string]any {
	code, why := invalidRequest, string(e.body)
	var body struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(e.body, &body) == nil && body.Error != nil {
		code, why = body.Error.Code, body.Error.Message
	}
	kind := protocol.RefusedInvalid
	if e.code == http.StatusRequestEntityTooLarge {
		kind = protocol.RefusedTooLarge
	}
	return jsonrpc.Refusal(in.id, in.method, code, protocol.Refuse(kind, "workrail: the daemon refused the request (%s): %s", e.status, why))
}

// wrongID is a daemon answering a request under another id than it was
// sent with.
type wrongID struct{ sent, got json.RawMessage }

func (e *wrongID) Error() string {
	return fmt.Sprintf("the daemon answered the request with id %s under id %s", e.sent, e.got)
}

// refusal answers request in in place of the answer under the wrong id:
// an id the daemon's MCP library cannot hold is the client's to change
// (INVALID_INPUT); any other is the daemon's fault (INTERNAL).
func (e *wrongID) refusal(in incoming) map[string]any {
	if !jsonrpc.KeepsID(e.sent) {
		return jsonrpc.Refusal(in.id, in.method, invalidRequest, protocol.Refuse(protocol.RefusedInvalid, "workrail: %s", jsonrpc.UnkeptID(e.sent)))
	}
	return jsonrpc.Refusal(in.id, in.method, jsonrpc.InternalError, protocol.Refuse(protocol.RefusedInternal,
		"workrail: %v, so its answer was not passed on; the daemon's log may say why.", e))
}

// incoming is what answering one line from stdin needs to know of it.
type incoming struct {
	answer bool            // false for a notification or a response
	id     json.RawMessage // the request's id; null when it cannot be known
	method string
	code   int    // 0, or parseError / invalidRequest when the line is not a request
	why    string // what is wrong when code is set
}

// inspect reads a line's id and method without decoding it whole: it walks
// the tokens and skips nested values, so a request nested deeper than
// encoding/json's limit (10000) still yields its id. A line that is not
// one JSON object gets code set and id null, as JSON-RPC 2.0 requires.
func inspect(msg []byte) incoming {
	dec := json.NewDecoder(bytes.NewReader(msg))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return malformed(err)
	}
	if tok == json.Delim('{') {
		f, err := readFields(dec)
		if err == nil {
			err = atEnd(dec)
		}
		if err != nil {
			return malformed(err)
		}
		return f.classify()
	}
	if err := jsonrpc.Skip(dec, tok); err != nil {
		return malformed(err)
	}
	if err := atEnd(dec); err != nil {
		return malformed(err)
	}
	in := incoming{answer: true, id: null, code: invalidRequest, why: "a message must be one JSON object"}
	if tok == json.Delim('[') {
		in.why = "batches are not supported: send one message per line"
	}
	return in
}

// fields is what the top level of a message object says.
type fields struct {
	id                        json.RawMessage
	method                    string
	hasID, hasMethod, outcome bool // outcome: a result or error member
	badID, badMethod          bool
}

// readFields reads the members of an object whose opening brace dec has
// just returned, through its closing brace.
func readFields(dec *json.Decoder) (fields, error) {
	var f fields
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return f, err
		}
		v, err := dec.Token()
		if err != nil {
			return f, err
		}
		switch key {
		case "id":
			f.hasID = true
			f.id, f.badID = idOf(v)
		case "method":
			m, ok := v.(string)
			f.hasMethod, f.method, f.badMethod = true, m, !ok
		case "result", "error":
			f.outcome = true
		}
		if err := jsonrpc.Skip(dec, v); err != nil {
			return f, err
		}
	}
	_, err := dec.Token() // the closing brace
	return f, err
}

func (f fields) classify() incoming {
	switch {
	case f.hasMethod && !f.hasID && !f.badMethod:
		return incoming{} // a notification
	case !f.hasMethod && f.hasID && f.outcome:
		return incoming{} // a response to the server: never answered
	case f.badID:
		return incoming{answer: true, id: null, code: invalidRequest, why: "a request's id must be a string or a number, never null (MCP does not allow it; a message without an id is a notification, which gets no answer)"}
	case !f.hasID:
		return incoming{answer: true, id: null, code: invalidRequest, why: "a request needs a method, a string"}
	case !f.hasMethod || f.badMethod:
		return incoming{answer: true, id: f.id, code: invalidRequest, why: "a request needs a method, a string"}
	}
	return incoming{answer: true, id: f.id, method: f.method}
}

var null = json.RawMessage("null")

func malformed(err error) incoming {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return incoming{answer: true, id: null, code: parseError, why: "the line is not valid JSON (" + err.Error() + ")"}
}

// idOf encodes a decoded id token again; bad is set for an id that is not
// a string or a number. A null id is bad in a request (MCP does not allow
// it), and answered with id null.
func idOf(v json.Token) (id json.RawMessage, bad bool) {
	switch v := v.(type) {
	case nil:
		return null, true
	case json.Number:
		return json.RawMessage(v), false
	case string:
		b, _ := json.Marshal(v)
		return b, false
	}
	return null, true
}

// atEnd requires nothing but white space after the first value.
func atEnd(dec *json.Decoder) error {
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		if err == nil {
			err = errors.New("more than one value on the line")
		}
		return err
	}
	return nil
}

// isResponse reports whether a message from the daemon answers a request
// (it has an id and no method), as opposed to a notification.
func isResponse(msg []byte) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	return json.Unmarshal(msg, &m) == nil && len(m.ID) > 0 && m.Method == nil
}

// replyError answers a request the daemon did not answer; notifications
// and responses get no answer. Every answer carries the error envelope
// (jsonrpc.Refusal: a tool result for a tool call, else a JSON-RPC
// error's data): a line that is not a request gets INVALID_INPUT under
// the JSON-RPC code for it (id null when its id cannot be read); a
// request the daemon refused gets the daemon's words and code under the
// request's id; one that could not be delivered gets DAEMON_UNAVAILABLE
// (errors are data, so the agent can read it and retry).
func (s *Shim) replyError(msg []byte, cause error) {
	in := inspect(msg)
	if !in.answer {
		return
	}
	s.reply(s.errorReply(in, cause))
}

// reply writes a reply the shim made itself.
func (s *Shim) reply(msg map[string]any) {
	b, _ := json.Marshal(msg)
	if err := s.write(b); err != nil {
		s.cfg.Log.Printf("reply: %v", err)
	}
}

func (s *Shim) errorReply(in incoming, cause error) map[string]any {
	if in.code != 0 {
		return jsonrpc.Refusal(in.id, in.method, in.code, protocol.Refuse(protocol.RefusedInvalid, "workrail: %s.", in.why))
	}
	var wrong *wrongID
	if errors.As(cause, &wrong) {
		return wrong.refusal(in)
	}
	var se *statusError
	if errors.As(cause, &se) && se.code < http.StatusInternalServerError {
		return se.refusal(in)
	}
	why := "workrail: " + cause.Error() + " (log: " + s.cfg.Home.DaemonLog() + ")"
	r := protocol.DaemonUnavailable(why)
	if u := (*unanswered)(nil); errors.As(cause, &u) {
		r = protocol.DaemonLost(why)
	}
	return jsonrpc.Refusal(in.id, in.method, serverError, r.Error)
}

// tooLong answers a line over jsonrpc.MaxMessageBytes, of which head is
// the start: PAYLOAD_TOO_LARGE under its id when the start holds it.
func (s *Shim) tooLong(head []byte, n int64) {
	id, method, _ := jsonrpc.Peek(head)
	s.reply(jsonrpc.Refusal(id, method, invalidRequest, protocol.Refuse(protocol.RefusedTooLarge,
		"workrail: the message is %d bytes; a message may be at most %d bytes (a tool call's arguments at most %d): send less (shorter notes, fewer artifacts).",
		n, jsonrpc.MaxMessageBytes, protocol.MaxArgumentsBytes)))
}
