package shim

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"time"

	"github.com/workrail/workrail/engine/protocol"
)

// relistenAfter is how long the shim waits before opening the
// notification stream again after it ended (a daemon restarting), unless
// a message reaches the daemon sooner.
const relistenAfter = time.Second

// listen copies the daemon's notifications (GET /mcp, an event stream)
// to stdout until ctx ends or stdout is gone, opening the stream again
// whenever it ends. Started once the client has initialized: MCP sends
// no notification before. A daemon that serves no stream (an older one)
// ends it.
func (s *Shim) listen(ctx context.Context) {
	for {
		served, err := s.stream(ctx)
		if !served {
			if err != nil {
				s.cfg.Log.Printf("notifications: %v", err)
			}
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-s.outGone:
			return
		case <-time.After(relistenAfter):
		case <-s.reached:
		}
	}
}

// stream reads one notification stream to its end. served is false when
// the daemon refused to serve one.
func (s *Shim) stream(ctx context.Context) (served bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://localhost/mcp", nil)
	if err != nil {
		return false, err
	}
	req.Header.Set("Accept", "text/event-stream")
	s.named(req)
	resp, err := s.client.Do(req)
	if err != nil {
		return true, nil // the daemon is away: try again, a call brings it back
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !isEventStream(resp.Header.Get("Content-Type")) {
		return false, nil
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
	return true, nil
}

// isInitialized reports whether msg is the client's
// notifications/initialized, after which the server may notify it.
func isInitialized(msg []byte) bool {
	if !bytes.Contains(msg, []byte("notifications/initialized")) {
		return false // spares every other message the walk
	}
	id, method, _ := protocol.Peek(msg)
	return id == nil && method == "notifications/initialized"
}
