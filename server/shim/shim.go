// Package shim is `workrail mcp`: the stdio process an IDE launches. It
// holds no state and runs no use case. It finds (or starts) the daemon for
// its home, known by what the daemon's GET /health answers (replacing one
// of an older version when no other window uses it), and forwards
// every MCP message, byte for byte, to the daemon's streamable HTTP
// endpoint on the home folder's unix socket. Every request line gets
// exactly one reply line: a tool call it cannot deliver gets the
// DAEMON_UNAVAILABLE error as engine/protocol renders it, and a line whose
// id it cannot read the JSON-RPC error with id null. stdout carries
// protocol bytes only; diagnostics go to the log writer. When stdout
// closes, the shim ends without a word.
package shim

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/server/jsonrpc"
)

// Config is what the shim needs.
type Config struct {
	Home home.Dir
	// Version is this binary's version: a daemon of an older one is
	// replaced when nothing else uses it.
	Version string
	// StartDaemon launches a detached daemon for Home; the returned channel
	// is closed if that process exits.
	StartDaemon func() (exited <-chan struct{}, err error)
	// StartTimeout bounds the wait for a daemon it started (default 10s).
	StartTimeout time.Duration
	Log          *log.Logger
	// Workdir is the folder the IDE started the shim in, sent with every
	// call: the daemon reads the git repository there at a start that
	// names no workspacePath, for observations only.
	Workdir string
}

// Shim forwards one stdio MCP conversation to the daemon.
type Shim struct {
	cfg    Config
	client *http.Client
	out    io.Writer
	outMu  sync.Mutex
	// outGone closes when out can no longer be written: the IDE closed
	// the shim's stdout, so nobody reads its answers any more.
	outGone  chan struct{}
	goneOnce sync.Once
	ensure   sync.Mutex
	found    atomic.Bool   // this home's daemon answered GET /health
	listens  sync.Once     // the notification stream is opened once
	reached  chan struct{} // a message reached the daemon: a stream that ended may open again at once
	kept     bool          // an older daemon was left running, not to be asked again; under ensure
	// session is the MCP session id the daemon gave this conversation in
	// its answer to initialize, sent with every request after, so that a
	// cancel names this client's call and no other's.
	session atomic.Pointer[string]
}

// New returns a shim that writes protocol messages to out.
func New(cfg Config, out io.Writer) *Shim {
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = 10 * time.Second
	}
	dial := func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", cfg.Home.Socket())
	}
	return &Shim{cfg: cfg, out: out, outGone: make(chan struct{}), reached: make(chan struct{}, 1), client: &http.Client{Transport: &http.Transport{DialContext: dial, MaxIdleConnsPerHost: 8}}}
}

// Run forwards messages from in until it ends, or until out can no longer
// be written (then a read from in may still be pending: the caller
// exits). Each message is forwarded on its own goroutine so a slow call
// never holds up a ping. Every line that is a request gets exactly one
// reply line; notifications and responses get none.
func (s *Shim) Run(ctx context.Context, in io.Reader) error {
	r := bufio.NewReaderSize(in, 1<<16)
	var wg sync.WaitGroup
	defer wg.Wait()
	listening, stopListening := context.WithCancel(ctx)
	defer stopListening()
	// The daemon is brought up as soon as the first bytes arrive, ahead of
	// the first message; a shim whose stdin closes before any byte arrives
	// touches no daemon.
	if _, err := r.Peek(1); err == nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.ensureDaemon(); err != nil {
				s.cfg.Log.Print(err)
			}
		}()
	}
	lines := make(chan readLine)
	go s.read(r, lines)
	for {
		var l readLine
		select {
		case l = <-lines:
		case <-s.outGone:
			return nil
		}
		if msg := bytes.TrimSpace(l.line); l.size > jsonrpc.MaxMessageBytes {
			s.tooLong(msg, l.size)
		} else if len(msg) > 0 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.forward(ctx, msg)
				if isInitialized(msg) {
					s.listens.Do(func() { go s.listen(listening) })
				}
			}()
		}
		if errors.Is(l.err, io.EOF) {
			return nil
		}
		if l.err != nil {
			return l.err
		}
	}
}

// readLine is one line read from stdin, and the error that ended it. A
// line over jsonrpc.MaxMessageBytes keeps only its start.
type readLine struct {
	line []byte
	size int64 // the line's length, its newline left out
	err  error
}

// read hands Run each line of r until r ends or stdout is gone.
func (s *Shim) read(r *bufio.Reader, lines chan<- readLine) {
	for {
		line, size, err := readLimited(r, jsonrpc.MaxMessageBytes)
		select {
		case lines <- readLine{line, size, err}:
		case <-s.outGone:
			return
		}
		if err != nil {
			return
		}
	}
}

// readLimited reads one line, keeping at most limit bytes of it: the
// rest of a longer line is read and dropped as it streams, so a line of
// any length costs the shim limit bytes.
func readLimited(r *bufio.Reader, limit int) (line []byte, size int64, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		size += int64(len(chunk))
		if room := limit + 1 - len(line); room > 0 {
			line = append(line, chunk[:min(room, len(chunk))]...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			if bytes.HasSuffix(chunk, []byte("\n")) {
				size--
			}
			return line, size, err
		}
	}
}

// forward posts one line and writes what the daemon answered, each
// message as it arrives (an event stream's, such as a 2026-07-28
// subscriptions/listen, may arrive over a long time). When that holds no
// response to a line that needs one, the shim answers it itself; a
// response under another id than the line's is not written (the client
// would wait for its own for ever, or take it for another request's).
func (s *Shim) forward(ctx context.Context, msg []byte) {
	want, asked := jsonrpc.LeadingID(msg)
	answered := false
	var bad error // a reply that could not be written: malformed, or under another id
	err := s.post(ctx, msg, func(r []byte, whole bool) {
		got, response := jsonrpc.LeadingID(r)
		if !whole {
			response = isResponse(r) // an event stream's: the others are notifications
		}
		if response && asked && !jsonrpc.SameID(got, want) {
			bad = &wrongID{sent: want, got: got}
			return
		}
		if werr := s.write(r); werr != nil {
			bad = werr
			return
		}
		answered = answered || whole || response
	})
	switch {
	case err != nil:
	case bad != nil:
		err = bad
	case !answered && inspect(msg).answer:
		err = errors.New("the daemon sent no reply")
	}
	if err != nil {
		s.cfg.Log.Printf("forward: %v", err)
		if !answered {
			s.replyError(msg, err)
		}
	}
}

// post sends one message, starting or restarting the daemon when it cannot
// be reached, and hands emit each JSON-RPC message it answered with (whole:
// the answer was that one message, not an event stream). Until this
// home's daemon has identified itself on the socket, nothing is sent.
//
// The message goes with a retry key minted for it. When a tool call went
// to a daemon that went away before its answer came back (killed, or
// crashed, after it may have recorded the call), it is sent once more,
// under the same key, to the daemon started again: every tool call may
// be, as reads are reads, an ackToken or checkpointToken replays what it
// recorded, and a start under a key it recorded answers the run it made.
// Without the key, a start whose answer was lost would leave a run nobody
// continues, and the agent, told to retry, would start a second. Other
// messages record nothing and are not sent again: one that crashed the
// daemon is not given a second daemon to crash. Nor is one whose answer
// had begun to arrive.
func (s *Shim) post(ctx context.Context, msg []byte, emit func(reply []byte, whole bool)) error {
	if !s.found.Load() {
		if err := s.ensureDaemon(); err != nil {
			return err
		}
	}
	emitted := false
	tell := func(r []byte, whole bool) {
		emitted = true
		emit(r, whole)
	}
	key := newRetryKey()
	err := s.send(ctx, msg, key, tell)
	if err != nil && !emitted && sendAgain(ctx, msg, err) {
		reached := !unreachable(err)
		if err = s.ensureDaemon(); err == nil {
			err = s.send(ctx, msg, key, tell)
			reached = reached || (err != nil && !unreachable(err))
		}
		if err != nil && reached {
			err = &unanswered{err}
		}
	}
	if err == nil {
		s.wake()
	}
	return err
}

// sendAgain reports whether msg, whose send failed with err, is sent
// again: when it was not delivered, and when it is a tool call and the
// daemon went away before its answer came back; not when the daemon
// answered, or the caller is gone.
func sendAgain(ctx context.Context, msg []byte, err error) bool {
	var se *statusError
	return ctx.Err() == nil && !errors.As(err, &se) && (unreachable(err) || inspect(msg).method == "tools/call")
}

// unanswered is the error of a message that reached the daemon and got
// no answer, even when sent again: it may have been recorded.
type unanswered struct{ err error }

func (e *unanswered) Error() string { return e.err.Error() }
func (e *unanswered) Unwrap() error { return e.err }

// newRetryKey is a key no other call has (home.RetryKeyHeader).
func newRetryKey() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// wake tells a notification stream waiting to open again that the
// daemon answers.
func (s *Shim) wake() {
	select {
	case s.reached <- struct{}{}:
	default:
	}
}

func unreachable(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

func (s *Shim) send(ctx context.Context, msg []byte, key string, emit func([]byte, bool)) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://localhost/mcp", bytes.NewReader(msg))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(home.RetryKeyHeader, key)
	if s.cfg.Workdir != "" {
		req.Header.Set(home.WorkdirHeader, s.cfg.Workdir)
	}
	eraHeaders(req.Header, msg)
	s.named(req)
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if id := resp.Header.Get(home.SessionHeader); id != "" {
		s.session.CompareAndSwap(nil, &id) // the first one given; the daemon keeps none
	}
	switch {
	case resp.StatusCode == http.StatusAccepted:
		return nil
	case resp.StatusCode != http.StatusOK:
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return &statusError{code: resp.StatusCode, status: resp.Status, body: bytes.TrimSpace(b)}
	case isEventStream(resp.Header.Get("Content-Type")):
		return readEvents(resp.Body, func(data []byte) { emit(data, false) })
	}
	b, err := readBody(resp)
	if err != nil {
		return err
	}
	emit(b, true)
	return nil
}

// named adds the session id the daemon gave this conversation to req.
func (s *Shim) named(req *http.Request) {
	if id := s.session.Load(); id != nil {
		req.Header.Set(home.SessionHeader, *id)
	}
}

// readBody reads an answer's body into a buffer of its length, when the
// daemon said it, with room for the newline oneLine adds.
func readBody(resp *http.Response) ([]byte, error) {
	if n := resp.ContentLength; n >= 0 && n <= jsonrpc.MaxMessageBytes*4 {
		b := make([]byte, n, n+1)
		_, err := io.ReadFull(resp.Body, b)
		return b, err
	}
	return io.ReadAll(resp.Body)
}

func isEventStream(ct string) bool { return len(ct) >= 17 && ct[:17] == "text/event-stream" }

// readEvents hands emit the data of each server-sent event as it arrives.
func readEvents(body io.Reader, emit func([]byte)) error {
	var data []byte
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 1<<16), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			data = append(data, bytes.TrimPrefix(d, []byte(" "))...)
			continue
		}
		if len(line) == 0 && len(data) > 0 {
			emit(data)
			data = nil
		}
	}
	if len(data) > 0 {
		emit(data)
	}
	return sc.Err()
}

// write puts one message on stdout as a single line. A malformed message
// from the daemon is an error, so the caller can still answer the request.
func (s *Shim) write(msg []byte) error {
	line, err := oneLine(msg)
	if err != nil {
		return err
	}
	s.outMu.Lock()
	defer s.outMu.Unlock()
	select {
	case <-s.outGone:
		return nil
	default:
	}
	if _, err := s.out.Write(line); err != nil {
		// The IDE closed stdout (EPIPE): the conversation is over, and the
		// daemon, which other windows may use, is left alone.
		s.goneOnce.Do(func() { close(s.outGone) })
	}
	return nil
}

// oneLine is msg as one line ending in a newline. Well-formed JSON holds
// line breaks only between its tokens, so a valid message without one
// but at its end (the daemon's answers) is the line as it is, checked but
// not copied (its newline goes where the whitespace it ended with was);
// any other is compacted.
func oneLine(msg []byte) ([]byte, error) {
	body := bytes.TrimRight(msg, " \t\r\n")
	if jsonrpc.Valid(body) && bytes.IndexByte(body, '\n') < 0 && bytes.IndexByte(body, '\r') < 0 {
		return append(body, '\n'), nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, body); err != nil {
		return nil, fmt.Errorf("the daemon sent a malformed message (%v); its log may say why", err)
	}
	return append(buf.Bytes(), '\n'), nil
}
