package shim_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/workrail/workrail/server/home"
)

// dropping is a daemon's MCP endpoint that reads each message whole (as
// a daemon does before it commits) and then goes away without answering
// the first drop of them, as a daemon killed between its commit and its
// answer does; it answers the rest as echo does. It keeps the retry key
// each message came with.
type dropping struct {
	mu   sync.Mutex
	drop int
	keys []string
}

func (d *dropping) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	d.mu.Lock()
	d.keys = append(d.keys, r.Header.Get(home.RetryKeyHeader))
	drop := len(d.keys) <= d.drop
	d.mu.Unlock()
	if drop {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	echo("again").ServeHTTP(w, r)
}

// sent is the retry keys the messages came with, in order.
func (d *dropping) sent() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.keys...)
}

const startCall = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"start_workflow","arguments":{"workflowId":"wr.hello"}}}`

// A message that reached the daemon, which went away before answering
// (a start whose run was recorded), is sent once more under the same
// retry key, so the daemon answers the run it made instead of starting a
// second: the agent gets one answer and never a reason to start again.
func TestAMessageTheDaemonDroppedIsSentAgainUnderItsKey(t *testing.T) {
	h := newHome(t)
	d := &dropping{drop: 1}
	serve(t, h, "workrail", string(h), d)
	var out bytes.Buffer
	lines := run(t, newShim(t, h, cannotStart(), &out), &out, startCall+"\n")
	if len(lines) != 1 || mustReply(t, lines[0]).Result == nil || mustReply(t, lines[0]).Result.Daemon != "again" {
		t.Fatalf("replies %q; want the answer to the message sent again", lines)
	}
	if keys := d.sent(); len(keys) != 2 || len(keys[0]) < 16 || keys[0] != keys[1] {
		t.Fatalf("retry keys sent %q; want one key, sent twice", keys)
	}
	// Each message has a key of its own.
	out.Reset()
	run(t, newShim(t, h, cannotStart(), &out), &out, startCall+"\n")
	if keys := d.sent(); len(keys) != 3 || keys[2] == keys[0] || len(keys[2]) < 16 {
		t.Fatalf("retry keys sent %q; want a new key for a new message", keys)
	}
}

// A message that reached the daemon and got no answer, twice, may have
// been recorded: the shim's error says so and tells the agent to look
// for a run a start made before starting again; it never says that
// nothing was recorded.
func TestAMessageUnansweredTwiceMayHaveBeenRecorded(t *testing.T) {
	h := newHome(t)
	d := &dropping{drop: 2}
	serve(t, h, "workrail", string(h), d)
	var out bytes.Buffer
	lines := run(t, newShim(t, h, cannotStart(), &out), &out, startCall+"\n")
	if len(lines) != 1 {
		t.Fatalf("replies %q; want one", lines)
	}
	r := mustEnvelope(t, lines[0])
	if r.Result == nil || r.Result.Structured.Error.Code != "DAEMON_UNAVAILABLE" ||
		!strings.Contains(r.Result.Structured.Error.Message, "may have been recorded") ||
		strings.Contains(r.Result.Structured.Error.Message, "nothing was recorded") {
		t.Fatalf("reply %s; want DAEMON_UNAVAILABLE saying the call may have been recorded", lines[0])
	}
	if keys := d.sent(); len(keys) != 2 || keys[0] != keys[1] {
		t.Fatalf("retry keys sent %q; want one key, sent twice", keys)
	}
}

// Only a tool call may have recorded something: any other message the
// daemon went away on is answered with the error at once, not sent to a
// second daemon (one that crashed the first would crash it too).
func TestOnlyAToolCallIsSentAgain(t *testing.T) {
	h := newHome(t)
	d := &dropping{drop: 1}
	serve(t, h, "workrail", string(h), d)
	var out bytes.Buffer
	lines := run(t, newShim(t, h, cannotStart(), &out), &out, ping+"\n")
	if len(lines) != 1 || mustReply(t, lines[0]).Error == nil || len(d.sent()) != 1 {
		t.Fatalf("replies %q after %d posts; want one error after one post", lines, len(d.sent()))
	}
}
