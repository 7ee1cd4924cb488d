package server

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The daemon answers requests statelessly, and the shim posts each line
// on its own, so a message the daemon sends unasked (a notification)
// travels on a stream of its own: GET /mcp with Accept text/event-stream,
// which a shim holds open once its client has initialized and copies to
// stdout, and which an HTTP client may hold as streamable HTTP allows.
// A client of protocol 2026-07-28 asks for them instead with a
// subscriptions/listen request, whose answer is the stream: the MCP
// library serves it, acknowledging what it subscribed, and the notifier
// hands it the same notifications (broadcast), counts it as a listener
// and ends it at shutdown (listening).

// listChanged is the notification sent when the prompts may have changed.
const listChanged = `{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}`

// listChangedMethod is listChanged's method.
const listChangedMethod = "notifications/prompts/list_changed"

// notifier fans notifications out to the open streams.
type notifier struct {
	mu     sync.Mutex
	subs   map[chan string]struct{}
	listen int // subscriptions/listen requests open
	closed bool
	done   chan struct{} // closed at shutdown: every stream ends
	// broadcast sends a notification to the subscriptions/listen streams
	// the MCP library holds; nil when there are none to reach.
	broadcast func(method string)
}

func newNotifier() *notifier {
	return &notifier{subs: map[chan string]struct{}{}, done: make(chan struct{})}
}

// subscribe opens a stream's queue; ok is false after shutdown.
func (n *notifier) subscribe() (ch chan string, ok bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil, false
	}
	ch = make(chan string, 8)
	n.subs[ch] = struct{}{}
	return ch, true
}

func (n *notifier) unsubscribe(ch chan string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.subs, ch)
}

func (n *notifier) listeners() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.subs) + n.listen
}

// send queues msg on every stream; a stream whose queue is full already
// has a list_changed waiting, which says the same. The subscriptions/listen
// streams get method.
func (n *notifier) send(msg, method string) {
	n.mu.Lock()
	for ch := range n.subs {
		select {
		case ch <- msg:
		default:
		}
	}
	listen := n.listen > 0 && n.broadcast != nil
	n.mu.Unlock()
	if listen {
		n.broadcast(method)
	}
}

// listening serves a subscriptions/listen request with next, as a
// listener of n whose request ends at shutdown: the MCP library holds it
// open until its context ends.
func (n *notifier) listening(w http.ResponseWriter, r *http.Request, next http.Handler) {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		http.Error(w, "the daemon is shutting down", http.StatusServiceUnavailable)
		return
	}
	n.listen++
	n.mu.Unlock()
	defer func() {
		n.mu.Lock()
		n.listen--
		n.mu.Unlock()
	}()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go func() {
		select {
		case <-n.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	next.ServeHTTP(w, r.WithContext(ctx))
}

// close ends every stream, for shutdown.
func (n *notifier) close() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.closed {
		n.closed = true
		close(n.done)
	}
}

// streamRetry is how long a client refused a stream for want of room is
// asked to wait before it asks again (Retry-After, seconds).
const streamRetry = 30

// stream answers GET /mcp on a listener whose open streams slots counts:
// an event stream of notifications for a client that accepts one;
// anything else is refused as before. A stream leaves the listener's
// connection cap (leaveGate) for slots, so streams never keep a request
// waiting; over the cap it is refused with 503 and Retry-After. It sends
// a comment every lim.StreamKeepAlive when it has nothing to say, each
// write bounded by that interval (a client that stopped reading is cut),
// and ends after lim.StreamIdle without a notification, for the client to
// open it again. The connection closes with the stream.
func (n *notifier) stream(slots chan struct{}, lim Limits) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if _, canFlush := w.(http.Flusher); !strings.Contains(r.Header.Get("Accept"), "text/event-stream") || !canFlush {
			noStream(w, r)
			return
		}
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
		default:
			w.Header().Set("Retry-After", strconv.Itoa(streamRetry))
			w.Header().Set("Connection", "close") // a refused client holds nothing
			http.Error(w, fmt.Sprintf("%d event streams are open, as many as this daemon serves at once: open yours again in %d s", cap(slots), streamRetry),
				http.StatusServiceUnavailable)
			return
		}
		ch, ok := n.subscribe()
		if !ok {
			w.Header().Set("Retry-After", "1") // the daemon that follows has room
			http.Error(w, "the daemon is shutting down", http.StatusServiceUnavailable)
			return
		}
		defer n.unsubscribe(ch)
		leaveGate(r)
		n.serve(w, r, ch, lim)
	}
}

// serve writes the stream's events until it ends.
func (n *notifier) serve(w http.ResponseWriter, r *http.Request, ch chan string, lim Limits) {
	rc := http.NewResponseController(w)
	write := func(format string, args ...any) bool {
		rc.SetWriteDeadline(time.Now().Add(lim.StreamKeepAlive))
		if _, err := fmt.Fprintf(w, format, args...); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Connection", "close") // it has left the listener's cap
	w.WriteHeader(http.StatusOK)
	if rc.Flush() != nil {
		return
	}
	keepAlive := time.NewTicker(lim.StreamKeepAlive)
	defer keepAlive.Stop()
	idle := time.NewTimer(lim.StreamIdle)
	defer idle.Stop()
	for {
		select {
		case msg := <-ch:
			if !write("event: message\ndata: %s\n\n", msg) {
				return
			}
			idle.Reset(lim.StreamIdle)
		case <-keepAlive.C:
			if !write(": keep-alive\n\n") {
				return
			}
		case <-idle.C:
			return
		case <-r.Context().Done():
			return
		case <-n.done:
			return
		}
	}
}

// watcher notices when the prompts a client listed change on disk: while
// a stream is open, it lists them again every interval for each folder a
// client listed them from (the registry re-reads only files whose size
// or time changed), and sends list_changed when one differs from what
// was last listed there.
type watcher struct {
	lib      Library
	notes    *notifier
	interval time.Duration

	mu   sync.Mutex
	last map[string][32]byte // workdir → digest of its prompts as last listed or seen
}

// maxWatched bounds the folders watched; the oldest is dropped first.
const maxWatched = 16

func newWatcher(lib Library, notes *notifier, interval time.Duration) *watcher {
	return &watcher{lib: lib, notes: notes, interval: interval, last: map[string][32]byte{}}
}

// seen records the prompts a client was just answered for workdir.
func (w *watcher) seen(workdir string, d [32]byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.last[workdir]; !ok && len(w.last) >= maxWatched {
		for k := range w.last { // any one: a dropped folder's clients see changes on their next list
			delete(w.last, k)
			break
		}
	}
	w.last[workdir] = d
}

// run checks every interval until the notifier closes.
func (w *watcher) run() {
	t := time.NewTicker(w.interval)
	defer t.Stop()
	for {
		select {
		case <-w.notes.done:
			return
		case <-t.C:
			if w.notes.listeners() > 0 && w.changed() {
				w.notes.send(listChanged, listChangedMethod)
			}
		}
	}
}

// changed lists the prompts of every watched folder again and reports
// whether any differs from what was last recorded for it.
func (w *watcher) changed() bool {
	w.mu.Lock()
	dirs := make([]string, 0, len(w.last))
	for d := range w.last {
		dirs = append(dirs, d)
	}
	w.mu.Unlock()
	changed := false
	for _, d := range dirs {
		now := digest(w.lib.Prompts(d))
		w.mu.Lock()
		if prev, ok := w.last[d]; ok && prev != now {
			w.last[d] = now
			changed = true
		}
		w.mu.Unlock()
	}
	return changed
}
