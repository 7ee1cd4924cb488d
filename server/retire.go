package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
)

// activity is what keeps a daemon in use: connections open to its socket
// (a shim keeps its connections open for as long as its IDE window runs)
// and MCP requests being served on either listener.
type activity struct {
	mu       sync.Mutex
	conns    int
	requests int
}

// connState counts the socket's open connections; it is the socket
// server's http.Server.ConnState.
func (a *activity) connState(_ net.Conn, s http.ConnState) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch s {
	case http.StateNew:
		a.conns++
	case http.StateClosed, http.StateHijacked:
		a.conns--
	}
}

// track counts an MCP request while it is served.
func (a *activity) track(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.requests++
		a.mu.Unlock()
		defer func() {
			a.mu.Lock()
			a.requests--
			a.mu.Unlock()
		}()
		next.ServeHTTP(w, r)
	})
}

// othersThan reports what uses the daemon besides the caller's own
// connection to the socket.
func (a *activity) othersThan() (conns, requests int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.conns - 1, a.requests
}

// retire answers POST /retire, which only the socket serves: a shim of a
// newer version asks this daemon to stop so it can start its own. The
// daemon agrees only when nothing else uses it, so a window in use is
// never cut off; having agreed, it asks for ActionRetire.
func (d *Daemon) retire(w http.ResponseWriter, r *http.Request) {
	var ask struct {
		Version string `json:"version"`
	}
	json.NewDecoder(io.LimitReader(r.Body, 4096)).Decode(&ask)
	if conns, requests := d.act.othersThan(); conns > 0 || requests > 0 {
		http.Error(w, fmt.Sprintf("in use: %d other connections to the socket, %d MCP requests in flight", conns, requests), http.StatusConflict)
		return
	}
	d.cfg.Log.Info("retiring: a newer workrail asked, and nothing else uses this daemon", "asked", ask.Version, "version", d.cfg.Version)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, "retiring\n")
	d.Request(ActionRetire)
}
