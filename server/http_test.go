package server

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/go-chi/chi/v5"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/store"
	"github.com/workrail/workrail/workflows"
)

const testToken = "secret-token"

// surfaces returns the TCP and socket handlers of a daemon whose tools
// run on an in-memory store, without listening anywhere.
func surfaces(t *testing.T) (tcp, socket http.Handler) {
	t.Helper()
	uc := execute.New(memstore.New(), executetest.Ring(t), executetest.Catalog(t, workflows.FS), workflow.Preferences{}, executetest.Clock, t.Logf)
	d := &Daemon{cfg: Config{Home: "/home/test/.local/share/workrail", Version: "test", Token: testToken, Tools: uc,
		Console: func(r chi.Router) {
			r.Get("/", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "console") })
			r.Post("/logout", Logout)
		},
		Static: fstest.MapFS{"static/app.css": {Data: []byte("body{}")}},
		API:    API{Admin: testAdmin{doctor: []store.Report{}}},
		Log:    slog.New(slog.DiscardHandler)}, url: "http://127.0.0.1:7421", owner: testOwner(t, executetest.Clock), notes: newNotifier()}
	mcpHTTP := mcpserver.NewStreamableHTTPServer(NewMCPServer(uc, protocol.Features{CheckpointWorkflow: true}, "test", slog.New(slog.DiscardHandler)), mcpserver.WithStateLess(true), mcpserver.WithEndpointPath("/mcp"))
	return d.router(7421, mcpHTTP), d.socketRouter(mcpHTTP)
}

func request(h http.Handler, method, path, auth, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, "http://127.0.0.1:7421"+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestRoutes(t *testing.T) {
	tcp, socket := surfaces(t)
	cases := []struct {
		name         string
		h            http.Handler
		method, path string
		auth         string
		want         int
	}{
		{"console without a credential", tcp, "GET", "/", "", 401},
		{"console with a wrong bearer", tcp, "GET", "/", "Bearer nope", 401},
		{"console with the bearer", tcp, "GET", "/", "Bearer " + testToken, 200},
		{"console's not-found page without a credential", tcp, "GET", "/nope", "", 401},
		{"console's not-found page with the bearer", tcp, "GET", "/nope", "Bearer " + testToken, 404},
		{"no health over tcp", tcp, "GET", "/health", "", 401},
		{"a login without a code", tcp, "GET", "/login", "", 401},
		{"a static file", tcp, "GET", "/static/app.css", "", 200},
		{"no folder listing", tcp, "GET", "/static/", "", 404},
		{"doctor without the bearer", tcp, "GET", "/api/doctor", "", 401},
		{"doctor with a wrong bearer", tcp, "GET", "/api/doctor", "Bearer nope", 401},
		{"doctor with the bearer", tcp, "GET", "/api/doctor", "Bearer " + testToken, 200},
		{"the bearer scheme in lower case", tcp, "GET", "/api/doctor", "bearer " + testToken, 200},
		{"another scheme", tcp, "GET", "/api/doctor", "Basic " + testToken, 401},
		{"mcp without the bearer", tcp, "POST", "/mcp", "", 401},
		{"no event stream over tcp without the bearer", tcp, "GET", "/mcp", "", 401},
		{"doctor over the socket", socket, "GET", "/api/doctor", "", 200},
		{"health over the socket", socket, "GET", "/health", "", 200},
		{"a login link over the socket", socket, "POST", "/api/login-link", "", 200},
		{"no login link over tcp", tcp, "POST", "/api/login-link", "Bearer " + testToken, 404},
		{"every login ended over the socket", socket, "POST", "/api/logout-all", "", 200},
		{"no ending every login over tcp", tcp, "POST", "/api/logout-all", "Bearer " + testToken, 404},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if rec := request(c.h, c.method, c.path, c.auth, ""); rec.Code != c.want {
				t.Fatalf("%s %s = %d; want %d\n%s", c.method, c.path, rec.Code, c.want, rec.Body)
			}
		})
	}
}

func TestConsoleResponsesCarrySecurityHeaders(t *testing.T) {
	tcp, _ := surfaces(t)
	h := request(tcp, "GET", "/", "Bearer "+testToken, "").Header()
	for k, want := range map[string]string{"X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin", "X-Frame-Options": "DENY"} {
		if h.Get(k) != want {
			t.Errorf("%s = %q; want %q", k, h.Get(k), want)
		}
	}
	for _, part := range []string{"script-src 'self'", "frame-ancestors 'none'", "default-src 'self'"} {
		if !strings.Contains(h.Get("Content-Security-Policy"), part) {
			t.Errorf("Content-Security-Policy %q lacks %q", h.Get("Content-Security-Policy"), part)
		}
	}
}

func TestHealthSaysWhoAnswers(t *testing.T) {
	_, socket := surfaces(t)
	var id Identity
	if err := json.Unmarshal(request(socket, "GET", "/health", "", "").Body.Bytes(), &id); err != nil {
		t.Fatal(err)
	}
	if id.Service != "workrail" || id.Home != "/home/test/.local/share/workrail" || id.PID == 0 || id.Version != "test" {
		t.Fatalf("identity = %+v", id)
	}
}

// What the MCP library would refuse opaquely, or read whole, is answered
// with the error envelope: tool calls get it as a tool result (with a
// pointer where one is known), other requests as a JSON-RPC error's data.
func TestGuardAnswersWhatTheLibraryCannot(t *testing.T) {
	tcp, socket := surfaces(t)
	call := func(args string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"start_workflow","arguments":` + args + `}}`
	}
	cases := []struct {
		name, body string
		want       []string // in the answer
	}{
		{"a number beyond float64", call(`{"workflowId":"wr.hello","context":{"x":1e400}}`),
			[]string{`"id":7`, `"isError":true`, `INVALID_INPUT`, `"pointer":"/context/x"`}},
		{"a 5,000-digit integer", call(`{"workflowId":"wr.hello","context":{"n":` + strings.Repeat("9", 5000) + `}}`),
			[]string{`"id":7`, `INVALID_INPUT`, `"pointer":"/context/n"`}},
		{"an integer past 2^53", call(`{"workflowId":"wr.hello","context":{"n":9007199254740993}}`),
			[]string{`"id":7`, `INVALID_INPUT`, `"pointer":"/context/n"`}},
		{"a batch", `[` + call(`{"workflowId":"wr.hello"}`) + `]`, []string{`"id":null`, `-32600`, `batches`, `"data":{`, `INVALID_INPUT`}},
		{"a body over the limit", `{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"start_workflow","arguments":{"workflowId":"` +
			strings.Repeat("x", maxBody) + `"}}}`, []string{`"id":"big"`, `"isError":true`, `PAYLOAD_TOO_LARGE`, `at most 262144 bytes`}},
		{"a ping over the limit", `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"` + strings.Repeat("x", maxBody) + `"}}`,
			[]string{`"id":3`, `-32600`, `"data":{`, `PAYLOAD_TOO_LARGE`}},
		{"1e400 in _meta", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"start_workflow","arguments":{"workflowId":"wr.hello"},"_meta":{"x":1e400}}}`,
			[]string{`"id":7`, `"isError":true`, `INVALID_INPUT`, `_meta`}},
		{"1e400 in a ping's _meta", `{"jsonrpc":"2.0","id":8,"method":"ping","params":{"_meta":{"x":1e400}}}`,
			[]string{`"id":8`, `-32600`, `"data":{`, `INVALID_INPUT`, `_meta`}},
		{"another JSON-RPC version", `{"jsonrpc":"1.0","id":9,"method":"tools/call","params":{"name":"start_workflow","arguments":{"workflowId":"wr.hello"}}}`,
			[]string{`"id":9`, `"isError":true`, `INVALID_INPUT`, `JSON-RPC version`}},
		{"nested deeper than the library decodes", call(`{"x":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`),
			[]string{`"id":7`, `"isError":true`, `INVALID_INPUT`}},
		{"an unknown tool", `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`,
			[]string{`"id":10`, `"isError":true`, `INVALID_INPUT`, `no_such_tool`}},
		{"an unknown method", `{"jsonrpc":"2.0","id":11,"method":"no/such"}`, []string{`"id":11`, `"data":{`, `INVALID_INPUT`}},
		{"a good call passes through", call(`{"workflowId":"wr.hello"}`), []string{`"id":7`, `"kind":"step"`}},
	}
	for _, c := range cases {
		for name, h := range map[string]http.Handler{"tcp": tcp, "socket": socket} {
			t.Run(c.name+"/"+name, func(t *testing.T) {
				rec := request(h, "POST", "/mcp", "Bearer "+testToken, c.body)
				body := rec.Body.String()
				if rec.Code != 200 {
					t.Fatalf("HTTP %d: %s", rec.Code, body)
				}
				for _, w := range c.want {
					if !strings.Contains(body, w) {
						t.Fatalf("answer lacks %s:\n%.600s", w, body)
					}
				}
			})
		}
	}
}

// A browser's POST from another site is refused before anything reads
// it, bearer or not (Sec-Fetch-Site; the Origin check alone misses a
// request that sends none).
func TestCrossSitePostsAreRefused(t *testing.T) {
	tcp, _ := surfaces(t)
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:7421/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	rec := httptest.NewRecorder()
	tcp.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Fatalf("cross-site POST = %d; want 403", rec.Code)
	}
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	rec = httptest.NewRecorder()
	tcp.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("same-origin POST = %d; want 200", rec.Code)
	}
}
