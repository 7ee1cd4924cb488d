package server

import (
	"net"
	"sync"
	"time"
)

// Limits bound what connections can hold of the daemon. The TCP listener
// is open to every local user, so a flood of idle connections there must
// not take the file descriptors the shims need: each listener has its own
// cap, and a connection that sends nothing is closed.
type Limits struct {
	// TCPConns and SocketConns cap the connections served at once on the
	// loopback port and on the shims' unix socket; more wait in the
	// kernel's backlog.
	TCPConns, SocketConns int
	// HeaderTimeout closes a connection that has not sent a request's
	// headers this long after it opened (or began a request).
	HeaderTimeout time.Duration
	// TCPIdle closes a TCP connection idle this long between requests.
	// The socket has no idle timeout: a shim keeps a connection open for
	// as long as it runs, which is how retiring knows it is in use, and
	// only this user can connect there.
	TCPIdle time.Duration
}

// DefaultLimits: a browser opens six connections to a host at most, and
// a shim a few; neither timeout bounds a request in progress, so a long
// tool call, doctor or import is never cut.
func DefaultLimits() Limits {
	return Limits{TCPConns: 256, SocketConns: 512, HeaderTimeout: 10 * time.Second, TCPIdle: time.Minute}
}

// limitListener accepts at most n connections at a time: Accept waits
// for one of them to close first.
type limitListener struct {
	net.Listener
	slots chan struct{}
	done  chan struct{}
	once  sync.Once
}

func limitListen(ln net.Listener, n int) net.Listener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, n), done: make(chan struct{})}
}

func (l *limitListener) Accept() (net.Conn, error) {
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
	return &slotConn{Conn: c, release: func() { <-l.slots }}, nil
}

func (l *limitListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// slotConn gives its listener's slot back when it is closed, once.
type slotConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *slotConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
