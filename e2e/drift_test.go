package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A user edits a workflow file while a run of it is under way: through
// the shim and a real daemon, the rehydrates before the edit (which the
// daemon answers from the catalog it keeps while no file changes) carry
// no drift, and the very next one after it does, with no restart.
func TestDriftSeenOnTheNextRehydrateAfterAnEdit(t *testing.T) {
	home := newHome(t)
	writeLongWorkflow(t, home, 3)
	startDaemon(t, home)
	p := startPipeShim(t, home)
	p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"drift","version":"1"}}}`)
	p.notify(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	st, _ := p.start()
	rehydrate := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"continue_workflow","arguments":{"stateToken":"` + st + `"}}}`
	warnings := func() []string {
		t.Helper()
		var r struct {
			Result struct {
				StructuredContent struct {
					Kind     string `json:"kind"`
					Warnings []struct {
						Code    string `json:"code"`
						Message string `json:"message"`
					} `json:"warnings"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		line := p.send(rehydrate)
		if err := json.Unmarshal(line, &r); err != nil || r.Result.StructuredContent.Kind != "step" {
			t.Fatalf("rehydrate answered %.300s (%v)", line, err)
		}
		var out []string
		for _, w := range r.Result.StructuredContent.Warnings {
			out = append(out, w.Code+": "+w.Message)
		}
		return out
	}
	for range 3 {
		if w := warnings(); len(w) != 0 {
			t.Fatalf("before the edit: warnings %q", w)
		}
	}
	file := filepath.Join(home, "workflows", "long.json")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(src), "Do step 1.", "Do step 1, then check it.", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	w := warnings()
	if len(w) != 1 || !strings.HasPrefix(w[0], "PINNED_WORKFLOW_DRIFTED: ") || !strings.Contains(w[0], "(edited)") {
		t.Fatalf("the rehydrate after the edit: warnings %q; want the drift (edited)", w)
	}
}
