package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// lineClient speaks JSON-RPC lines to a `workrail mcp` of its own, as an
// IDE does, choosing its request ids itself.
type lineClient struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	mu      sync.Mutex
	replies map[string]chan json.RawMessage // by the raw id
	stderr  *syncBuffer
}

func startLineClient(t *testing.T, home string) *lineClient {
	t.Helper()
	c := &lineClient{cmd: exec.Command(bin, "mcp"), replies: map[string]chan json.RawMessage{}, stderr: &syncBuffer{}}
	c.cmd.Env, c.cmd.Dir, c.cmd.Stderr = procEnv(home), home, c.stderr
	var err error
	if c.in, err = c.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.in.Close()
		c.cmd.Wait()
		if t.Failed() {
			t.Logf("shim stderr:\n%s", c.stderr)
		}
	})
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<16), 16<<20)
		for sc.Scan() {
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(sc.Bytes(), &m) != nil || len(m.ID) == 0 {
				continue // a notification
			}
			c.reply(string(m.ID)) <- append(json.RawMessage(nil), sc.Bytes()...)
		}
	}()
	c.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`)
	c.wait(t, "0")
	c.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

// reply is the channel id's reply arrives on.
func (c *lineClient) reply(id string) chan json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch, ok := c.replies[id]
	if !ok {
		ch = make(chan json.RawMessage, 2)
		c.replies[id] = ch
	}
	return ch
}

func (c *lineClient) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// wait is the reply to id, which must come within 60 s, alone.
func (c *lineClient) wait(t *testing.T, id string) json.RawMessage {
	t.Helper()
	select {
	case r := <-c.reply(id):
		select {
		case again := <-c.reply(id):
			t.Fatalf("two replies to %s:\n%s\n%s", id, r, again)
		case <-time.After(10 * time.Millisecond):
		}
		return r
	case <-time.After(60 * time.Second):
		t.Fatalf("no reply to %s", id)
		return nil
	}
}

// Two agents number their calls alike (1, 2, 3, … in each chat) and run
// the same ids at the same time, each cancelling (Esc) the calls the
// other does not: the first the odd ids, the second the even ones. Only
// the cancelling agent's call stops: every call an agent did not cancel
// is answered as it ran, and each it cancelled either as it ran or
// CANCELLED (retryable, nothing recorded). A cancelled call is logged at
// info, never as an error; the store holds exactly the sessions of the
// starts that were answered.
func TestCancelStaysWithItsClient(t *testing.T) {
	home := newHome(t)
	clients := []*lineClient{startLineClient(t, home), startLineClient(t, home)}
	const n = 150
	var wg sync.WaitGroup
	for c, client := range clients {
		wg.Go(func() {
			for id := 1; id <= n; id++ {
				client.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"start_workflow","arguments":{"workflowId":"wr.hello"}}}`, id))
				if id%2 == c%2 {
					client.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d,"reason":"Esc"}}`, id))
				}
			}
		})
	}
	wg.Wait()
	type answer struct {
		Result struct {
			StructuredContent struct {
				Kind  string `json:"kind"`
				Error struct {
					Code  string `json:"code"`
					Retry struct {
						Kind string `json:"kind"`
					} `json:"retry"`
				} `json:"error"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	steps, cancelled := 0, 0
	for c, client := range clients {
		kept, stopped := map[string]int{}, map[string]int{}
		for id := 1; id <= n; id++ {
			raw := client.wait(t, fmt.Sprint(id))
			var a answer
			if err := json.Unmarshal(raw, &a); err != nil {
				t.Fatalf("reply %d: %v: %s", id, err, raw)
			}
			r := a.Result.StructuredContent
			k := r.Kind
			if k == "error" {
				k = r.Error.Code + "/" + r.Error.Retry.Kind
			}
			if id%2 == c%2 {
				stopped[k]++
			} else {
				kept[k]++
			}
		}
		t.Logf("agent %d: the calls it cancelled were answered %v, the others %v", c, stopped, kept)
		if kept["step"] != n/2 {
			t.Errorf("agent %d's calls it did not cancel were answered %v; want %d steps: another client's cancel stopped them", c, kept, n/2)
		}
		if stopped["step"]+stopped["CANCELLED/retryable_immediately"] != n/2 || stopped["CANCELLED/retryable_immediately"] == 0 {
			t.Errorf("agent %d's cancelled calls were answered %v; want steps and at least one CANCELLED (retryable at once)", c, stopped)
		}
		steps += kept["step"] + stopped["step"]
		cancelled += stopped["CANCELLED/retryable_immediately"]
	}
	lines, raw := logLines(t, home)
	logged, errors := 0, 0
	for _, l := range lines {
		if l["msg"] == "tool call cancelled" && l["level"] == "INFO" && l["code"] == "CANCELLED" {
			logged++
		}
		if l["level"] == "ERROR" {
			if errors++; errors <= 3 {
				t.Errorf("an error was logged: %v", l)
			}
		}
	}
	if logged != cancelled {
		t.Errorf("%d cancelled calls logged at info, want %d:\n%.3000s", logged, cancelled, raw)
	}
	if rep := healthyDoctor(t, home); len(rep.Sessions) != steps {
		t.Errorf("%d sessions stored for %d starts answered", len(rep.Sessions), steps)
	}
	for _, c := range clients {
		if strings.Contains(c.stderr.String(), "forward:") {
			t.Errorf("a shim could not forward a line:\n%s", c.stderr)
		}
	}
}
