package catalog_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/workflow"
)

// TestBuiltinsListRoutines: the catalog's builtins are WorkRail's, then
// each routine it holds (not its workflows), with the arguments its text
// uses as a schema and the file it came from; its snippet, put in a
// workflow's steps, compiles to the routine's steps.
func TestBuiltinsListRoutines(t *testing.T) {
	user := catalog.Source{Kind: catalog.User, Path: "/home/u/.workrail/workflows"}
	routine := `{"id":"user.routine-gather","kind":"routine","name":"Gather","description":"Gathers context.","version":"1",
 "steps":[{"id":"look","title":"Look at {topic}","prompt":"Gather what is known about {topic}, {depth} levels deep."}]}`
	entries := []catalog.Entry{
		MustLoad(t, []byte(routine), user, "gather.json"),
		MustLoad(t, wfJSON("user.plain", "Plain", ""), user, "plain.json"),
	}
	all := catalog.New(entries, nil).Builtins()
	if n := len(compile.Builtins()) + len(workflow.PromptRefs()); len(all) != n+1 {
		t.Fatalf("%d builtins; want WorkRail's %d and one routine", len(all), n)
	}
	r := all[len(all)-1]
	if r.Kind != compile.BuiltinRoutine || r.Name != "user.routine-gather" || r.Description != "Gathers context." ||
		r.Origin != (compile.BuiltinOrigin{By: "user", File: "gather.json"}) {
		t.Errorf("routine builtin %+v", r)
	}
	var schema struct {
		Properties map[string]any
		Required   []string
	}
	if err := json.Unmarshal(r.Schema, &schema); err != nil {
		t.Fatal(err)
	}
	if len(schema.Properties) != 2 || !slices.Equal(schema.Required, []string{"depth", "topic"}) {
		t.Errorf("schema %s; want the arguments depth and topic, both required", r.Schema)
	}
	host := `{"id":"user.host","name":"Host","description":"d","version":"1","steps":[` + r.Snippet + `]}`
	e, p := catalog.LoadWith([]byte(host), user, "host.json", catalog.RoutinesOf(entries))
	if p != nil {
		t.Fatalf("the routine's snippet does not compile: %v\n%s", p, r.Snippet)
	}
	if s := e.Compiled.Steps[0].Step; s == nil || s.Provenance != (compile.Provenance{Origin: compile.FromTemplate, By: "user.routine-gather"}) {
		t.Errorf("the snippet compiles to %+v; want the routine's step", e.Compiled.Steps[0])
	}
}

// TestBuiltinsListPromptRefs: every prompt reference the legacy reader
// knows is a builtin, with its text and the file that holds it.
func TestBuiltinsListPromptRefs(t *testing.T) {
	all := catalog.New(nil, nil).Builtins()
	src, err := os.ReadFile(filepath.Join("..", "workflow", "refs.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range workflow.PromptRefs() {
		i := slices.IndexFunc(all, func(b compile.Builtin) bool { return b.Kind == compile.BuiltinRef && b.Name == r.ID })
		if i < 0 {
			t.Errorf("%s is not a builtin", r.ID)
			continue
		}
		b := all[i]
		if b.Description != r.Text() || !strings.Contains(b.Snippet, `"refId": "`+r.ID+`"`) || b.Origin.File != "engine/workflow/refs.go" ||
			!strings.Contains(string(src), `"`+r.ID+`"`) {
			t.Errorf("builtin %+v", b)
		}
	}
}

// TestReadCompilesAgainOnceItsRoutinesAreKnown: a file read once, whose
// first compile fails on a routine not known yet, compiles from its Read
// to what loading its bytes with the routine gives, byte for byte.
func TestReadCompilesAgainOnceItsRoutinesAreKnown(t *testing.T) {
	user := catalog.Source{Kind: catalog.User, Path: "/home/u/.workrail/workflows"}
	routine := MustLoad(t, []byte(`{"id":"user.routine-gather","kind":"routine","name":"Gather","description":"Gathers.","version":"1",
 "steps":[{"id":"look","title":"Look at {topic}","prompt":"Gather what is known about {topic}."}]}`), user, "gather.json")
	all := catalog.New([]catalog.Entry{routine}, nil).Builtins()
	host := []byte(`{"id":"user.host","name":"Host","description":"d","version":"1","steps":[
 {"id":"first","title":"First","prompt":"Begin."},` + all[len(all)-1].Snippet + `]}`)
	rd, p := catalog.ReadFile(host, user)
	if p != nil {
		t.Fatal(p)
	}
	if _, p := rd.Load("host.json", catalog.RoutinesOf(nil)); p == nil {
		t.Fatal("the host compiled without its routine")
	}
	known := catalog.RoutinesOf([]catalog.Entry{routine})
	again, p := rd.Load("host.json", known)
	if p != nil {
		t.Fatalf("the host does not compile from its Read with its routine known: %v", p)
	}
	want, p := catalog.LoadWith(host, user, "host.json", known)
	if p != nil {
		t.Fatal(p)
	}
	if again.Compiled.Hash != want.Compiled.Hash || string(again.Compiled.Canonical) != string(want.Compiled.Canonical) {
		t.Errorf("compiled from its Read: %s\nfrom its bytes: %s", again.Compiled.Canonical, want.Compiled.Canonical)
	}
}
