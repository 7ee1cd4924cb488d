package e2e

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/workrail/workrail/engine/event"
)

// toolNames lists the tools tools/list shows.
func toolNames(t *testing.T, c *client.Client) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// checkpoint calls checkpoint_workflow with the tokens of r and notes.
func checkpoint(t *testing.T, c *client.Client, r result, notes string) result {
	t.Helper()
	return call(t, c, "checkpoint_workflow", map[string]any{"stateToken": str(r.S, "stateToken"),
		"checkpointToken": str(r.S, "checkpointToken"), "output": map[string]any{"notesMarkdown": notes}})
}

// Start → checkpoint → the same checkpoint again → continue to completion,
// through the real shim and daemon: the checkpoint keeps the pending step,
// its replay is the first answer byte for byte, and the run goes on from
// the checkpoint. start_session is not served by default.
func TestCheckpointThroughTheShim(t *testing.T) {
	home := newHome(t)
	c := startShim(t, home)
	names := toolNames(t, c)
	if !slices.Contains(names, "checkpoint_workflow") || slices.Contains(names, "start_session") {
		t.Fatalf("tools = %v; want checkpoint_workflow and not start_session", names)
	}
	r := startHello(t, c)
	cp := checkpoint(t, c, r, "Greeted the user.\nNext: look around.")
	mustKind(t, cp, "step")
	if str(cp.S, "pending", "stepId") != "greet" || str(cp.S, "checkpoint", "nodeId") == "" || str(cp.S, "stateToken") == str(r.S, "stateToken") {
		t.Fatalf("checkpoint answered %s", cp.Raw)
	}
	if !strings.Contains(cp.Text, "call checkpoint_workflow with:") {
		t.Errorf("the answer does not offer the next checkpoint:\n%s", cp.Text)
	}
	again := checkpoint(t, c, r, "Greeted the user.\nNext: look around.")
	if !bytes.Equal(again.Raw, cp.Raw) {
		t.Fatalf("the replayed checkpoint differs:\n%s\n%s", cp.Raw, again.Raw)
	}
	steps := []string{}
	for r = cp; r.kind() == "step"; r = advance(t, c, r, "Did "+str(r.S, "pending", "stepId")+".") {
		steps = append(steps, str(r.S, "pending", "stepId"))
	}
	mustKind(t, r, "complete")
	if !slices.Equal(steps, helloSteps) {
		t.Errorf("steps after the checkpoint %v; want %v", steps, helloSteps)
	}
	stopGracefully(t, home)
	var kinds []string
	for _, evs := range readLogs(t, home) {
		for _, e := range evs {
			if d, ok := e.Data.(*event.NodeCreatedData); ok && d.NodeKind == event.NodeCheckpoint {
				kinds = append(kinds, string(d.NodeKind))
			}
		}
	}
	if len(kinds) != 1 {
		t.Errorf("%d checkpoint nodes in the log; want 1", len(kinds))
	}
}

// config.json turns start_session on (restart-required, so before the
// daemon starts); its session takes checkpoints.
func TestStartSessionEnabledByConfig(t *testing.T) {
	home := newHome(t)
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"features":{"start_session":true}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startShim(t, home)
	if names := toolNames(t, c); !slices.Contains(names, "start_session") {
		t.Fatalf("tools = %v; want start_session", names)
	}
	s := call(t, c, "start_session", map[string]any{})
	mustKind(t, s, "step")
	if str(s.S, "workflow", "workflowId") != "wr.session" {
		t.Fatalf("start_session answered %s", s.Raw)
	}
	cp := checkpoint(t, c, s, "Investigated the flaky login test: a timeout in the fixture.")
	mustKind(t, cp, "step")
	cp2 := checkpoint(t, c, cp, "Raised the fixture timeout; the test passes 50 times in a row.")
	mustKind(t, cp2, "step")
	if str(cp2.S, "session", "sessionId") != str(s.S, "session", "sessionId") {
		t.Fatalf("the checkpoint moved to another session: %s", cp2.Raw)
	}
	mustKind(t, advance(t, c, cp2, "Done: the login test is fixed."), "complete")
}

// A start with the workspacePath of a git repository records its branch,
// HEAD and root, read from .git; the Console's sessions page shows the
// branch, and the log holds all three.
func TestStartRecordsGitObservations(t *testing.T) {
	home := newHome(t)
	repo := t.TempDir()
	const sha = "0123456789abcdef0123456789abcdef01234567"
	for name, content := range map[string]string{".git/HEAD": "ref: refs/heads/feature/e2e-observe\n", ".git/refs/heads/feature/e2e-observe": sha + "\n"} {
		p := filepath.Join(repo, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := startShim(t, home)
	r := call(t, c, "start_workflow", map[string]any{"workflowId": "wr.hello", "workspacePath": filepath.Join(repo, "src")})
	mustKind(t, r, "step")
	plain := startHello(t, c)
	// An IDE that starts the shim in the repository needs no workspacePath:
	// the shim sends its folder, and only observations read it.
	if err := os.MkdirAll(filepath.Join(repo, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	inRepo, err := spawnShimIn(filepath.Join(repo, "src"), bin, home)
	if err != nil {
		t.Fatal(err)
	}
	defer inRepo.c.Close()
	fromShim := call(t, inRepo.c, "start_workflow", map[string]any{"workflowId": "wr.hello"})
	mustKind(t, fromShim, "step")

	name, value := ownerAuth(t, home)
	code, _, page := get(t, mustInfo(t, home).URL+"/", "", name, value)
	if code != http.StatusOK || !strings.Contains(page, "feature/e2e-observe") {
		t.Errorf("GET / = %d; the sessions page does not show the branch", code)
	}
	stopGracefully(t, home)
	logs := readLogs(t, home)
	want := map[event.ObservationKey]string{event.ObsGitBranch: "feature/e2e-observe", event.ObsGitHeadSHA: sha, event.ObsRepoRoot: repo}
	for _, sid := range []string{str(r.S, "session", "sessionId"), str(fromShim.S, "session", "sessionId")} {
		got := map[event.ObservationKey]string{}
		for _, e := range logs[sid] {
			if d, ok := e.Data.(*event.ObservationRecordedData); ok {
				got[d.Key] = d.Value
			}
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("session %s: observation %s = %q; want %q (all: %v)", sid, k, got[k], v, got)
			}
		}
	}
	for _, e := range logs[str(plain.S, "session", "sessionId")] {
		if e.Kind == event.ObservationRecorded {
			t.Errorf("a start without a workspace recorded %+v", e.Data)
		}
	}
}
