package shim

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/workrail/workrail/server/jsonrpc"
)

// relistenAfter is how long the shim waits before opening the
// notification stream again after it ended (a daemon restarting, or a
// stream that was idle), unless a message reaches the daemon sooner.
const relistenAfter = time.Second

// never is the wait after a daemon refused to serve a stream.
const never = -1

// listen copies the daemon's notifications (GET /mcp, an event stream)
// to stdout until ctx ends or stdout is gone, opening the stream again
// whenever it ends. Started once the client has initialized: MCP sends
// no notification before. A daemon that serves no stream (an older one)
// ends it; one that has no room for another asks again after the wait
// it names (Retry-After).
func (s *Shim) listen(ctx context.Context) {
	for {
		again, full, err := s.stream(ctx)
		if again == never {
			if err != nil {
				s.cfg.Log.Printf("notifications: %v", err)
			}
			return
		}
		wake := s.reached
		if full {
			wake = nil // a daemon with no room makes none when a message reaches it
		}
		select {
		case <-ctx.Done():
			return
		case <-s.outGone:
			return
		case <-time.After(again):
		case <-wake:
		}
	}
}

// stream reads one notification stream to its end, and returns how long
// to wait before opening it again (never: the daemon refused to serve
// one), and whether the daemon had no room for it.
func (s *Shim) stream(ctx context.Context) (again time.Duration, full bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://localhost/mcp", nil)
	if err != nil {
		return never, false, err
	}
	req.Header.Set("Accept", "text/event-stream")
	s.named(req)
	resp, err := s.client.Do(req)
	if err != nil {
		return relistenAfter, false, nil // the daemon is away: try again, a call brings it back
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusServiceUnavailable {
		wait := retryAfter(resp.Header.Get("Retry-After"))
		s.cfg.Log.Printf("notifications: the daemon has no room for another stream; asking again in %v", wait)
		return wait, true, nil
	}
	if resp.StatusCode != http.StatusOK || !isEventStream(resp.Header.Get("Content-Type")) {
		return never, false, nil
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	var data []byte
	for sc.Scan() {
		line := sc.Bytes()
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			data = append(data, bytes.TrimPrefix(d, []byte(" "))...)
			continue
		}
		if len(line) == 0 && len(data) > 0 {
			if err := s.write(data); err != nil {
				s.cfg.Log.Printf("notifications: %v", err)
			}
			data = nil
		}
	}
	return relistenAfter, false, nil
}

// retryAfter reads a Retry-After of seconds, within a second and five
// minutes; 30 s when it names none.
func retryAfter(v string) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return 30 * time.Second
	}
	return min(max(time.Duration(n)*time.Second, time.Second), 5*time.Minute)
}

// isInitialized reports whether msg is the client's
// notifications/initialized, after which the server may notify it.
func isInitialized(msg []byte) bool {
	if !bytes.Contains(msg, []byte("notifications/initialized")) {
		return false // spares every other message the walk
	}
	id, method, _ := jsonrpc.Peek(msg)
	return id == nil && method == "notifications/initialized"
}
