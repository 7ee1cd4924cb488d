package server

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// Limits bound what connections can hold of the daemon, per kind of
// connection. The TCP listener is open to every local user, so a flood
// there must not take the file descriptors the shims need, nor one user's
// connections the Console's owner: each listener has its own cap, each
// local user its own share of TCP, and a connection that sends nothing is
// closed. An event stream (GET /mcp) is held for as long as its client
// runs, so streams have caps of their own and leave the listener's: a
// request (a tool call, `workrail status`, `workrail stop`, a new shim's
// /health) never waits behind streams.
type Limits struct {
	// TCPConns and SocketConns cap the connections served at once on the
	// loopback port and on the shims' unix socket, streams left out; more
	// wait in the kernel's backlog.
	TCPConns, SocketConns int
	// TCPPeerConns caps the TCP connections of one local user (the owner
	// of the connecting socket); more are closed as they arrive.
	TCPPeerConns int
	// TCPStreams and SocketStreams cap the event streams open at once on
	// each listener; more are answered 503 with Retry-After.
	TCPStreams, SocketStreams int
	// HeaderTimeout closes a connection that has not sent a request's
	// headers this long after it opened (or began a request).
	HeaderTimeout time.Duration
	// TCPBody bounds reading a request's body on TCP, from when its
	// handler starts, so a body sent a byte at a time cannot hold a
	// connection. Handling it (a long tool call) is not bounded.
	TCPBody time.Duration
	// TCPIdle closes a TCP connection idle this long between requests.
	// The socket has no idle timeout: a shim keeps a connection open for
	// as long as it runs, which is how retiring knows it is in use, and
	// only this user can connect there.
	TCPIdle time.Duration
	// StreamKeepAlive is how often a stream with nothing to say sends a
	// comment, and how long a write to a stream may take: a client that
	// has stopped reading is cut.
	StreamKeepAlive time.Duration
	// StreamIdle ends a stream that carried no notification this long;
	// a live client opens it again (the shim does at once), so a slot
	// held by one that has stopped is given back.
	StreamIdle time.Duration
}

// maxHeaderBytes bounds a request's headers on TCP (Go's default is 1 MB):
// the Console's cookie and a bearer token are well under it.
const maxHeaderBytes = 64 << 10

// DefaultLimits: a browser opens six connections to a host at most, and
// a shim a few and one stream; neither timeout bounds a request in
// progress, so a long tool call, doctor or import is never cut.
func DefaultLimits() Limits {
	return Limits{TCPConns: 256, SocketConns: 512, TCPPeerConns: 64, TCPStreams: 32, SocketStreams: 256,
		HeaderTimeout: 10 * time.Second, TCPBody: time.Minute, TCPIdle: time.Minute,
		StreamKeepAlive: 15 * time.Second, StreamIdle: 10 * time.Minute}
}

// orDefaults is l with every field left zero taken from DefaultLimits.
func (l Limits) orDefaults() Limits {
	d := DefaultLimits()
	or := func(v *int, def int) {
		if *v == 0 {
			*v = def
		}
	}
	orDur := func(v *time.Duration, def time.Duration) {
		if *v == 0 {
			*v = def
		}
	}
	or(&l.TCPConns, d.TCPConns)
	or(&l.SocketConns, d.SocketConns)
	or(&l.TCPPeerConns, d.TCPPeerConns)
	or(&l.TCPStreams, d.TCPStreams)
	or(&l.SocketStreams, d.SocketStreams)
	orDur(&l.HeaderTimeout, d.HeaderTimeout)
	orDur(&l.TCPBody, d.TCPBody)
	orDur(&l.TCPIdle, d.TCPIdle)
	orDur(&l.StreamKeepAlive, d.StreamKeepAlive)
	orDur(&l.StreamIdle, d.StreamIdle)
	return l
}

// limitListener accepts at most n connections at a time: Accept waits
// for one of them to close, or to become a stream (leaveGate), first.
// With peers, a local user over its share has its connection closed as
// it arrives.
type limitListener struct {
	net.Listener
	slots chan struct{}
	peers *peerCount // nil: no per-user share
	done  chan struct{}
	once  sync.Once
}

func limitListen(ln net.Listener, n int, peers *peerCount) net.Listener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, n), peers: peers, done: make(chan struct{})}
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		select {
		case l.slots <- struct{}{}:
		case <-l.done:
			return nil, net.ErrClosed
		}
		c, err := l.Listener.Accept()
		if err != nil {
			<-l.slots
			return nil, err
		}
		peer, ok := l.peers.take(c)
		if !ok {
			c.Close()
			<-l.slots
			continue
		}
		return &slotConn{Conn: c, slots: l.slots, peers: l.peers, peer: peer}, nil
	}
}

func (l *limitListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// slotConn gives its listener's slot back when it is closed or becomes a
// stream, and its user's share when it is closed, once each.
type slotConn struct {
	net.Conn
	slots      chan struct{}
	gate, left sync.Once
	peers      *peerCount
	peer       string
}

func (c *slotConn) Close() error {
	err := c.Conn.Close()
	c.leaveGate()
	c.left.Do(func() { c.peers.give(c.peer) })
	return err
}

// leaveGate gives the connection's slot back to its listener while it
// stays open: a stream is counted by the stream cap instead.
func (c *slotConn) leaveGate() { c.gate.Do(func() { <-c.slots }) }

// peerCount counts each local user's open connections to a listener, and
// refuses one over max.
type peerCount struct {
	max int
	mu  sync.Mutex
	n   map[string]int
}

func newPeerCount(max int) *peerCount { return &peerCount{max: max, n: map[string]int{}} }

// take counts c against its user's share, and reports whether it fits.
// A connection whose user cannot be known is counted by the listener's
// cap alone.
func (p *peerCount) take(c net.Conn) (peer string, ok bool) {
	if p == nil {
		return "", true
	}
	peer, known := peerOf(c)
	if !known {
		return "", true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n[peer] >= p.max {
		return "", false
	}
	p.n[peer]++
	return peer, true
}

func (p *peerCount) give(peer string) {
	if p == nil || peer == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n[peer]--; p.n[peer] <= 0 {
		delete(p.n, peer)
	}
}

// connKey is where the daemon's servers leave a request's connection in
// its context (http.Server.ConnContext), for a stream to leave the gate.
type connKey struct{}

func withConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// leaveGate moves r's connection out of its listener's cap, when it is
// one a limitListener accepted.
func leaveGate(r *http.Request) {
	if c, ok := r.Context().Value(connKey{}).(*slotConn); ok {
		c.leaveGate()
	}
}

// readBodyWithin bounds the reading of a request's body to d from when
// its handler starts (the net/http server's ReadTimeout would also end
// the context of a long request after it). Once the body has been read
// the bound is lifted; a handler that does not read it leaves the bound
// to the server's discarding of what remains.
func readBodyWithin(d time.Duration) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody {
				rc := http.NewResponseController(w)
				if rc.SetReadDeadline(time.Now().Add(d)) == nil {
					r.Body = &boundedBody{ReadCloser: r.Body, lift: func() { rc.SetReadDeadline(time.Time{}) }}
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

// boundedBody lifts its read deadline at the body's end.
type boundedBody struct {
	io.ReadCloser
	lift func()
	once sync.Once
}

func (b *boundedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.once.Do(b.lift)
	}
	return n, err
}
