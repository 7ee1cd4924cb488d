package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/store/storetest"
)

// codesCoveredByTestErrorsAsData are the codes TestErrorsAsData reaches.
var codesCoveredByTestErrorsAsData = []engine.Code{engine.CodeWorkflowNotFound, engine.CodeUnknownKey,
	engine.CodeTokenBadSignature, engine.CodeTokenInvalidFormat, engine.CodeTokenWrongKind,
	engine.CodeTokenScopeMismatch, engine.CodeInvalidInput}

// codesCoveredElsewhere are the codes other tests reach, and which.
var codesCoveredElsewhere = map[engine.Code]string{engine.CodeCancelled: "TestCancelStaysWithItsClient"}

func expectCode(t *testing.T, r result, code engine.Code) {
	t.Helper()
	mustKind(t, r, "error")
	if got := str(r.S, "error", "code"); got != string(code) {
		t.Fatalf("code %s, want %s:\n%s", got, code, r.Text)
	}
}

func workrail(t *testing.T, home string, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = procEnv(home)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("workrail %v: %v\n%s", args, err, out)
	}
}

// damage edits the stopped daemon's database the way a failing disk would.
func damage(t *testing.T, home string, f func(tx storetest.Tx) error) {
	t.Helper()
	if err := storetest.Update(filepath.Join(home, "workrail.db"), f); err != nil {
		t.Fatal(err)
	}
}

// Every code of the closed set but INTERNAL (a bug by definition) is
// reachable by some bad call or damaged store, through the real shim.
func TestEveryErrorCodeIsReachable(t *testing.T) {
	seen := map[engine.Code]bool{}
	for _, c := range append(codesCoveredByTestErrorsAsData, codesCoveredByTestScrubThroughTheDaemon...) {
		seen[c] = true
	}
	for c := range codesCoveredElsewhere {
		seen[c] = true
	}
	hit := func(t *testing.T, r result, code engine.Code) {
		t.Helper()
		expectCode(t, r, code)
		seen[code] = true
	}

	// Home A signs with key 2; home B has only key 1, and home C shares A's
	// keys but not its data.
	homeA, homeB, homeC := newHome(t), newHome(t), newHome(t)
	workrail(t, homeA, "keys", "rotate")
	a := startShim(t, homeA)
	run := startHello(t, a)
	st := str(run.S, "stateToken")
	keys, err := os.ReadFile(filepath.Join(homeA, "keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(homeC, "keys.json"), keys, 0o600); err != nil {
		t.Fatal(err)
	}
	hit(t, call(t, startShim(t, homeB), "continue_workflow", map[string]any{"stateToken": st}), engine.CodeTokenUnknownKey)
	hit(t, call(t, startShim(t, homeC), "continue_workflow", map[string]any{"stateToken": st}), engine.CodeTokenUnknownNode)
	hit(t, call(t, a, "continue_workflow", map[string]any{"stateToken": st, "ackToken": str(run.S, "ackToken"),
		"output": map[string]any{"notesMarkdown": strings.Repeat("x", 40<<10)}}), engine.CodePayloadTooLarge)

	// Damage the store under a stopped daemon; the shim restarts it.
	second := startHello(t, a)
	stopDaemon(t, homeA)
	damage(t, homeA, func(tx storetest.Tx) error {
		ev := tx.Events(1)
		k := storetest.EventKey(2)
		v := append([]byte(nil), ev.Get(k)...)
		v[len(v)/2] ^= 0x04
		return ev.Put(k, v)
	})
	hit(t, call(t, a, "continue_workflow", map[string]any{"stateToken": st}), engine.CodeSessionCorrupt)
	stopDaemon(t, homeA)
	damage(t, homeA, func(tx storetest.Tx) error {
		b := tx.Workflows()
		k, _ := b.Cursor().First()
		return b.Delete(append([]byte(nil), k...))
	})
	hit(t, call(t, a, "continue_workflow", map[string]any{"stateToken": str(second.S, "stateToken")}), engine.CodePinnedMissing)

	// A full disk: before, an INTERNAL error the agent was told to retry at
	// once. Forks from a rewound chat write until one needs new space.
	homeF := smallDiskHome(t, "4m")
	f := startShim(t, homeF)
	first := startHello(t, f)
	free := storetest.Fill(t, homeF)
	var full result
	for i := 0; i < 500 && full.S == nil; i++ {
		if r := advance(t, f, rehydrate(t, f, str(first.S, "stateToken")), "fork"); r.kind() == "error" {
			full = r
		}
	}
	hit(t, full, engine.CodeStorageUnwritable)
	if str(full.S, "error", "retry", "kind") != "retryable_after_ms" || !strings.Contains(full.Text, "Free space") {
		t.Fatalf("STORAGE_UNWRITABLE: %s", full.Text)
	}
	free()
	if r := advance(t, f, rehydrate(t, f, str(first.S, "stateToken")), "fork"); r.kind() != "step" {
		t.Fatalf("once space returned: %s", r.Text)
	}
	healthyDoctor(t, homeF)

	// A daemon that cannot start: the home's database is not a database.
	homeD := newHome(t)
	if err := os.WriteFile(filepath.Join(homeD, "workrail.db"), []byte(strings.Repeat("not a bbolt file ", 512)), 0o600); err != nil {
		t.Fatal(err)
	}
	r := rawToolCall(t, homeD, "list_workflows")
	hit(t, r, engine.CodeDaemonUnavailable)
	if str(r.S, "error", "retry", "kind") != "retryable_after_ms" || !strings.Contains(r.Text, "invalid database") {
		t.Fatalf("DAEMON_UNAVAILABLE: retry %v, text:\n%s", dig(r.S, "error", "retry"), r.Text)
	}

	// A damaged bundle: no tool takes one, so the CLI's --json envelope.
	bad := filepath.Join(homeD, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"format":"workrail.session-bundle"`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ := command(t, newHome(t), "import", bad, "--json")
	var refused struct {
		Error struct {
			Code engine.Code `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(out), &refused); err != nil || code != 1 || refused.Error.Code != engine.CodeBundleInvalid {
		t.Fatalf("import of a cut bundle = %d (%v):\n%s", code, err, out)
	}
	seen[engine.CodeBundleInvalid] = true

	for _, c := range engine.Codes() {
		if c != engine.CodeInternal && !seen[c] {
			t.Errorf("no test reaches %s", c)
		}
	}
}

// rawToolCall speaks JSON-RPC to a `workrail mcp` directly (an MCP client
// library gives up after a failed initialize) and returns the tool result
// of one tools/call.
func rawToolCall(t *testing.T, home, tool string) result {
	t.Helper()
	cmd := exec.Command(bin, "mcp")
	cmd.Env = procEnv(home)
	msgs := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}` + "\n"
	cmd.Stdin = strings.NewReader(msgs)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("workrail mcp: %v", err)
	}
	var reply struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			Structured map[string]any `json:"structuredContent"`
			IsError    bool           `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(out, &reply); err != nil || len(reply.Result.Content) == 0 {
		t.Fatalf("reply %q: %v", out, err)
	}
	r := result{S: reply.Result.Structured, Text: reply.Result.Content[0].Text, IsError: reply.Result.IsError}
	if r.Text != str(r.S, "text") || !r.IsError {
		t.Fatalf("reply is not a well-formed error result: %s", out)
	}
	return r
}

// doctor notices damaged derived indexes even though the log verifies,
// and --rebuild-indexes refolds them from the log; a daemon that finds
// them on a session's first touch rebuilds them itself, logs it, and the
// agent's call goes on.
func TestDoctorRebuildsDamagedIndexes(t *testing.T) {
	home := newHome(t)
	c := startShim(t, home)
	r := advance(t, c, startHello(t, c), "greeted")
	stopDaemon(t, home)
	forge := func(tx storetest.Tx) error {
		return tx.Nodes(1).Put(storetest.IDKey(1), []byte(`{"id":1}`))
	}
	damage(t, home, forge)
	cmd := exec.Command(bin, "doctor")
	cmd.Env = procEnv(home)
	out, err := cmd.Output()
	if err == nil || !strings.Contains(string(out), "damaged indexes: nodes index") {
		t.Fatalf("doctor on damaged indexes: %v\n%s", err, out)
	}
	workrail(t, home, "doctor", "--rebuild-indexes")
	healthyDoctor(t, home)

	damage(t, home, forge)
	next := advance(t, c, r, "listed")
	if next.kind() != "step" {
		t.Fatalf("the restarted daemon did not run from the log: %s", next.Text)
	}
	log, _ := os.ReadFile(filepath.Join(home, "logs", "workrail.log"))
	if !strings.Contains(string(log), `"level":"WARN"`) || !strings.Contains(string(log), "derived records differed from the log (nodes index") {
		t.Fatalf("workrail.log does not say what it repaired:\n%s", log)
	}
	healthyDoctor(t, home)
}
