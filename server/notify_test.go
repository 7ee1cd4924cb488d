package server

import (
	"bufio"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/workflows"
)

// openStream opens GET /mcp as an event stream on h's socket and returns
// the lines it reads, closed when the stream ends.
func openStream(t *testing.T, c *http.Client) <-chan string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "http://localhost/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET /mcp = %d %q; want an event stream", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	lines := make(chan string, 16)
	go func() {
		defer resp.Body.Close()
		defer close(lines)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines
}

// A notification reaches every open stream as one server-sent event, and
// shutdown ends the streams rather than waiting for them.
func TestNotificationStream(t *testing.T) {
	h := tempHome(t)
	d, err := startListening(t, h, 0, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := socketClient(h)
	a, b := openStream(t, c), openStream(t, c)
	for d.notes.listeners() != 2 {
		time.Sleep(time.Millisecond)
	}
	d.notes.send(listChanged, listChangedMethod)
	for _, s := range []<-chan string{a, b} {
		if got := <-s; got != "event: message" {
			t.Fatalf("first line %q", got)
		}
		if got := <-s; got != "data: "+listChanged {
			t.Fatalf("data line %q", got)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := d.Shutdown(ctx); err != nil || ctx.Err() != nil {
		t.Fatalf("shutdown with streams open: %v (deadline: %v)", err, ctx.Err())
	}
	for _, s := range []<-chan string{a, b} {
		for range s {
		}
	}
}

// prompted is a library whose prompts the test changes.
type prompted struct {
	Library
	mu      sync.Mutex
	prompts []protocol.Prompt
}

func (p *prompted) Prompts(string) []protocol.Prompt {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.prompts
}

func (p *prompted) set(ps ...protocol.Prompt) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.prompts = ps
}

// The watcher reports a change only for a folder a client listed, and
// only once per change.
func TestWatcherSeesPromptChanges(t *testing.T) {
	lib := &prompted{}
	lib.set(protocol.Prompt{Name: "user.a"})
	w := newWatcher(lib, newNotifier(), time.Hour)
	if w.changed() {
		t.Fatal("a change reported before any client listed")
	}
	w.seen("/work", digest(lib.Prompts("/work")))
	if w.changed() {
		t.Fatal("a change reported with nothing changed")
	}
	lib.set(protocol.Prompt{Name: "user.a"}, protocol.Prompt{Name: "user.b"})
	if !w.changed() {
		t.Fatal("a new workflow went unnoticed")
	}
	if w.changed() {
		t.Fatal("the same change reported twice")
	}
	lib.set(protocol.Prompt{Name: "user.a", Description: "edited"})
	if !w.changed() {
		t.Fatal("an edited description went unnoticed")
	}
	for i := range maxWatched + 4 {
		w.seen(strings.Repeat("/d", i+1), digest(nil))
	}
	if n := len(w.last); n > maxWatched {
		t.Fatalf("%d folders watched, want at most %d", n, maxWatched)
	}
}

// A 2026-07-28 client's subscriptions/listen is acknowledged by the MCP
// library, hears list_changed as a GET stream does, and ends at shutdown
// rather than holding the stop up (the client listens again once a
// daemon answers).
func TestModernListenHearsListChanged(t *testing.T) {
	h := tempHome(t)
	tools := execute.New(memstore.New(), executetest.Ring(t), executetest.Catalog(t, workflows.FS), workflow.Preferences{}, executetest.Clock, t.Logf)
	d, err := Start(Config{Home: h, Version: "1.0.0", Token: testToken, Tools: tools, Library: shelf{},
		Console: func(chi.Router) {}, Static: fstest.MapFS{}, API: API{Admin: testAdmin{}},
		Log: slog.New(slog.DiscardHandler), Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	msg, hdr := modernCall("subscriptions/listen", `"notifications":{"promptsListChanged":true}`)
	req, _ := http.NewRequest(http.MethodPost, "http://localhost/mcp", strings.NewReader(msg))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := socketClient(h).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := make(chan string, 8)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				events <- data
			}
		}
	}()
	next := func(want string) {
		t.Helper()
		select {
		case e := <-events:
			if !strings.Contains(e, want) || !strings.Contains(e, `"io.modelcontextprotocol/subscriptionId":3`) {
				t.Fatalf("event %s; want %s, tagged with the subscription", e, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no %s within 5 s", want)
		}
	}
	next(`"method":"notifications/subscriptions/acknowledged"`)
	if d.notes.listeners() != 1 {
		t.Fatalf("%d listeners while a subscriptions/listen is open, want 1", d.notes.listeners())
	}
	d.notes.send(listChanged, listChangedMethod)
	next(`"method":"notifications/prompts/list_changed"`)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := d.Shutdown(ctx); err != nil || ctx.Err() != nil {
		t.Fatalf("shutdown with a listen open: %v (deadline: %v)", err, ctx.Err())
	}
	for e := range events {
		t.Errorf("an event after shutdown: %s", e)
	}
}
