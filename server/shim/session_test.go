package shim_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/workrail/workrail/server/home"
)

// sessions is an MCP endpoint that answers initialize with a new session
// id, as the daemon does, and records the session id every request
// carries.
type sessions struct {
	mu   sync.Mutex
	sent []string // method=session of each request, in order
	n    int
}

func (s *sessions) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	method := "other"
	if bytes.Contains(b, []byte(`"initialize"`)) {
		method = "initialize"
		s.n++
		w.Header().Set(home.SessionHeader, fmt.Sprintf("s%d", s.n))
	}
	s.sent = append(s.sent, method+"="+r.Header.Get(home.SessionHeader))
	s.mu.Unlock()
	r.Body = io.NopCloser(bytes.NewReader(b))
	echo("sessions").ServeHTTP(w, r)
}

func (s *sessions) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.sent)
}

// A shim sends the session id the daemon gave its client at initialize
// with every request after, so the daemon can tell its cancels from
// another client's; a second shim gets and sends its own.
func TestShimSendsItsClientsSession(t *testing.T) {
	h := newHome(t)
	d := &sessions{}
	serve(t, h, "workrail", string(h), d)
	for _, want := range []string{"s1", "s2"} {
		out := &syncBuffer{}
		s := newShim(t, h, cannotStart(), out)
		in, feed := io.Pipe()
		done := make(chan error, 1)
		go func() { done <- s.Run(t.Context(), in) }()
		fmt.Fprintln(feed, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
		waitFor(t, func() bool { return strings.Contains(out.String(), `"id":1`) })
		for id := 2; id < 5; id++ {
			fmt.Fprintf(feed, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"x","arguments":{}}}`+"\n", id)
		}
		fmt.Fprintln(feed, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`)
		feed.Close()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		got := d.requests()
		d.mu.Lock()
		d.sent = nil
		d.mu.Unlock()
		wantSent := []string{"initialize=", "other=" + want, "other=" + want, "other=" + want, "other=" + want}
		slices.Sort(got)
		if !slices.Equal(got, wantSent) {
			t.Errorf("the daemon saw %q, want %q", got, wantSent)
		}
	}
}
