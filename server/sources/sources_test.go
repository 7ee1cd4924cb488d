package sources_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/server/sources"
	"github.com/workrail/workrail/workflows"
)

func wfJSON(id, name string, extra string) string {
	return fmt.Sprintf(`{"id":%q,"name":%q,"description":"d","version":"1"%s,"steps":[{"id":"a","title":"A","prompt":"do a"}]}`, id, name, extra)
}

func writeFile(t testing.TB, dir, name, body string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A file calling a routine of its own folder, both in the TypeScript
// format, loads in the daemon's catalog.
func TestFolderRoutines(t *testing.T) {
	user := t.TempDir()
	writeFile(t, user, "routine.json", `{"id":"wr.routine-check","name":"Check","description":"d","version":"1","recommendedAutonomy":"guided",
		"steps":[{"id":"look","title":"Look at {target}","prompt":"Look at {target}."}]}`)
	writeFile(t, user, "caller.json", `{"id":"wr.caller","name":"Caller","description":"d","version":"1",
		"steps":[{"id":"call","title":"Call","templateCall":{"templateId":"wr.templates.routine.check","args":{"target":"the API"}}}]}`)
	reg, err := sources.New(fstest.MapFS{}, []catalog.Source{{Kind: catalog.User, Path: user}})
	if err != nil {
		t.Fatal(err)
	}
	cat := reg.Catalog("")
	e, ok := cat.Get("user.caller")
	if !ok {
		t.Fatalf("caller not loaded: ids %v, problems %+v", cat.IDs(), cat.Problems)
	}
	if s, ok := e.Compiled.Step("call--look"); !ok || s.Title != "Look at the API" {
		t.Fatalf("routine not expanded: %+v", e.Compiled.Steps)
	}
	if r, ok := cat.Get("user.routine-check"); !ok || r.Compiled.Kind != workflow.KindRoutine || !r.Legacy() {
		t.Fatalf("routine entry = %+v", r)
	}
	// A delegation to the routine's claimed id, from another folder, runs
	// it under the id it loaded as.
	extra := t.TempDir()
	writeFile(t, extra, "fan.json", `{"id":"wr.fan","name":"Fan","description":"d","version":"1",
		"steps":[{"id":"fan","type":"parallel","title":"Fan out","parallelDelegations":[{"workflowId":"wr.routine-check"}]}]}`)
	reg, err = sources.New(fstest.MapFS{}, []catalog.Source{{Kind: catalog.User, Path: user}, {Kind: catalog.Config, Path: extra}})
	if err != nil {
		t.Fatal(err)
	}
	fan, ok := reg.Catalog("").Get("repo.fan")
	if s, _ := fan.Compiled.Step("fan"); !ok || s.Delegations[0].WorkflowID != "user.routine-check" {
		t.Fatalf("delegation not retargeted: %+v", fan.Compiled.Steps)
	}
}

func TestCatalogSourcesAndRules(t *testing.T) {
	root := t.TempDir()
	user, extra, ws := filepath.Join(root, "user"), filepath.Join(root, "extra"), filepath.Join(root, "ws")
	project := filepath.Join(ws, ".workrail", "workflows")
	writeFile(t, user, "a.json", wfJSON("team.shared", "Shared (user)", ""))
	writeFile(t, project, "a.json", wfJSON("team.shared", "Shared (project)", ""))
	writeFile(t, project, "b.json", wfJSON("project.only", "Project only", ""))
	writeFile(t, user, "legacy.json", wfJSON("my-flow", "Legacy", ""))
	writeFile(t, user, "routine.json", wfJSON("team.helper", "A helper", `,"kind":"routine"`))
	writeFile(t, extra, "reserved.json", wfJSON("wr.evil", "Evil", ""))
	writeFile(t, extra, "broken.json", `{"id":"repo.broken","name":"x"`)
	reg, err := sources.New(fstest.MapFS{"wr.b.json": {Data: []byte(wfJSON("wr.b", "Bundled", ""))}},
		[]catalog.Source{{Kind: catalog.User, Path: user}, {Kind: catalog.Config, Path: extra}})
	if err != nil {
		t.Fatal(err)
	}
	cat := reg.Catalog(ws)
	if got := strings.Join(cat.IDs(), " "); got != "my-flow project.only repo.evil team.shared team.helper wr.b" {
		t.Fatalf("catalog order = %s", got)
	}
	shared, _ := cat.Get("team.shared")
	if shared.Source.Kind != catalog.User || len(cat.Shadowed) != 1 || cat.Shadowed[0].Shadowed.Kind != catalog.Project {
		t.Fatalf("collision: winner %s, shadowed %+v", shared.Source.Kind, cat.Shadowed)
	}
	legacy, _ := cat.Get("my-flow")
	if legacy.IDStatus != workflow.Legacy || len(legacy.Warnings) != 1 || legacy.Warnings[0].Suggest != "user.my-flow" {
		t.Fatalf("legacy entry = %+v", legacy)
	}
	problems := map[string]string{}
	for _, p := range cat.Problems {
		problems[filepath.Base(p.File)] = p.Problems.Error()
	}
	if evil, ok := cat.Get("repo.evil"); !ok || len(evil.Warnings) != 1 || evil.Warnings[0].Code != event.NoticeReservedIDRenamed || evil.Warnings[0].Suggest != "repo.evil" {
		t.Fatalf("wr.* outside bundled loads under its suggested id with a notice: %+v (problems %v)", evil, problems)
	}
	if !strings.Contains(problems["broken.json"], "invalid JSON") {
		t.Fatalf("broken file: %q", problems["broken.json"])
	}
	if _, ok := cat.Get("wr.evil"); ok {
		t.Fatal("a wr.* workflow from a config folder was loaded")
	}
	// Without a workspace the project folder is not read.
	if _, ok := reg.Catalog("").Get("project.only"); ok {
		t.Fatal("project workflow visible without a workspace")
	}
}

// A workspacePath that is not a folder is reported, and a start that
// misses says where to look: a broken project file reads as "not found".
func TestLoadProblemsAreVisible(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	writeFile(t, filepath.Join(ws, ".workrail", "workflows"), "mine.json", `{"id":"project.mine","name":"x"`)
	reg, err := sources.New(fstest.MapFS{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ workspace, want string }{
		{filepath.Join(root, "nope"), "not an existing folder"},
		{filepath.Join(ws, ".workrail", "workflows", "mine.json"), "not an existing folder"},
		{ws, "invalid JSON"},
	} {
		cat := reg.Catalog(c.workspace)
		if len(cat.Problems) != 1 || !strings.Contains(cat.Problems[0].Problems.Error(), c.want) {
			t.Fatalf("Catalog(%s).Problems = %+v; want one saying %q", c.workspace, cat.Problems, c.want)
		}
	}
	if cat := reg.Catalog(root); len(cat.Problems) != 0 {
		t.Fatalf("a folder without .workrail is not a problem: %+v", cat.Problems)
	}
	x := execute.New(memstore.New(), executetest.Ring(t), reg, workflow.Preferences{}, executetest.Clock, t.Logf)
	res, ok := x.Start(context.Background(), []byte(`{"workflowId":"project.mine","workspacePath":`+strconv.Quote(ws)+`}`)).(protocol.ErrorResult)
	if !ok || res.Error.Code != engine.CodeWorkflowNotFound || !strings.Contains(res.Text, `workflow "project.mine" does not load: `) || !strings.Contains(res.Text, "invalid JSON") {
		t.Fatalf("start of a broken workflow: %+v", res)
	}
}

func TestCatalogSeesNewAndChangedFiles(t *testing.T) {
	user := t.TempDir()
	reg, err := sources.New(fstest.MapFS{}, []catalog.Source{{Kind: catalog.User, Path: user}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(reg.Catalog("").IDs()); n != 0 {
		t.Fatalf("empty folder gave %d workflows", n)
	}
	writeFile(t, user, "x.json", wfJSON("user.x", "First", ""))
	if e, ok := reg.Catalog("").Get("user.x"); !ok || e.Compiled.Name != "First" {
		t.Fatal("new file not seen")
	}
	writeFile(t, user, "x.json", wfJSON("user.x", "Second name", ""))
	if e, _ := reg.Catalog("").Get("user.x"); e.Compiled.Name != "Second name" {
		t.Fatalf("changed file not re-read: %q", e.Compiled.Name)
	}
}

func TestBundledMustBeReserved(t *testing.T) {
	_, err := sources.New(fstest.MapFS{"x.json": {Data: []byte(wfJSON("user.x", "X", ""))}}, nil)
	if err == nil || !strings.Contains(err.Error(), "wr namespace") {
		t.Fatalf("New accepted a bundled workflow outside wr: %v", err)
	}
}

// BenchmarkStartupWith500UserWorkflows measures what daemon start-up does
// with the sources: compile the bundled set and read 500 user files.
func BenchmarkStartupWith500UserWorkflows(b *testing.B) {
	user := b.TempDir()
	for i := 0; i < 500; i++ {
		steps := make([]string, 8)
		for j := range steps {
			steps[j] = fmt.Sprintf(`{"id":"s%d","title":"Step %d","promptBlocks":{"goal":"Do part %d.","procedure":["one","two"],"verify":["check"]}}`, j, j, j)
		}
		writeFile(b, user, fmt.Sprintf("w%03d.json", i), fmt.Sprintf(
			`{"id":"user.w%03d","name":"W %d","description":"d","version":"1","features":["wr.features.durable_notes"],"steps":[%s]}`, i, i, strings.Join(steps, ",")))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		reg, err := sources.New(workflows.FS, []catalog.Source{{Kind: catalog.User, Path: user}})
		if err != nil {
			b.Fatal(err)
		}
		if n := len(reg.Catalog("").IDs()); n < 500 {
			b.Fatalf("catalog has %d workflows", n)
		}
	}
}
