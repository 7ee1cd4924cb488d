package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
