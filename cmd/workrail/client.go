package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/server/home"
)

// errNotRunning means no daemon answers on the home's socket.
var errNotRunning = errors.New("no workrail daemon is running for this home")

// daemonClient talks to the home's daemon over its unix socket, one
// connection per request: an idle connection left open would look like a
// shim still using the daemon (see POST /retire).
func daemonClient(h home.Dir, timeout time.Duration) *http.Client {
	dial := func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", h.Socket())
	}
	return &http.Client{Timeout: timeout, Transport: &http.Transport{DialContext: dial, DisableKeepAlives: true}}
}

// askDaemon sends one request to the daemon and decodes a 2xx JSON answer
// into out (when out is not nil). A daemon that cannot be reached is
// errNotRunning; a refusal carrying an error result is that error.
func askDaemon(h home.Dir, method, path string, out any) error {
	return askDaemonWithin(h, time.Minute, method, path, out)
}

// askDaemonWithin is askDaemon waiting up to timeout for the answer.
func askDaemonWithin(h home.Dir, timeout time.Duration, method, path string, out any) error {
	body, err := exchangeWithin(h, timeout, method, path, nil, 16<<20)
	if err != nil || out == nil {
		return err
	}
	return json.Unmarshal(body, out)
}

// exchange sends one request, with body when not nil, and returns a 2xx
// answer's body, refusing one longer than limit bytes. Its errors are
// askDaemon's.
func exchange(h home.Dir, method, path string, body io.Reader, limit int64) ([]byte, error) {
	return exchangeWithin(h, time.Minute, method, path, body, limit)
}

func exchangeWithin(h home.Dir, timeout time.Duration, method, path string, body io.Reader, limit int64) ([]byte, error) {
	req, err := http.NewRequest(method, "http://workrail"+path, body)
	if err != nil {
		return nil, err
	}
	resp, err := daemonClient(h, timeout).Do(req)
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return nil, errNotRunning
	}
	if err != nil {
		return nil, fmt.Errorf("ask the daemon: %w", err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("ask the daemon: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		var refused protocol.ErrorResult
		if json.Unmarshal(answer, &refused) == nil && refused.Error != nil {
			return nil, refused.Error
		}
		return nil, fmt.Errorf("the daemon answered %s %s: %s", method, path, strings.TrimSpace(string(answer)))
	}
	if int64(len(answer)) > limit {
		return nil, fmt.Errorf("the daemon's answer to %s %s is longer than %d bytes", method, path, limit)
	}
	return answer, nil
}

// printFailure reports err the way a command's --json output promises:
// the error result (kind, text, error envelope) on stdout, or one line on
// stderr. It returns the exit code, 1.
func printFailure(asJSON bool, command string, err error, stdout, stderr io.Writer) int {
	if !asJSON {
		fmt.Fprintf(stderr, "workrail %s: %v\n", command, err)
		return 1
	}
	e := engine.AsError(err)
	if e.Code == engine.CodeInternal {
		// Outside the daemon there is no log to hide the cause in.
		e = engine.Errorf(engine.CodeInternal, "%v", err)
	}
	if errors.Is(err, errNotRunning) {
		e = engine.Errorf(engine.CodeDaemonUnavailable, "%v; start it with `workrail` (your IDE's `workrail mcp` also starts it)", err)
	}
	printJSON(stdout, protocol.NewError(e))
	return 1
}

func printJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}
