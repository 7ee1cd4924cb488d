package shim_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/server/jsonrpc"
	"github.com/workrail/workrail/server/shim"
)

// ---- fixtures -------------------------------------------------------------

// newHome returns an empty home folder whose socket path fits in sun_path.
func newHome(t *testing.T) home.Dir {
	t.Helper()
	d := t.TempDir()
	if len(d)+len("/daemon.sock") > 100 {
		var err error
		if d, err = os.MkdirTemp("", "wr-shim-"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
	}
	if err := os.MkdirAll(filepath.Join(d, "logs"), 0o700); err != nil {
		t.Fatal(err)
	}
	return home.Dir(d)
}

// fakeDaemon serves a home's socket the way the daemon does: GET /health
// names the service and home, POST /mcp goes to mcp.
type fakeDaemon struct {
	conns atomic.Int32 // connections accepted
	posts atomic.Int32 // POST /mcp requests
}

// serve binds h's socket (replacing a stale one, as the daemon does) and
// serves it until the test ends, as a daemon of service for idHome.
func serve(t *testing.T, h home.Dir, service, idHome string, mcp http.Handler) *fakeDaemon {
	t.Helper()
	f, err := listen(t, h, service, idHome, mcp)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// listen is serve for any goroutine: it reports instead of failing.
func listen(t *testing.T, h home.Dir, service, idHome string, mcp http.Handler) (*fakeDaemon, error) {
	f := &fakeDaemon{}
	os.Remove(h.Socket())
	ln, err := net.Listen("unix", h.Socket())
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"service": service, "home": idHome, "pid": os.Getpid(), "version": "test"})
	})
	mux.HandleFunc("POST /mcp", func(w http.ResponseWriter, r *http.Request) {
		f.posts.Add(1)
		mcp.ServeHTTP(w, r)
	})
	srv := &http.Server{Handler: mux, ConnState: func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			f.conns.Add(1)
		}
	}}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return f, nil
}

// echo answers every request with an empty result naming tag, and every
// notification with 202.
func echo(tag string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		b, _ := io.ReadAll(r.Body)
		if json.Unmarshal(b, &m) != nil || len(m.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"daemon": tag}})
	})
}

// mcpGo is the MCP endpoint the daemon mounts (mcp-go, stateless), with no
// tools: it answers what it cannot parse with HTTP 400.
func mcpGo() http.Handler {
	return mcpserver.NewStreamableHTTPServer(mcpserver.NewMCPServer("fake", "1"), mcpserver.WithStateLess(true))
}

// starter is a StartDaemon that counts its calls and runs start.
type starter struct {
	calls atomic.Int32
	start func() (<-chan struct{}, error)
}

func (s *starter) StartDaemon() (<-chan struct{}, error) {
	s.calls.Add(1)
	return s.start()
}

// startsFake is a starter whose daemon binds the socket after delay and
// answers as this home's daemon, tagging its replies "started".
func startsFake(t *testing.T, h home.Dir, delay time.Duration) *starter {
	return &starter{start: func() (<-chan struct{}, error) {
		up := make(chan struct{})
		go func() {
			defer close(up)
			time.Sleep(delay)
			if _, err := listen(t, h, "workrail", string(h), echo("started")); err != nil {
				t.Errorf("the started daemon: %v", err)
			}
		}()
		t.Cleanup(func() { <-up })
		return make(chan struct{}), nil // never exits
	}}
}

func cannotStart() *starter {
	return &starter{start: func() (<-chan struct{}, error) { return nil, errors.New("no daemon in this test") }}
}

// syncBuffer collects the shim's log.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newShim(t *testing.T, h home.Dir, st *starter, out io.Writer) *shim.Shim {
	logs := &syncBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("shim log:\n%s", logs)
		}
	})
	return shim.New(shim.Config{Home: h, StartDaemon: st.StartDaemon, StartTimeout: 5 * time.Second,
		Log: log.New(logs, "shim: ", 0)}, out)
}

// run feeds input to s until it ends and returns the lines s wrote. It
// fails the test if Run has not returned within 15s.
func run(t *testing.T, s *shim.Shim, out *bytes.Buffer, input string) []string {
	t.Helper()
	lines, err := tryRun(t, s, out, input)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// tryRun is run for any goroutine.
func tryRun(t *testing.T, s *shim.Shim, out *bytes.Buffer, input string) ([]string, error) {
	done := make(chan error, 1)
	go func() { done <- s.Run(t.Context(), strings.NewReader(input)) }()
	select {
	case err := <-done:
		if err != nil {
			return nil, fmt.Errorf("Run: %w", err)
		}
	case <-time.After(15 * time.Second):
		return nil, errors.New("Run did not return within 15s: the shim hangs")
	}
	text := strings.TrimSuffix(out.String(), "\n")
	if text == "" {
		return nil, nil
	}
	return strings.Split(text, "\n"), nil
}

// reply is one JSON-RPC reply line.
type reply struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		IsError bool `json:"isError"`
		Daemon  string
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func mustReply(t *testing.T, s string) reply {
	t.Helper()
	var r reply
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatalf("reply %q is not JSON: %v", s, err)
	}
	return r
}

func deep(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

const ping = `{"jsonrpc":"2.0","id":1,"method":"ping"}`

// ---- 1. every request line gets exactly one reply -------------------------

func TestEveryRequestLineIsAnswered(t *testing.T) {
	cases := []struct {
		name string
		line string
		id   string // the reply's id, raw JSON; "" when no reply is due
		code int    // the JSON-RPC error code; 0: any error, or a tool result with isError
	}{
		{"too deep for encoding/json", `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":` + deep(10000) + `}}`, `7`, 0},
		{"deep tool call", `{"jsonrpc":"2.0","id":"t","method":"tools/call","params":{"name":"x","arguments":{"a":` + deep(10001) + `}}}`, `"t"`, 0},
		{"truncated", `{"jsonrpc":"2.0","id":5,"method":"ping"`, `null`, -32700},
		{"not JSON", `hello`, `null`, -32700},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, `null`, -32600},
		{"scalar", `42`, `null`, -32600},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, `null`, -32600},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, ``, 0},
		{"deep notification", `{"jsonrpc":"2.0","method":"notifications/x","params":` + deep(10001) + `}`, ``, 0},
		{"response", `{"jsonrpc":"2.0","id":9,"result":{}}`, ``, 0},
	}
	daemons := []struct {
		name  string
		setup func(t *testing.T, h home.Dir) *starter
	}{
		// The daemon's MCP endpoint answers what it cannot parse with 400.
		{"daemon refuses", func(t *testing.T, h home.Dir) *starter {
			serve(t, h, "workrail", string(h), mcpGo())
			return cannotStart()
		}},
		// No daemon, and none can be started: nothing is delivered.
		{"undeliverable", func(t *testing.T, h home.Dir) *starter { return cannotStart() }},
	}
	for _, d := range daemons {
		t.Run(d.name, func(t *testing.T) {
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					h := newHome(t)
					var out bytes.Buffer
					s := newShim(t, h, d.setup(t, h), &out)
					t0 := time.Now()
					lines := run(t, s, &out, tc.line+"\n")
					if tc.id == "" {
						if len(lines) != 0 {
							t.Fatalf("a line that is no request was answered: %q", lines)
						}
						return
					}
					if len(lines) != 1 {
						t.Fatalf("got %d reply lines, want exactly 1: %q", len(lines), lines)
					}
					r := mustReply(t, lines[0])
					if string(r.ID) != tc.id {
						t.Errorf("reply id = %s, want %s: %s", r.ID, tc.id, lines[0])
					}
					isErr := r.Error != nil || (r.Result != nil && r.Result.IsError)
					if !isErr || (tc.code != 0 && (r.Error == nil || r.Error.Code != tc.code)) {
						t.Errorf("reply %s, want an error with code %d", lines[0], tc.code)
					}
					t.Logf("answered in %v: %.200s", time.Since(t0).Round(time.Microsecond), lines[0])
				})
			}
		})
	}
}

// A request the daemon refuses (HTTP 400) gets the daemon's own words,
// and its JSON-RPC code, under the request's id, in the error envelope:
// a tool call as a tool result, any other request as the error's data;
// not DAEMON_UNAVAILABLE: retrying would not help.
func TestRefusedRequestKeepsTheDaemonsError(t *testing.T) {
	h := newHome(t)
	serve(t, h, "workrail", string(h), mcpGo())
	var out bytes.Buffer
	s := newShim(t, h, cannotStart(), &out)
	lines := run(t, s, &out, `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"arguments":`+deep(10000)+`}}`+"\n"+
		`{"jsonrpc":"2.0","id":12,"method":"ping","params":{"x":`+deep(10000)+`}}`+"\n")
	if len(lines) != 2 {
		t.Fatalf("got %q, want two replies", lines)
	}
	byID := map[string]envelopeReply{}
	for _, l := range lines {
		r := mustEnvelope(t, l)
		byID[string(r.ID)] = r
	}
	if r := byID["11"]; r.Result == nil || !r.Result.IsError || r.Result.Structured.Error.Code != "INVALID_INPUT" ||
		!strings.Contains(r.Result.Structured.Error.Message, "not valid json") {
		t.Errorf("tool call: %+v, want a tool result with INVALID_INPUT and the daemon's words", r)
	}
	if r := byID["12"]; r.Error == nil || r.Error.Code != -32700 || r.Error.Data.Error.Code != "INVALID_INPUT" {
		t.Errorf("ping: %+v, want the daemon's -32700 with the envelope as its data", r)
	}
}

// envelopeReply is a reply that carries the error envelope, as a tool
// result or as a JSON-RPC error's data.
type envelopeReply struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		IsError    bool     `json:"isError"`
		Structured envelope `json:"structuredContent"`
	} `json:"result"`
	Error *struct {
		Code int      `json:"code"`
		Data envelope `json:"data"`
	} `json:"error"`
}

type envelope struct {
	Kind  string `json:"kind"`
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// code is the envelope's error code, wherever the reply carries it.
func (r envelopeReply) code() string {
	switch {
	case r.Result != nil && r.Result.IsError:
		return r.Result.Structured.Error.Code
	case r.Error != nil:
		return r.Error.Data.Error.Code
	}
	return ""
}

func mustEnvelope(t *testing.T, s string) envelopeReply {
	t.Helper()
	var r envelopeReply
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatalf("reply %q is not JSON: %v", s, err)
	}
	return r
}

// A line over the message limit is answered PAYLOAD_TOO_LARGE, under its
// id when the line's start holds it (else null), without reaching the
// daemon; the lines after it are served as usual.
func TestOverlongLineIsRefusedWithTheEnvelope(t *testing.T) {
	pad := strings.Repeat("x", jsonrpc.MaxMessageBytes)
	cases := []struct {
		name, line, id string
		tool           bool
	}{
		{"tool call, id first", `{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"start_workflow","arguments":{"workflowId":"` + pad + `"}}}`, "21", true},
		{"ping, id first", `{"jsonrpc":"2.0","id":"p","method":"ping","params":{"x":"` + pad + `"}}`, `"p"`, false},
		{"id after the cut", `{"jsonrpc":"2.0","method":"tools/call","params":{"x":"` + pad + `"},"id":22}`, "null", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHome(t)
			serve(t, h, "workrail", string(h), echo("d"))
			var out bytes.Buffer
			s := newShim(t, h, cannotStart(), &out)
			lines := run(t, s, &out, tc.line+"\n"+ping+"\n")
			if len(lines) != 2 {
				t.Fatalf("got %d lines, want 2: %.300q", len(lines), lines)
			}
			var r envelopeReply
			for _, l := range lines {
				if !strings.Contains(l, `"id":1,`) && !strings.Contains(l, `"id":1}`) {
					r = mustEnvelope(t, l)
				}
			}
			var e envelope
			switch {
			case tc.tool && r.Result != nil && r.Result.IsError:
				e = r.Result.Structured
			case !tc.tool && r.Error != nil && r.Error.Code == -32600:
				e = r.Error.Data
			default:
				t.Fatalf("reply %.300q, want a tool result for a tool call, else a JSON-RPC error", lines)
			}
			if string(r.ID) != tc.id || e.Error.Code != "PAYLOAD_TOO_LARGE" {
				t.Errorf("reply id %s code %q, want %s PAYLOAD_TOO_LARGE", r.ID, e.Error.Code, tc.id)
			}
		})
	}
}

// ---- 2. a daemon is known by its identity, not by a pid -------------------

func TestStaleDaemonJSONStartsADaemonAtOnce(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, h home.Dir)
	}{
		{"live unrelated pid, no socket", func(t *testing.T, h home.Dir) {}},
		{"live unrelated pid, stale socket", func(t *testing.T, h home.Dir) {
			ln, err := net.Listen("unix", h.Socket())
			if err != nil {
				t.Fatal(err)
			}
			ln.(*net.UnixListener).SetUnlinkOnClose(false)
			ln.Close()
		}},
		{"socket answered for another home", func(t *testing.T, h home.Dir) {
			serve(t, h, "workrail", "/elsewhere", echo("wrong home"))
		}},
		{"socket answered by another service", func(t *testing.T, h home.Dir) {
			serve(t, h, "other", string(h), echo("wrong service"))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHome(t)
			// daemon.json names a pid that runs but is no daemon: this test.
			if err := h.WriteInfo(home.Info{PID: os.Getpid(), Socket: h.Socket(), URL: "http://127.0.0.1:1"}); err != nil {
				t.Fatal(err)
			}
			tc.setup(t, h)
			st := startsFake(t, h, 0)
			var out bytes.Buffer
			s := newShim(t, h, st, &out)
			t0 := time.Now()
			lines := run(t, s, &out, ping+"\n")
			took := time.Since(t0)
			t.Logf("ping answered in %v", took.Round(time.Microsecond))
			if n := st.calls.Load(); n != 1 {
				t.Errorf("StartDaemon called %d times, want 1", n)
			}
			if len(lines) != 1 {
				t.Fatalf("got %q, want one reply", lines)
			}
			if r := mustReply(t, lines[0]); r.Result == nil || r.Result.Daemon != "started" {
				t.Errorf("reply %s, want one from the daemon the shim started", lines[0])
			}
			// The old shim waited its whole StartTimeout (5s here) for the
			// pid in daemon.json to answer; this is no timing benchmark.
			if took >= 5*time.Second {
				t.Errorf("took %v: the shim waited out its start timeout for a stale daemon.json", took)
			}
		})
	}
}

func TestRunningDaemonIsUsed(t *testing.T) {
	for _, viaLink := range []bool{false, true} {
		name := map[bool]string{false: "same path", true: "home through a symlink"}[viaLink]
		t.Run(name, func(t *testing.T) {
			h := newHome(t)
			idHome := string(h)
			if viaLink {
				idHome = filepath.Join(t.TempDir(), "link")
				if err := os.Symlink(string(h), idHome); err != nil {
					t.Fatal(err)
				}
			}
			serve(t, h, "workrail", idHome, echo("running"))
			st := &starter{start: func() (<-chan struct{}, error) { return nil, errors.New("must not start") }}
			var out bytes.Buffer
			s := newShim(t, h, st, &out)
			lines := run(t, s, &out, ping+"\n")
			if n := st.calls.Load(); n != 0 {
				t.Errorf("StartDaemon called %d times with a daemon running", n)
			}
			if len(lines) != 1 || mustReply(t, lines[0]).Result == nil || mustReply(t, lines[0]).Result.Daemon != "running" {
				t.Errorf("got %q, want the running daemon's reply", lines)
			}
		})
	}
}

func TestConcurrentShimsStartOneDaemon(t *testing.T) {
	h := newHome(t)
	if err := h.WriteInfo(home.Info{PID: os.Getpid(), Socket: h.Socket()}); err != nil {
		t.Fatal(err)
	}
	st := startsFake(t, h, 100*time.Millisecond)
	const n = 8
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out bytes.Buffer
			s := newShim(t, h, st, &out)
			lines, err := tryRun(t, s, &out, ping+"\n")
			var r reply
			if err != nil || len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &r) != nil || r.Result == nil {
				t.Errorf("shim %d got %q (%v), want a result", i, lines, err)
			}
		}()
	}
	wg.Wait()
	if got := st.calls.Load(); got != 1 {
		t.Errorf("%d shims started a daemon, want 1", got)
	}
}

func TestWaitsForTheDaemonItStarted(t *testing.T) {
	h := newHome(t)
	st := startsFake(t, h, 500*time.Millisecond)
	var out bytes.Buffer
	s := newShim(t, h, st, &out)
	lines := run(t, s, &out, ping+"\n")
	if len(lines) != 1 || mustReply(t, lines[0]).Result == nil {
		t.Fatalf("got %q, want the started daemon's result", lines)
	}
}

func TestDaemonThatExitsIsReportedAtOnce(t *testing.T) {
	h := newHome(t)
	st := &starter{start: func() (<-chan struct{}, error) {
		exited := make(chan struct{})
		close(exited)
		return exited, nil
	}}
	var out bytes.Buffer
	s := newShim(t, h, st, &out)
	t0 := time.Now()
	lines := run(t, s, &out, ping+"\n")
	if len(lines) != 1 {
		t.Fatalf("got %q, want one reply", lines)
	}
	r := mustReply(t, lines[0])
	if string(r.ID) != "1" || r.Error == nil || !strings.Contains(r.Error.Message, "did not come up") {
		t.Errorf("reply %s, want id 1 with an error saying the daemon did not come up", lines[0])
	}
	if took := time.Since(t0); took >= 5*time.Second {
		t.Errorf("took %v: the shim waited for a daemon that had exited", took)
	}
}

// ---- 3. a shim whose stdin closes touches no daemon -----------------------

func TestClosedStdinTouchesNoDaemon(t *testing.T) {
	for _, running := range []bool{false, true} {
		name := map[bool]string{false: "no daemon", true: "daemon running"}[running]
		t.Run(name, func(t *testing.T) {
			h := newHome(t)
			var f *fakeDaemon
			if running {
				f = serve(t, h, "workrail", string(h), echo("running"))
			}
			st := startsFake(t, h, 0)
			var out bytes.Buffer
			s := newShim(t, h, st, &out)
			if lines := run(t, s, &out, ""); len(lines) != 0 {
				t.Errorf("wrote %q", lines)
			}
			if n := st.calls.Load(); n != 0 {
				t.Errorf("started a daemon %d times with nothing to forward", n)
			}
			if f != nil && f.conns.Load() != 0 {
				t.Errorf("connected to the daemon %d times with nothing to forward", f.conns.Load())
			}
		})
	}
}

// A daemon that answers under another id than the request's (a bug, or
// an id its MCP library rounds to a double) does not leave the request
// unanswered: the shim answers it under its own id with the envelope,
// INTERNAL for the daemon's fault and INVALID_INPUT for an id the library
// cannot hold, and writes no line under the wrong id.
func TestAnswerUnderAnotherIDIsReplaced(t *testing.T) {
	offByOne := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID int `json:"id"`
		}
		json.NewDecoder(r.Body).Decode(&m)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"result":{}}`, m.ID+1)
	})
	for _, tc := range []struct {
		name   string
		daemon http.Handler
		line   string
		id     string
		code   string
	}{
		{"a daemon's bug", offByOne, `{"jsonrpc":"2.0","id":7,"method":"ping"}`, `7`, "INTERNAL"},
		{"a tool call", offByOne, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{}}}`, `7`, "INTERNAL"},
		{"an id past 2^53", mcpGo(), `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, `9007199254740993`, "INVALID_INPUT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHome(t)
			serve(t, h, "workrail", string(h), tc.daemon)
			var out bytes.Buffer
			lines := run(t, newShim(t, h, cannotStart(), &out), &out, tc.line+"\n")
			if len(lines) != 1 {
				t.Fatalf("%d lines, want the one answer: %q", len(lines), lines)
			}
			e := mustEnvelope(t, lines[0])
			if string(e.ID) != tc.id || e.code() != tc.code {
				t.Errorf("answered %s, want id %s with %s", lines[0], tc.id, tc.code)
			}
		})
	}
}
