package jsonrpc_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/server/jsonrpc"
)

func TestPeek(t *testing.T) {
	cases := []struct {
		name, msg, id, method string
		whole                 bool
	}{
		{"whole", `{"jsonrpc":"2.0","id":7,"method":"ping"}`, `7`, "ping", true},
		{"string id after params", `{"method":"tools/call","params":{"a":[1,{"id":9}]},"id":"x"}`, `"x"`, "tools/call", true},
		{"cut after the id", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"a":"xxx`, `7`, "tools/call", false},
		{"cut before the id", `{"method":"ping","params":{"a":"xxx`, ``, "ping", false},
		{"deeper than encoding/json decodes", `{"id":3,"method":"ping","params":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`, `3`, "ping", true},
		{"trailing garbage", `{"id":3,"method":"ping"} x`, `3`, "ping", false},
		{"a batch", `[{"id":3,"method":"ping"}]`, ``, "", false},
		{"a null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, `null`, "ping", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id, method, whole := jsonrpc.Peek([]byte(c.msg))
			if string(id) != c.id || method != c.method || whole != c.whole {
				t.Errorf("Peek = %s %q %v, want %s %q %v", id, method, whole, c.id, c.method, c.whole)
			}
		})
	}
}

// A tool call with a known id is refused with a tool result; anything
// else with a JSON-RPC error whose data is the same envelope.
func TestRefusal(t *testing.T) {
	e := protocol.Refuse(protocol.RefusedTooLarge, "too big")
	cases := []struct {
		name, id, method, want string
	}{
		{"tool call", `4`, "tools/call", `{"id":4,"jsonrpc":"2.0","result":{"content":[{"text":"# Error: PAYLOAD_TOO_LARGE\nretry: not_retryable\n\n## What went wrong\ntoo big\n","type":"text"}],"isError":true,"structuredContent":{"kind":"error","text":"# Error: PAYLOAD_TOO_LARGE\nretry: not_retryable\n\n## What went wrong\ntoo big\n","error":{"code":"PAYLOAD_TOO_LARGE","message":"too big","retry":{"kind":"not_retryable"}}}}}`},
		{"tool call, id unknown", ``, "tools/call", `{"error":{"code":-32600,"data":{"kind":"error","text":"# Error: PAYLOAD_TOO_LARGE\nretry: not_retryable\n\n## What went wrong\ntoo big\n","error":{"code":"PAYLOAD_TOO_LARGE","message":"too big","retry":{"kind":"not_retryable"}}},"message":"too big"},"id":null,"jsonrpc":"2.0"}`},
		{"ping", `"p"`, "ping", `{"error":{"code":-32600,"data":{"kind":"error","text":"# Error: PAYLOAD_TOO_LARGE\nretry: not_retryable\n\n## What went wrong\ntoo big\n","error":{"code":"PAYLOAD_TOO_LARGE","message":"too big","retry":{"kind":"not_retryable"}}},"message":"too big"},"id":"p","jsonrpc":"2.0"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var id json.RawMessage
			if c.id != "" {
				id = json.RawMessage(c.id)
			}
			b, err := json.Marshal(jsonrpc.Refusal(id, c.method, jsonrpc.InvalidRequest, e))
			if err != nil || string(b) != c.want {
				t.Errorf("Refusal = %s (%v)\nwant      %s", b, err, c.want)
			}
		})
	}
}

// An id comes back as sent when it is a string or a number a double
// holds; ids are the same when their values are.
func TestIDsKeptAndCompared(t *testing.T) {
	for _, c := range []struct {
		id   string
		kept bool
	}{
		{`1`, true}, {`"9007199254740993"`, true}, {`null`, true}, {`-0`, true}, {`1.5`, true}, {`0.1`, true}, {`1e2`, true},
		{`9007199254740992`, true}, {`-9007199254740992`, true},
		{`9007199254740993`, false}, {`12345678901234567890123`, false}, {`1e400`, false}, {`0.10000000000000000001`, false},
	} {
		if got := jsonrpc.KeepsID(json.RawMessage(c.id)); got != c.kept {
			t.Errorf("KeepsID(%s) = %v, want %v", c.id, got, c.kept)
		}
	}
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{`1`, `1`, true}, {`1e2`, `100`, true}, {`1.0`, `1`, true}, {`-0`, `0`, true}, {`"a"`, `"a"`, true}, {`null`, `null`, true},
		{`9007199254740993`, `9007199254740992`, false}, {`"1"`, `1`, false}, {`null`, `0`, false}, {`"a"`, `"b"`, false},
	} {
		if got := jsonrpc.SameID(json.RawMessage(c.a), json.RawMessage(c.b)); got != c.same {
			t.Errorf("SameID(%s, %s) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}
