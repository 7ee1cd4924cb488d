package server

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/server/home"
)

// mcpPost posts msg to h as a shim does (through the guard) and returns
// the answer's body.
func mcpPost(t *testing.T, h http.Handler, msg string, header ...string) []byte {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "http://localhost/mcp", strings.NewReader(msg))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	guard(h).ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("HTTP %d: %s", rec.Code, rec.Body)
	}
	return rec.Body.Bytes()
}

// library is the MCP library's endpoint running calls, as the daemon
// builds it behind answers.
func library(calls *toolCalls) http.Handler {
	return mcpserver.NewStreamableHTTPServer(mcpServer(calls, "test", true), mcpserver.WithStateLess(true), mcpserver.WithEndpointPath("/mcp"))
}

// A tool call answers answers writes the bytes the MCP library wrote for
// it (same members in the same order, same escapes), for every kind of
// result, with links and without, and a panicking tool as the library's
// recovery answered it; and it is logged in one line, as there.
func TestAnswersWriteTheLibrarysBytes(t *testing.T) {
	session := protocol.SessionRef{SessionID: 7, RunID: 2}
	text := "Do <this> & \"that\"\u2028 then\n\ttell me. é\n"
	results := []struct {
		name string
		r    protocol.Result
	}{
		{"step", protocol.StepResult{Kind: protocol.KindStep, Text: text, Session: session, StateToken: "st1<x>", Warnings: []protocol.Warning{}}},
		{"blocked", protocol.BlockedResult{Kind: protocol.KindBlocked, Text: text, Session: session}},
		{"complete", protocol.CompleteResult{Kind: protocol.KindComplete, Text: text, Session: session}},
		{"error", withAbout(protocol.NewError(engine.Errorf(engine.CodeTokenScopeMismatch, "the ackToken <belongs> to another step")), 7)},
		{"list", protocol.ListResult{Kind: protocol.KindWorkflows, Text: text}},
		{"candidates", protocol.ResumeResult{Kind: protocol.KindCandidates, Text: text,
			Candidates: []protocol.Candidate{{Session: session}, {Session: protocol.SessionRef{SessionID: 9, RunID: 1}}}}},
		{"panic", nil},
	}
	for _, links := range []string{"", "http://127.0.0.1:7421"} {
		for _, tc := range results {
			for _, id := range []string{`1`, `"req-<1>"`} {
				t.Run(tc.name+"/links="+links+"/id="+id, func(t *testing.T) {
					var logs bytes.Buffer
					calls := newToolCalls(answering{tc.r}, protocol.Features{}, slog.New(slog.NewJSONHandler(&logs, nil)), links)
					msg := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"continue_workflow","arguments":{"stateToken":"st1"}}}`
					want := mcpPost(t, library(calls), msg)
					logs.Reset()
					passed := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { t.Error("answers passed a plain call on") })
					got := mcpPost(t, &answers{calls: calls, next: passed}, msg)
					if !bytes.Equal(got, want) {
						t.Errorf("answers wrote\n%s\nthe library\n%s", got, want)
					}
					if n := strings.Count(logs.String(), "\n"); n != 1 {
						t.Errorf("%d log lines, want 1:\n%s", n, &logs)
					}
				})
			}
		}
	}
}

// What answers does not answer itself goes on to the library unchanged:
// other methods, tools it does not serve, calls of another protocol era
// or an unknown version, ids that are neither strings nor numbers, and
// messages that are not JSON-RPC 2.0. (A null id the guard refuses:
// TestNullIDIsAnInvalidRequest.)
func TestAnswersPassOnWhatTheyDoNotAnswer(t *testing.T) {
	call := func(id, name, extra string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + name + `","arguments":{}` + extra + `}}`
	}
	for _, tc := range []struct {
		name   string
		msg    string
		header []string
		taken  bool
	}{
		{"plain", call("1", "list_workflows", ""), nil, true},
		{"a known version", call("1", "list_workflows", ""), []string{"MCP-Protocol-Version", "2025-06-18"}, true},
		{"a legacy _meta", call("1", "list_workflows", `,"_meta":{"progressToken":5}`), nil, true},
		{"ping", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil, false},
		{"a gated-off tool", call("1", "checkpoint_workflow", ""), nil, false},
		{"an unknown tool", call("1", "rm_rf", ""), nil, false},
		{"an unknown version", call("1", "list_workflows", ""), []string{"MCP-Protocol-Version", "1999-01-01"}, false},
		{"a modern version", call("1", "list_workflows", ""), []string{"MCP-Protocol-Version", "2026-07-28"}, false},
		{"a modern _meta", call("1", "list_workflows", `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`), nil, false},
		{"a malformed _meta", call("1", "list_workflows", `,"_meta":5`), nil, false},
		{"an object id", call(`{"a":1}`, "list_workflows", ""), nil, false},
		{"JSON-RPC 1.0", strings.Replace(call("1", "list_workflows", ""), `"2.0"`, `"1.0"`, 1), nil, false},
		{"no arguments", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_workflows"}}`, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := newToolCalls(answering{protocol.ListResult{Kind: protocol.KindWorkflows}}, protocol.Features{}, slog.New(slog.DiscardHandler), "")
			passed := false
			next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				passed = true
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
			})
			mcpPost(t, &answers{calls: calls, next: next}, tc.msg, tc.header...)
			if passed == tc.taken {
				t.Errorf("answered itself: %v, want %v", !passed, tc.taken)
			}
		})
	}
}

// waiting is a Tools whose continue_workflow waits for its context to
// end and says so, as the use cases answer a cancelled write.
type waiting struct {
	answering
	started chan struct{}
}

func (w waiting) Continue(ctx context.Context, _ []byte) protocol.Result {
	w.started <- struct{}{}
	<-ctx.Done()
	return protocol.NewError(engine.Errorf(engine.CodeCancelled, "cancelled: %v", ctx.Err()))
}

// A notifications/cancelled stops only the call of its own client: two
// clients (sessions) run a call under the same id, one cancels it, and
// only that client's call ends, whether answers runs the call or the
// library does (a call without arguments); the other's ends only when it
// cancels too. A cancel from a client without a session stops nothing.
// The cancelled call is answered CANCELLED and logged at info.
func TestCancelStopsOnlyItsClientsCall(t *testing.T) {
	calls := map[string]string{
		"answers": `{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"continue_workflow","arguments":{}}}`,
		"library": `{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"continue_workflow"}}`,
	}
	for runner, msg := range calls {
		for _, id := range []string{`4`, `"call-4"`} {
			t.Run(runner+"/"+id, func(t *testing.T) {
				var logs syncLog
				tools := waiting{started: make(chan struct{}, 2)}
				calls := newToolCalls(tools, protocol.Features{}, slog.New(slog.NewJSONHandler(&logs, nil)), "")
				h := &answers{calls: calls, next: library(calls)}
				done := map[string]chan []byte{"a": make(chan []byte, 1), "b": make(chan []byte, 1)}
				for client, ch := range done {
					go func() {
						ch <- mcpPost(t, h, strings.ReplaceAll(msg, "ID", id), home.SessionHeader, client)
					}()
					<-tools.started
				}
				cancel := func(header ...string) {
					req := httptest.NewRequest(http.MethodPost, "http://localhost/mcp",
						strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+id+`,"reason":"the user stopped it"}}`))
					req.Header.Set("Content-Type", "application/json")
					for i := 0; i+1 < len(header); i += 2 {
						req.Header.Set(header[i], header[i+1])
					}
					rec := httptest.NewRecorder()
					guard(h).ServeHTTP(rec, req)
					if rec.Code != http.StatusAccepted {
						t.Errorf("the cancel was answered %d %s, want 202", rec.Code, rec.Body)
					}
				}
				cancel() // no session: names nobody's call
				cancel(home.SessionHeader, "a")
				reply := within(t, done["a"])
				if !strings.Contains(string(reply), `"code":"CANCELLED"`) {
					t.Errorf("the cancelled call answered %s", reply)
				}
				select {
				case reply := <-done["b"]:
					t.Fatalf("the other client's call with the same id was stopped: %s", reply)
				case <-time.After(100 * time.Millisecond):
				}
				cancel(home.SessionHeader, "b")
				within(t, done["b"])
				if strings.Contains(logs.String(), `"level":"ERROR"`) || strings.Count(logs.String(), `"msg":"tool call cancelled"`) != 2 {
					t.Errorf("the cancelled calls were logged:\n%s", logs.String())
				}
			})
		}
	}
}

// within is what ch delivers, failing the test after 10 s.
func within(t *testing.T, ch chan []byte) []byte {
	t.Helper()
	select {
	case b := <-ch:
		return b
	case <-time.After(10 * time.Second):
		t.Fatal("the call was not cancelled")
		return nil
	}
}

// syncLog is a log buffer written by concurrent calls.
type syncLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A client that initializes without a session id is given one; one that
// sends its own keeps it.
func TestInitializeMintsAClientSession(t *testing.T) {
	calls := newToolCalls(answering{}, protocol.Features{}, slog.New(slog.DiscardHandler), "")
	h := guard(&answers{calls: calls, next: library(calls)})
	post := func(msg string, header ...string) http.Header {
		req := httptest.NewRequest(http.MethodPost, "http://localhost/mcp", strings.NewReader(msg))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Header()
	}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	a, b := post(init).Get(home.SessionHeader), post(init).Get(home.SessionHeader)
	if len(a) != 32 || len(b) != 32 || a == b {
		t.Errorf("initialize minted %q and %q; want two different 128-bit ids", a, b)
	}
	if got := post(init, home.SessionHeader, "mine").Get(home.SessionHeader); got != "" {
		t.Errorf("a client with a session was given %q", got)
	}
	if got := post(`{"jsonrpc":"2.0","id":2,"method":"ping"}`).Get(home.SessionHeader); got != "" {
		t.Errorf("a ping was given a session %q", got)
	}
}
