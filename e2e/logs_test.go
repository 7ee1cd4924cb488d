package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// logLines reads logs/workrail.log as JSON lines.
func logLines(t *testing.T, home string) (lines []map[string]any, raw string) {
	t.Helper()
	path := filepath.Join(home, "logs", "workrail.log")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("%s: mode %v, %v; want 0600", path, info.Mode().Perm(), err)
	}
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q is not JSON: %v", l, err)
		}
		lines = append(lines, m)
	}
	return lines, string(b)
}

// toolLines are the log's tool-call lines for tool.
func toolLines(lines []map[string]any, tool string) []map[string]any {
	var out []map[string]any
	for _, l := range lines {
		if msg, _ := l["msg"].(string); strings.HasPrefix(msg, "tool call") && l["tool"] == tool {
			out = append(out, l)
		}
	}
	return out
}

// A tool call through a shim is one line in the home's log with its tool,
// session, kind and duration, and an erroring one its code; never what the
// agent sent. The shim's own lines land there too, while its stdout
// carries protocol bytes only.
func TestToolCallsAreLogged(t *testing.T) {
	home := newHome(t)
	c := startShim(t, home)
	startHello(t, c)
	const secret = "wr.secret-name-in-the-arguments"
	mustKind(t, call(t, c, "start_workflow", map[string]any{"workflowId": secret}), "error")

	lines, raw := logLines(t, home)
	if strings.Contains(raw, secret) {
		t.Errorf("the log holds what the agent sent:\n%s", raw)
	}
	starts := toolLines(lines, "start_workflow")
	if len(starts) != 2 {
		t.Fatalf("%d start_workflow lines; want 2:\n%s", len(starts), raw)
	}
	for i, want := range []map[string]any{
		{"level": "INFO", "kind": "step", "session": "ses_1", "proc": "daemon"},
		{"level": "ERROR", "kind": "error", "code": "WORKFLOW_NOT_FOUND", "proc": "daemon"},
	} {
		got := starts[i]
		for k, v := range want {
			if got[k] != v {
				t.Errorf("line %d: %s = %v; want %v (%v)", i, k, got[k], v, got)
			}
		}
		if ms, ok := got["durationMs"].(float64); !ok || ms < 0 {
			t.Errorf("line %d: durationMs = %v", i, got["durationMs"])
		}
	}
	if _, ok := starts[0]["code"]; ok {
		t.Errorf("a step carries an error code: %v", starts[0])
	}
	shimLogged := false
	for _, l := range lines {
		shimLogged = shimLogged || (l["proc"] == "shim" && strings.HasPrefix(l["msg"].(string), "starting the daemon"))
	}
	if !shimLogged {
		t.Errorf("the shim's start of the daemon is not in the log:\n%s", raw)
	}

	stdout, _, code := rawShim(t, home, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"start_workflow","arguments":{"workflowId":"wr.nope"}}}`+"\n")
	if code != 0 || len(stdout) != 2 {
		t.Fatalf("exit %d, %d stdout lines; want 0 and 2:\n%s", code, len(stdout), strings.Join(stdout, "\n"))
	}
	for _, l := range stdout {
		var msg struct {
			JSONRPC string `json:"jsonrpc"`
		}
		if err := json.Unmarshal([]byte(l), &msg); err != nil || msg.JSONRPC != "2.0" {
			t.Errorf("stdout line is not JSON-RPC: %q", l)
		}
	}
	lines, raw = logLines(t, home)
	if errs := toolLines(lines, "start_workflow"); len(errs) != 3 || errs[2]["code"] != "WORKFLOW_NOT_FOUND" {
		t.Errorf("the raw shim's call is not logged with its code:\n%s", raw)
	}
}

// A foreground daemon writes the log to stderr too with --verbose, and
// otherwise only says that it stops.
func TestVerboseDaemonLogsToStderr(t *testing.T) {
	for _, verbose := range []bool{false, true} {
		t.Run(map[bool]string{false: "quiet", true: "verbose"}[verbose], func(t *testing.T) {
			home := newHome(t)
			var args []string
			if verbose {
				args = append(args, "--verbose")
			}
			d, err := launchDaemon(home, args...)
			if err != nil {
				t.Fatal(err)
			}
			mustKind(t, call(t, startShim(t, home), "list_workflows", map[string]any{}), "workflows")
			d.terminate(t)
			stderr := d.stderr.String()
			logged := strings.Contains(stderr, `msg="tool call"`) && strings.Contains(stderr, "tool=list_workflows kind=workflows durationMs=")
			if logged != verbose || !strings.Contains(stderr, "shutting down") {
				t.Errorf("stderr of a daemon with verbose %v:\n%s", verbose, stderr)
			}
			if lines, raw := logLines(t, home); len(toolLines(lines, "list_workflows")) != 1 {
				t.Errorf("the log file lacks the call:\n%s", raw)
			}
		})
	}
}
