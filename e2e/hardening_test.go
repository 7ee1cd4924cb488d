package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Numbers a double cannot hold, in a tools/call through the shim: before,
// JSON-RPC -32600 "unparsable tools/call request" (mcp-go decodes first);
// now the INVALID_INPUT envelope with the number's pointer.
func TestOutOfRangeNumbersThroughTheShim(t *testing.T) {
	home := newHome(t)
	cases := map[string]string{
		"/context/big": `1e400`,
		"/context/n":   strings.Repeat("9", 5000),
	}
	for ptr, num := range cases {
		key := strings.TrimPrefix(ptr, "/context/")
		line := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"start_workflow","arguments":{"workflowId":"wr.hello","context":{"` +
			key + `":` + num + `}}}}`
		lines, stderr, code := rawShim(t, home, line+"\n")
		if code != 0 || len(lines) != 1 {
			t.Fatalf("%s: exit %d, %d lines; stderr:\n%s", ptr, code, len(lines), stderr)
		}
		var reply struct {
			Result struct {
				Structured struct {
					Error struct {
						Code    string         `json:"code"`
						Details map[string]any `json:"details"`
					} `json:"error"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(lines[0]), &reply); err != nil {
			t.Fatal(err)
		}
		if e := reply.Result.Structured.Error; e.Code != "INVALID_INPUT" || e.Details["pointer"] != ptr {
			t.Fatalf("%s: %.400s", ptr, lines[0])
		}
	}
}

// doctor asks the daemon on its socket, whatever daemon.json says: a
// malformed one used to make it report "database is locked".
func TestDoctorWithMalformedDaemonJSON(t *testing.T) {
	home := newHome(t)
	c := startShim(t, home)
	startHello(t, c)
	if err := os.WriteFile(filepath.Join(home, "daemon.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if rep := healthyDoctor(t, home); rep.Total != 1 {
		t.Fatalf("doctor through the daemon: %+v", rep)
	}
}

// Every refusal through the real shim carries the error envelope: a tool
// call gets a tool result with isError, any other request a JSON-RPC
// error whose data is the envelope. Before, each of these was a bare
// JSON-RPC -32600 (or -32700).
func TestRefusalsThroughTheShimCarryTheEnvelope(t *testing.T) {
	home := newHome(t)
	call := func(id int, args, meta string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"start_workflow","arguments":%s%s}}`, id, args, meta)
	}
	cases := []struct {
		name, line string
		id         string
		code       string // the envelope's code
		tool       bool   // a tool result, else a JSON-RPC error
	}{
		{"1e400 in _meta", call(1, `{"workflowId":"wr.hello"}`, `,"_meta":{"progressToken":1e400}`), "1", "INVALID_INPUT", true},
		{"1e400 in a ping's _meta", `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"x":1e400}}}`, "2", "INVALID_INPUT", false},
		{"a request over 320 KiB", call(3, `{"workflowId":"wr.hello","context":{"pad":"`+strings.Repeat("x", 330<<10)+`"}}`, ""), "3", "PAYLOAD_TOO_LARGE", true},
		{"a 1 MB note", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"continue_workflow","arguments":{"stateToken":"st","output":{"notesMarkdown":"` +
			strings.Repeat("n", 1<<20) + `"}}}}`, "4", "PAYLOAD_TOO_LARGE", true},
		{"a daemon 400 (nested past the library's decoder)", call(5, `{"x":`+deepArrays(10001)+`}`, ""), "5", "INVALID_INPUT", true},
		{"a daemon 400 for a ping", `{"jsonrpc":"2.0","id":6,"method":"ping","params":{"x":` + deepArrays(10001) + `}}`, "6", "INVALID_INPUT", false},
		{"another JSON-RPC version", `{"jsonrpc":"1.0","id":7,"method":"ping"}`, "7", "INVALID_INPUT", false},
		{"a batch", `[{"jsonrpc":"2.0","id":8,"method":"ping"}]`, "null", "INVALID_INPUT", false},
	}
	var lines []string
	for _, c := range cases {
		lines = append(lines, c.line)
	}
	out, stderr, code := rawShim(t, home, strings.Join(lines, "\n")+"\n")
	if code != 0 || len(out) != len(cases) {
		t.Fatalf("exit %d, %d replies for %d requests; stderr:\n%s", code, len(out), len(cases), stderr)
	}
	type envelope struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	type reply struct {
		ID     json.RawMessage `json:"id"`
		Result *struct {
			IsError    bool     `json:"isError"`
			Structured envelope `json:"structuredContent"`
		} `json:"result"`
		Error *struct {
			Code int      `json:"code"`
			Data envelope `json:"data"`
		} `json:"error"`
	}
	replies := make([]reply, len(out))
	for i, l := range out {
		if err := json.Unmarshal([]byte(l), &replies[i]); err != nil {
			t.Fatalf("reply is not JSON (%v): %.300s", err, l)
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for i, r := range replies {
				if string(r.ID) != c.id {
					continue
				}
				switch {
				case c.tool && r.Result != nil && r.Result.IsError && r.Result.Structured.Error.Code == c.code:
				case !c.tool && r.Error != nil && r.Error.Code < 0 && r.Error.Data.Error.Code == c.code:
				default:
					t.Errorf("reply %.400s; want %s as a tool result: %v", out[i], c.code, c.tool)
				}
				return
			}
			t.Errorf("no reply with id %s", c.id)
		})
	}
}

// A 300 MB line costs the shim no more than its line limit: the rest is
// read and dropped as it streams. The shim used to hold the whole line
// (634 MB resident).
func TestHugeStdinLineKeepsTheShimSmall(t *testing.T) {
	home := newHome(t)
	cmd := exec.Command(bin, "mcp")
	cmd.Env = procEnv(home)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out syncBuffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	chunk := []byte(strings.Repeat("x", 1<<20))
	go func() {
		defer in.Close()
		io.WriteString(in, `{"jsonrpc":"2.0","id":"huge","method":"tools/call","params":{"name":"start_workflow","arguments":{"workflowId":"`)
		for range 300 {
			if _, err := in.Write(chunk); err != nil {
				return
			}
		}
		io.WriteString(in, "\"}}}\n"+`{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatal("the shim did not finish within 2 minutes")
	}
	if err != nil {
		t.Fatalf("shim: %v", err)
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
	t.Logf("max RSS of the shim after a 300 MB line: %d KiB", rss)
	if rss > 64<<10 {
		t.Errorf("the shim's max RSS was %d MiB, want under 64 MiB", rss>>10)
	}
	if s := out.String(); !strings.Contains(s, `"id":"huge"`) || !strings.Contains(s, "PAYLOAD_TOO_LARGE") || !strings.Contains(s, `"id":2`) {
		t.Errorf("replies:\n%.600s\nwant PAYLOAD_TOO_LARGE for the huge line and the ping's answer", s)
	}
}
