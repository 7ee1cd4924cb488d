// Package shim is `workrail mcp`: the stdio process an IDE launches. It
// holds no state and runs no use case. It finds (or starts) the daemon and
// forwards every MCP message, byte for byte, to the daemon's streamable
// HTTP endpoint on the home folder's unix socket; a tool call it cannot
// deliver gets the DAEMON_UNAVAILABLE error as engine/protocol renders
// it. stdout carries protocol bytes only; diagnostics go to the log writer.
package shim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/server/home"
)

// Config is what the shim needs.
type Config struct {
	Home home.Dir
	// StartDaemon launches a detached daemon for Home; the returned channel
	// is closed if that process exits.
	StartDaemon func() (exited <-chan struct{}, err error)
	// StartTimeout bounds the wait for a daemon it started (default 10s).
	StartTimeout time.Duration
	Log          *log.Logger
}

// Shim forwards one stdio MCP conversation to the daemon.
type Shim struct {
	cfg    Config
	client *http.Client
	out    io.Writer
	outMu  sync.Mutex
	ensure sync.Mutex
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
	return &Shim{cfg: cfg, out: out, client: &http.Client{Transport: &http.Transport{DialContext: dial, MaxIdleConnsPerHost: 8}}}
}

// Run forwards messages from in until it ends. Each message is forwarded
// on its own goroutine so a slow call never holds up a ping.
func (s *Shim) Run(ctx context.Context, in io.Reader) error {
	r := bufio.NewReaderSize(in, 1<<16)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		line, err := r.ReadBytes('\n')
		if msg := bytes.TrimSpace(line); len(msg) > 0 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.forward(ctx, msg)
			}()
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (s *Shim) forward(ctx context.Context, msg []byte) {
	replies, err := s.post(ctx, msg)
	if err != nil {
		s.cfg.Log.Printf("forward: %v", err)
		s.replyError(msg, err)
		return
	}
	for _, r := range replies {
		if err := s.write(r); err != nil {
			s.cfg.Log.Printf("forward: %v", err)
			s.replyError(msg, err)
		}
	}
}

// post sends one message, starting or restarting the daemon when it cannot
// be reached, and returns the JSON-RPC messages it answered with.
func (s *Shim) post(ctx context.Context, msg []byte) ([][]byte, error) {
	replies, err := s.send(ctx, msg)
	if err == nil || !unreachable(err) {
		return replies, err
	}
	if err := s.ensureDaemon(); err != nil {
		return nil, err
	}
	return s.send(ctx, msg)
}

func unreachable(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

func (s *Shim) send(ctx context.Context, msg []byte) ([][]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://localhost/mcp", bytes.NewReader(msg))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusAccepted:
		return nil, nil
	case resp.StatusCode != http.StatusOK:
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return nil, fmt.Errorf("daemon answered %s: %s", resp.Status, bytes.TrimSpace(b))
	case isEventStream(resp.Header.Get("Content-Type")):
		return readEvents(resp.Body)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return [][]byte{b}, nil
}

func isEventStream(ct string) bool { return len(ct) >= 17 && ct[:17] == "text/event-stream" }

// readEvents collects the data of each server-sent event.
func readEvents(body io.Reader) ([][]byte, error) {
	var out [][]byte
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
			out = append(out, data)
			data = nil
		}
	}
	if len(data) > 0 {
		out = append(out, data)
	}
	return out, sc.Err()
}

// write puts one message on stdout as a single line. A malformed message
// from the daemon is an error, so the caller can still answer the request.
func (s *Shim) write(msg []byte) error {
	var buf bytes.Buffer
	if err := json.Compact(&buf, msg); err != nil {
		return fmt.Errorf("the daemon sent a malformed message (%v); its log may say why", err)
	}
	buf.WriteByte('\n')
	s.outMu.Lock()
	defer s.outMu.Unlock()
	if _, err := s.out.Write(buf.Bytes()); err != nil {
		s.cfg.Log.Printf("write stdout: %v", err)
	}
	return nil
}

// replyError answers a request the daemon could not take; notifications
// (no id) get no answer. A tool call gets a tool result carrying the error
// envelope (errors are data, so the agent can read it and retry); any other
// request a JSON-RPC error.
func (s *Shim) replyError(msg []byte, cause error) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(msg, &req) != nil || len(req.ID) == 0 || string(req.ID) == "null" {
		return
	}
	text := "workrail: " + cause.Error() + " (log: " + s.cfg.Home.DaemonLog() + ")"
	reply := map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32000, "message": text}}
	if req.Method == "tools/call" {
		r := protocol.DaemonUnavailable(text)
		reply = map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{
			"content":           []any{map[string]any{"type": "text", "text": r.Text}},
			"structuredContent": r,
			"isError":           true,
		}}
	}
	b, _ := json.Marshal(reply)
	if err := s.write(b); err != nil {
		s.cfg.Log.Printf("reply: %v", err)
	}
}
