package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// BenchmarkSDKColdConnect is what an IDE built on the official TypeScript
// MCP SDK waits for at every start: spawn `workrail mcp`, initialize,
// tools/list (the SDK compiles each tool's output schema then), beside a
// raw JSON-RPC client doing the same in the same Node process (target:
// the SDK's median at most twice the raw one). It reports both medians
// and their ratio; it needs Node and e2e's node_modules (`npm ci` in e2e).
func BenchmarkSDKColdConnect(b *testing.B) {
	script, err := filepath.Abs(filepath.Join("sdk", "connect.mjs"))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join("node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		b.Skip("the MCP SDK is not installed: run `npm ci` in e2e")
	}
	home := newHome(b)
	startDaemon(b, home)
	var sdk, raw []float64
	for b.Loop() {
		s, r := sdkConnect(b, script, home, 10)
		sdk, raw = append(sdk, s...), append(raw, r...)
	}
	ms, mr := medianMs(sdk), medianMs(raw)
	b.ReportMetric(ms, "sdk-median-ms")
	b.ReportMetric(mr, "raw-median-ms")
	b.ReportMetric(ms/mr, "sdk/raw")
}

// sdkConnect runs e2e/sdk/connect.mjs for runs connects of each kind and
// returns their durations in milliseconds.
func sdkConnect(b *testing.B, script, home string, runs int) (sdk, raw []float64) {
	cmd := exec.Command("node", script, bin, strconv.Itoa(runs))
	cmd.Env, cmd.Dir = procEnv(home), home
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("node %s: %v", script, err)
	}
	var got struct{ SDK, Raw []float64 }
	if err := json.Unmarshal(out, &got); err != nil {
		b.Fatalf("node %s printed %q: %v", script, out, err)
	}
	return got.SDK, got.Raw
}

func medianMs(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
