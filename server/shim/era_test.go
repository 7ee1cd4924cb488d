package shim_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// headersSeen records the MCP headers of each message a daemon was sent,
// by the message's method, and passes the message on to next.
type headersSeen struct {
	mu   sync.Mutex
	by   map[string]http.Header
	next http.Handler
}

func (h *headersSeen) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var m struct{ Method string }
	json.Unmarshal(body, &m)
	kept := http.Header{}
	for _, k := range []string{mcp.HeaderProtocolVersion, mcp.HeaderMethod, mcp.HeaderName} {
		if v := r.Header.Get(k); v != "" {
			kept.Set(k, v)
		}
	}
	h.mu.Lock()
	h.by[m.Method] = kept
	h.mu.Unlock()
	r.Body = io.NopCloser(bytes.NewReader(body))
	h.next.ServeHTTP(w, r)
}

// A 2026-07-28 message over stdio reaches the daemon with the headers an
// HTTP client of that version sends (its version, method and name), so
// the daemon serves it; a message of an earlier version gets none.
func TestModernMessagesCarryTheirHTTPHeaders(t *testing.T) {
	h := newHome(t)
	seen := &headersSeen{by: map[string]http.Header{}, next: mcpGo()}
	serve(t, h, "workrail", string(h), seen)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	input := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_workflows","arguments":{},` + meta + `}}`,
		`{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"wr.hello",` + meta + `}}`,
		`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"workrail://sessions/ses_1",` + meta + `}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"progressToken":1}}}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	lines := run(t, newShim(t, h, cannotStart(), &out), &out, input)
	if len(lines) != 5 {
		t.Fatalf("%d replies to 5 requests:\n%s", len(lines), &out)
	}
	want := map[string]map[string]string{
		"server/discover": {mcp.HeaderMethod: "server/discover"},
		"tools/call":      {mcp.HeaderMethod: "tools/call", mcp.HeaderName: "list_workflows"},
		"prompts/get":     {mcp.HeaderMethod: "prompts/get", mcp.HeaderName: "wr.hello"},
		"resources/read":  {mcp.HeaderMethod: "resources/read", mcp.HeaderName: "workrail://sessions/ses_1"},
	}
	for method, hs := range want {
		got := seen.by[method]
		hs[mcp.HeaderProtocolVersion] = "2026-07-28"
		if len(got) != len(hs) {
			t.Errorf("%s: headers %v, want %v", method, got, hs)
		}
		for k, v := range hs {
			if got.Get(k) != v {
				t.Errorf("%s: %s is %q, want %q", method, k, got.Get(k), v)
			}
		}
	}
	if got := seen.by["tools/list"]; len(got) != 0 {
		t.Errorf("a message of an earlier version was sent with %v", got)
	}
	// The MCP library, which checks them, serves the discovery.
	for _, l := range lines {
		if r := mustReply(t, l); string(r.ID) == "1" && (r.Error != nil || r.Result == nil) {
			t.Errorf("server/discover was refused: %s", l)
		}
	}
}

// An answer that is an event stream reaches stdout event by event, as
// the daemon sends it: a 2026-07-28 subscriptions/listen is acknowledged
// at once and its notifications follow, not held until it ends.
func TestEventStreamRepliesArriveAsTheyCome(t *testing.T) {
	h := newHome(t)
	release := make(chan struct{})
	serve(t, h, "workrail", string(h), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\"}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
		io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n")
	}))
	out := &syncBuffer{}
	s := newShim(t, h, cannotStart(), out)
	done := make(chan error, 1)
	go func() {
		done <- s.Run(t.Context(), strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{}}`+"\n"))
	}()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), "acknowledged") {
		if time.Now().After(deadline) {
			t.Fatalf("the first event was not written while the stream was open; stdout: %q", out)
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], `"id":7,"result"`) {
		t.Fatalf("stdout %q; want the acknowledgement, then the answer", lines)
	}
}
