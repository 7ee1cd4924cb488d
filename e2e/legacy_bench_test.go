package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkDaemonStartLegacyLibrary measures a daemon's start on a home
// whose config.json lists a folder of 60 workflows of the TypeScript
// format (copies of the 90 KB fixture, each under its own id) and the
// fixtures' routines as workflowPaths, and on one that lists none: from
// exec until the socket answers /health (health-ms), and until the first
// list_workflows, which reads and compiles every file, has answered
// (listed-ms). Goal: 60 files cost at most 50 ms more than none. Medians
// of at least 7 starts; ns/op also counts the SIGTERM shutdown.
func BenchmarkDaemonStartLegacyLibrary(b *testing.B) {
	for _, n := range []int{0, 60} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			home := newHome(b)
			writeLegacyLibrary(b, home, n)
			// The first start writes the keys and the token: a restart does not.
			startAnswering(b, home).terminate(b)
			var health, listed []time.Duration
			sample := func() {
				t0 := time.Now()
				d := startAnswering(b, home)
				health = append(health, time.Since(t0))
				listLibrary(b, home, n)
				listed = append(listed, time.Since(t0))
				d.terminate(b)
			}
			for b.Loop() {
				sample()
			}
			for len(listed) < 7 {
				sample()
			}
			b.ReportMetric(float64(quantile(health, 0.5).Microseconds())/1000, "health-ms")
			b.ReportMetric(float64(quantile(listed, 0.5).Microseconds())/1000, "listed-ms")
		})
	}
}

// writeLegacyLibrary writes n copies of the large fixture into a folder of
// home, each under its own id, and names it and the fixtures' routines in
// config.json; with n 0 config.json names no folder.
func writeLegacyLibrary(b *testing.B, home string, n int) {
	b.Helper()
	if n == 0 {
		return
	}
	src, err := os.ReadFile(filepath.Join(legacyDir, "mixed-platform-migration.json"))
	if err != nil {
		b.Fatal(err)
	}
	const id = `"id": "wr.platform-migration"`
	if !bytes.Contains(src, []byte(id)) {
		b.Fatalf("the large fixture no longer says %s", id)
	}
	lib := filepath.Join(home, "library")
	if err := os.Mkdir(lib, 0o700); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		copyOf := bytes.Replace(src, []byte(id), fmt.Appendf(nil, `"id": "wr.platform-migration-%02d"`, i), 1)
		if err := os.WriteFile(filepath.Join(lib, fmt.Sprintf("platform-migration-%02d.json", i)), copyOf, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	routines, err := filepath.Abs(filepath.Join(legacyDir, "routines"))
	if err != nil {
		b.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"workflowPaths": []string{lib, routines}})
	if err := os.WriteFile(filepath.Join(home, "config.json"), cfg, 0o600); err != nil {
		b.Fatal(err)
	}
}

// listLibrary calls list_workflows on home's daemon socket and checks that
// every file of the library loaded: n workflows and the three routines
// from config folders, and no load problem.
func listLibrary(b *testing.B, home string, n int) {
	b.Helper()
	ep := &mcpEndpoint{url: "http://localhost/mcp", hc: socketHTTP(home)}
	sc, err := ep.call(1, "list_workflows", map[string]any{})
	if err != nil {
		b.Fatal(err)
	}
	if p := asList(sc["problems"]); len(p) > 0 {
		raw, _ := json.Marshal(p[0])
		b.Fatalf("%d file(s) of the library did not load; the first: %.600s", len(p), raw)
	}
	fromConfig := 0
	for _, w := range asList(sc["workflows"]) {
		if str(w.(map[string]any), "source", "kind") == "config" {
			fromConfig++
		}
	}
	if want := map[bool]int{true: 0, false: n + 3}[n == 0]; fromConfig != want {
		b.Fatalf("%d workflows from the library, want %d", fromConfig, want)
	}
}
