package server

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/protocol"
)

// The MCP library sees a tool call with its arguments taken out; the
// tool's handler gets them byte for byte as sent (a number past 2^53 and
// the spacing included), to parse once. Other messages pass unchanged.
func TestGuardHandsTheArgumentsOverAsSent(t *testing.T) {
	args := `{ "workflowId" : "wr.hello", "context": {"n": 9007199254740993, "s": "\u00e9", "a": [{"arguments": 1}]} }`
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"start_workflow","_meta":{"progressToken":1},"arguments":` + args + `}}`
	for _, c := range []struct {
		name, body, library, args string
	}{
		{"a tool call", call, strings.Replace(call, args, "{}", 1), args},
		{"a tool call without arguments", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_workflows"}}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_workflows"}}`, ""},
		{"another method", `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"arguments":{"x":1}}}`,
			`{"jsonrpc":"2.0","id":3,"method":"ping","params":{"arguments":{"x":1}}}`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var library, got []byte
			var ok bool
			h := guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				library, _ = io.ReadAll(r.Body)
				got, ok = argumentsOf(r.Context())
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
			}))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(c.body)))
			if string(library) != c.library {
				t.Errorf("the library got\n%s\nwant\n%s", library, c.library)
			}
			if ok != (c.args != "") || string(got) != c.args {
				t.Errorf("the handler got arguments %q (%v), want %q", got, ok, c.args)
			}
			if rec.Body.String() != `{"jsonrpc":"2.0","id":1,"result":{}}` {
				t.Errorf("the answer was not passed on as it was: %s", rec.Body)
			}
		})
	}
}

// A request whose id is null is one JSON-RPC answers (with id null) and
// MCP forbids: the guard answers it Invalid Request with the envelope.
// The library took it for a notification and answered nothing (202).
func TestNullIDIsAnInvalidRequest(t *testing.T) {
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"list_workflows","arguments":{}}}`,
	} {
		calls := newToolCalls(answering{}, protocol.Features{}, slog.New(slog.DiscardHandler), "")
		got := string(mcpPost(t, &answers{calls: calls, next: library(calls)}, msg))
		if !strings.Contains(got, `"id":null`) || !strings.Contains(got, `"code":-32600`) || !strings.Contains(got, `"code":"INVALID_INPUT"`) ||
			!strings.Contains(got, "never null") {
			t.Errorf("%s was answered %s", msg, got)
		}
	}
}

// An id the MCP library would answer under another value (it holds a
// number id as a double) is refused under the id as sent, for every
// method: a client never waits for an answer under an id it did not send.
func TestIDsTheLibraryCannotKeepAreRefused(t *testing.T) {
	calls := newToolCalls(answering{protocol.ListResult{Kind: protocol.KindWorkflows}}, protocol.Features{}, slog.New(slog.DiscardHandler), "")
	h := &answers{calls: calls, next: library(calls)}
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call","params":{"name":"list_workflows","arguments":{}}}`,
	} {
		got := string(mcpPost(t, h, msg))
		if !strings.Contains(got, `"id":9007199254740993`) || !strings.Contains(got, `"code":"INVALID_INPUT"`) || !strings.Contains(got, "2^53") {
			t.Errorf("%s was answered %s", msg, got)
		}
	}
	if got := string(mcpPost(t, h, `{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}`)); got != `{"jsonrpc":"2.0","id":9007199254740992,"result":{}}`+"\n" {
		t.Errorf("an id a double holds was answered %s", got)
	}
}
