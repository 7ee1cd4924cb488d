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
// (listed-ms), and how long a second list_workflows takes, with the
// folders' files unchanged (relist-ms). Goal: 60 files cost at most 50 ms
// more than none. Medians of at least 7 starts; ns/op also counts the
// SIGTERM shutdown.
func BenchmarkDaemonStartLegacyLibrary(b *testing.B) {
	for _, n := range []int{0, 60} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			home := newHome(b)
			writeLegacyLibrary(b, home, n)
			// The first start writes the keys and the token: a restart does not.
			startAnswering(b, home).terminate(b)
			var health, listed, relisted []time.Duration
			sample := func() {
				t0 := time.Now()
				d := startAnswering(b, home)
				health = append(health, time.Since(t0))
				listLibrary(b, home, n)
				listed = append(listed, time.Since(t0))
				t1 := time.Now()
				listLibrary(b, home, n)
				relisted = append(relisted, time.Since(t1))
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
			b.ReportMetric(float64(quantile(relisted, 0.5).Microseconds())/1000, "relist-ms")
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

// BenchmarkDaemonStartTSLibrary measures a daemon's start on a home whose
// config.json lists the TypeScript WorkRail's workflows/ folder as it is
// laid out (its workflows, and its routines in routines/, read
// recursively; internal/ and examples/ left out as there), from the
// checkout WORKRAIL_TS_DIR names: from exec until the socket answers
// /health (health-ms), how long the first list_workflows then takes,
// reading and compiling every file (first-list-ms, goal: at most 250 ms),
// and from exec until it has answered (listed-ms). Medians of at least 7
// starts. Skipped without the checkout.
func BenchmarkDaemonStartTSLibrary(b *testing.B) {
	dir := os.Getenv("WORKRAIL_TS_DIR")
	if dir == "" {
		b.Skip("WORKRAIL_TS_DIR is not set: point it at a checkout of the TypeScript WorkRail to load its library")
	}
	lib := filepath.Join(dir, "workflows")
	want := 0
	err := filepath.WalkDir(lib, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "internal" || d.Name() == "examples") {
			return filepath.SkipDir
		}
		if !d.IsDir() && filepath.Ext(p) == ".json" {
			want++
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	home := newHome(b)
	cfg, _ := json.Marshal(map[string]any{"workflowPaths": []string{lib}})
	if err := os.WriteFile(filepath.Join(home, "config.json"), cfg, 0o600); err != nil {
		b.Fatal(err)
	}
	startAnswering(b, home).terminate(b)
	var health, first, listed []time.Duration
	sample := func() {
		t0 := time.Now()
		d := startAnswering(b, home)
		health = append(health, time.Since(t0))
		t1 := time.Now()
		if got := listConfigWorkflows(b, home); got != want {
			b.Fatalf("%d workflows and routines from %s, want its %d files", got, lib, want)
		}
		first = append(first, time.Since(t1))
		listed = append(listed, time.Since(t0))
		d.terminate(b)
	}
	for b.Loop() {
		sample()
	}
	for len(listed) < 7 {
		sample()
	}
	b.ReportMetric(float64(want), "files")
	b.ReportMetric(float64(quantile(health, 0.5).Microseconds())/1000, "health-ms")
	b.ReportMetric(float64(quantile(first, 0.5).Microseconds())/1000, "first-list-ms")
	b.ReportMetric(float64(quantile(listed, 0.5).Microseconds())/1000, "listed-ms")
}

// listConfigWorkflows calls list_workflows on home's daemon socket and
// counts the workflows from config folders, failing on any load problem.
func listConfigWorkflows(b *testing.B, home string) int {
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
	n := 0
	for _, w := range asList(sc["workflows"]) {
		if str(w.(map[string]any), "source", "kind") == "config" {
			n++
		}
	}
	return n
}
