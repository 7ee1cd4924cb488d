package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/server/jsonrpc"
)

// answers runs a call of one of WorkRail's tools itself, ahead of the MCP
// library, and writes the JSON-RPC answer's bytes (writeAnswer): the
// library would build a map of the result, encode it by reflection and
// scan the whole answer again, which for a step's answer of a few KB
// costs as much as the engine's rehydrate. Only a plain call is answered
// here: a tools/call with a string or number id, a tool calls serves, the
// arguments the guard took out (withArguments), and no sign of a protocol
// version the library treats otherwise (the 2026-07-28 era, or one it
// does not know). Everything else, and every other method, goes on to
// next, which answers as before.
//
// Every notifications/cancelled goes through answers first. It names a
// call by the client's session (clientOf) and the call's id together: two
// clients number their requests alike, so an id alone could stop another
// client's call. A cancel ends the context of the call answers runs for
// that client and id, and goes on to the library, which keys the calls it
// runs by the same session and id. A cancel from a client without a
// session names no call it can tell apart from another client's, and is
// dropped (cancelling is advisory in MCP; such a client can still end its
// request).
type answers struct {
	calls    *toolCalls
	next     http.Handler
	inflight sync.Map // a running call's callKey → its *context.CancelFunc
}

// callKey names a running call: its client's session and its id (idKey).
type callKey struct{ client, id string }

// toolCall is the part of a tools/call message answers reads. The
// arguments are not in it: the guard took them out.
type toolCall struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		Name string    `json:"name"`
		Meta *mcp.Meta `json:"_meta"`
	} `json:"params"`
}

func (a *answers) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		rpcReply(w, jsonrpc.Refusal(nil, "", jsonrpc.ParseError, protocol.Refuse(protocol.RefusedInvalid, "the request could not be read: %v", err)))
		return
	}
	args, ok := argumentsOf(r.Context())
	var c toolCall
	if !ok || !a.plain(r, body, &c) {
		if isCancel(body) && !a.cancel(clientOf(r), body) {
			w.WriteHeader(http.StatusAccepted) // a notification's answer
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		a.next.ServeHTTP(w, r)
		return
	}
	ctx, cancel := context.WithCancel(protocol.WithRetryKey(r.Context(), r.Header.Get(home.RetryKeyHeader)))
	defer cancel()
	if client := clientOf(r); client != "" {
		key, entry := callKey{client, string(c.ID)}, &cancel // a pointer, which compares
		a.inflight.Store(key, entry)
		defer a.inflight.CompareAndDelete(key, entry)
	}
	buf := answerBufs.Get().(*bytes.Buffer)
	buf.Reset()
	a.answer(ctx, c, args, r.Header.Get(home.WorkdirHeader), buf)
	// With its length the answer goes out whole, not in chunks.
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(http.StatusOK)
	w.Write(buf.Bytes())
	if buf.Cap() <= maxPooled {
		answerBufs.Put(buf)
	}
}

// plain reports whether body, read into c, is a call answers takes.
func (a *answers) plain(r *http.Request, body []byte, c *toolCall) (ok bool) {
	if ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || ct != "application/json" {
		return false
	}
	if v := r.Header.Get(mcp.HeaderProtocolVersion); v != "" && (!mcp.IsValidProtocolVersion(v) || mcp.IsModernProtocol(v)) {
		return false
	}
	if json.Unmarshal(body, c) != nil || c.JSONRPC != "2.0" || c.Method != "tools/call" || !a.calls.serves(c.Params.Name) {
		return false
	}
	if c.ID, ok = idKey(c.ID); !ok {
		return false
	}
	return c.Params.Meta == nil || !mcp.IsModernProtocol(c.Params.Meta.ProtocolVersion())
}

// idKey is a string or number id as answers writes it and keys its
// running calls: a string as encoding/json writes it (as the library
// does), a number as sent.
func idKey(id json.RawMessage) (json.RawMessage, bool) {
	switch {
	case len(id) > 0 && id[0] == '"':
		var s string
		if json.Unmarshal(id, &s) != nil {
			return nil, false
		}
		b, _ := json.Marshal(s)
		return b, true
	case len(id) > 0 && (id[0] == '-' || id[0] >= '0' && id[0] <= '9'):
		return id, true
	}
	return nil, false
}

// isCancel reports whether body may be a notifications/cancelled; cancel
// reads it.
func isCancel(body []byte) bool { return bytes.Contains(body, []byte(`"notifications/cancelled"`)) }

// cancel ends the call of client that the notifications/cancelled in
// body names, when answers runs it, and reports whether the cancel is to
// go on to the library: not when it comes from a client without a
// session, whose calls cannot be told apart from another client's.
func (a *answers) cancel(client string, body []byte) (passOn bool) {
	var n struct {
		Method string `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &n) != nil || n.Method != "notifications/cancelled" {
		return true // not a cancel after all
	}
	if client == "" {
		return false
	}
	if id, ok := idKey(n.Params.RequestID); ok {
		if f, ok := a.inflight.LoadAndDelete(callKey{client, string(id)}); ok {
			(*f.(*context.CancelFunc))()
		}
	}
	return true
}

// answer runs the call and writes its answer to buf. A tool that panics
// is answered as the library's recovery answers it, through the guard:
// an INTERNAL error result. An answer over protocol.MaxAnswerBytes is
// given up as soon as it is known to be, and answered
// protocol.AnswerTooLarge instead.
func (a *answers) answer(ctx context.Context, c toolCall, args []byte, workdir string, buf *bytes.Buffer) {
	name := protocol.ToolName(c.Params.Name)
	defer func() {
		if p := recover(); p != nil {
			buf.Reset()
			json.NewEncoder(buf).Encode(jsonrpc.Refusal(c.ID, c.Method, jsonrpc.InternalError, protocol.Refuse(protocol.RefusedInternal,
				"the request was refused: %s.", fmt.Sprintf("panic recovered in %s tool handler: %v", name, p))))
		}
	}()
	r := a.calls.call(ctx, name, args, workdir)
	err := writeAnswer(buf, c.ID, r, a.calls.console != "")
	var big *tooLarge
	if errors.As(err, &big) {
		a.calls.tooLarge(ctx, name, big.size)
		buf.Reset()
		err = writeAnswer(buf, c.ID, protocol.NewError(protocol.AnswerTooLarge(name, big.size)), false)
	}
	if err != nil { // a result that does not encode is a bug
		panic(err)
	}
}

// tooLarge is an answer given up at size bytes, over
// protocol.MaxAnswerBytes.
type tooLarge struct{ size int }

func (e *tooLarge) Error() string {
	return fmt.Sprintf("server: an answer of at least %d bytes, over the limit of %d", e.size, protocol.MaxAnswerBytes)
}

// answerBufs hold answers while they are written, so that a call
// allocates none.
var answerBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooled bounds the buffers answerBufs keeps: a rare large answer
// (a long workflow list) is left to the collector.
const maxPooled = 256 << 10

// writeAnswer writes the JSON-RPC answer carrying r as a CallToolResult
// to buf, the same JSON the MCP library writes for toolResult(r, links):
// the text as content[0].text, the resource links after it, isError when
// r is an error, and r itself as structuredContent. Members are written
// in the order the library's encoding sorts them, and strings escaped as
// encoding/json escapes them (HTML characters included), so the bytes are
// the library's too; r is encoded once, over its struct, straight into buf.
// An answer over protocol.MaxAnswerBytes is a *tooLarge, found once the
// text is written, before r is.
func writeAnswer(buf *bytes.Buffer, id json.RawMessage, r protocol.Result, links bool) error {
	enc := json.NewEncoder(buf)  // escapes HTML, as json.Marshal does
	value := func(v any) error { // v's JSON, without the newline Encode ends it with
		if err := enc.Encode(v); err != nil {
			return err
		}
		buf.Truncate(buf.Len() - 1)
		return nil
	}
	buf.WriteString(`{"jsonrpc":"2.0","id":`)
	buf.Write(id)
	buf.WriteString(`,"result":{"content":[{"type":"text","text":`)
	if err := value(r.RenderedText()); err != nil {
		return err
	}
	if buf.Len() > protocol.MaxAnswerBytes {
		return &tooLarge{buf.Len()}
	}
	buf.WriteByte('}')
	if links {
		for _, ref := range runsOf(r) {
			buf.WriteByte(',')
			if err := value(resourceLink{Type: "resource_link", URI: protocol.SessionURI(ref.SessionID), Name: ref.SessionID.String(),
				Description: "WorkRail session " + ref.SessionID.String() + " (run " + ref.RunID.String() + ") as Markdown", MIMEType: markdown}); err != nil {
				return err
			}
		}
	}
	buf.WriteByte(']')
	if r.ResultKind() == protocol.KindError {
		buf.WriteString(`,"isError":true`)
	}
	buf.WriteString(`,"structuredContent":`)
	if err := value(r); err != nil {
		return err
	}
	buf.WriteString("}}\n")
	if buf.Len() > protocol.MaxAnswerBytes {
		return &tooLarge{buf.Len()}
	}
	return nil
}

// resourceLink is a resource_link content item, its members in the order
// the MCP library writes them.
type resourceLink struct {
	Type        string `json:"type"`
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Description string `json:"description"`
	MIMEType    string `json:"mimeType"`
}
