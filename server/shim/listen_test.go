package shim_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/workrail/workrail/server/home"
)

// streaming serves h's socket as a daemon with a notification stream: each
// GET /mcp gets one notification and is then held open until the test
// ends; POST /mcp answers with echo.
func streaming(t *testing.T, h home.Dir, note string) *atomic.Int32 {
	t.Helper()
	var streams atomic.Int32
	os.Remove(h.Socket())
	ln, err := net.Listen("unix", h.Socket())
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, `{"service":"workrail","home":%q,"pid":%d,"version":"test"}`, string(h), os.Getpid())
	})
	mux.Handle("POST /mcp", echo("streaming"))
	mux.HandleFunc("GET /mcp", func(w http.ResponseWriter, r *http.Request) {
		streams.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: message\ndata: %s\n\n", note)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return &streams
}

// Once the client has initialized, the daemon's notifications reach
// stdout as lines of their own; before, the shim opens no stream.
func TestNotificationsReachStdout(t *testing.T) {
	h := newHome(t)
	const note = `{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}`
	streams := streaming(t, h, note)
	out := &syncBuffer{}
	s := newShim(t, h, cannotStart(), out)
	in, feed := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.Run(t.Context(), in) }()
	fmt.Fprintln(feed, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	waitFor(t, func() bool { return strings.Contains(out.String(), `"id":1`) })
	if n := streams.Load(); n != 0 {
		t.Fatalf("%d streams opened before initialized", n)
	}
	fmt.Fprintln(feed, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	waitFor(t, func() bool { return strings.Contains(out.String(), note+"\n") })
	if n := streams.Load(); n != 1 {
		t.Fatalf("%d streams opened, want 1", n)
	}
	feed.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not end with stdin while a stream was open")
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}

// A daemon with no room for another stream answers 503 with Retry-After:
// the shim asks again after that wait, not at once, and does not give up.
func TestStreamRefusedForRoomIsOpenedLater(t *testing.T) {
	h := newHome(t)
	const note = `{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}`
	var gets atomic.Int32
	var refusedAt, openedAt atomic.Int64
	os.Remove(h.Socket())
	ln, err := net.Listen("unix", h.Socket())
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, `{"service":"workrail","home":%q,"pid":%d,"version":"test"}`, string(h), os.Getpid())
	})
	mux.Handle("POST /mcp", echo("streaming"))
	mux.HandleFunc("GET /mcp", func(w http.ResponseWriter, r *http.Request) {
		if gets.Add(1) == 1 {
			refusedAt.Store(time.Now().UnixNano())
			w.Header().Set("Retry-After", "1")
			http.Error(w, "no room", http.StatusServiceUnavailable)
			return
		}
		openedAt.Store(time.Now().UnixNano())
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: message\ndata: %s\n\n", note)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	out := &syncBuffer{}
	s := newShim(t, h, cannotStart(), out)
	in, feed := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.Run(t.Context(), in) }()
	fmt.Fprintln(feed, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	fmt.Fprintln(feed, `{"jsonrpc":"2.0","id":1,"method":"ping"}`) // a message reaching the daemon does not hurry it
	waitFor(t, func() bool { return strings.Contains(out.String(), note+"\n") })
	if n := gets.Load(); n != 2 {
		t.Errorf("%d GET /mcp, want the refused one and one more", n)
	}
	if wait := time.Duration(openedAt.Load() - refusedAt.Load()); wait < time.Second {
		t.Errorf("asked again after %v, want the second Retry-After named", wait)
	}
	feed.Close()
	<-done
}
