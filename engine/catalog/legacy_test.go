package catalog_test

import (
	"os"
	"slices"
	"testing"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/workflow"
)

func fixture(t *testing.T, name string) catalog.File {
	t.Helper()
	b, err := os.ReadFile("../workflow/legacy/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return catalog.File{Name: name, Data: b}
}

// TestLoadSetLegacy: a workflow and the routine it calls, both in the
// TypeScript format and both claiming wr.* ids, load together from a
// user folder: renamed, normalized with one notice per rewrite, the
// routine expanded, the dialect recorded.
func TestLoadSetLegacy(t *testing.T) {
	src := catalog.Source{Kind: catalog.User, Path: "/u"}
	entries, problems := catalog.LoadSet([]catalog.File{fixture(t, "mixed.json"), fixture(t, "routine.json")}, src, nil)
	if len(problems) > 0 {
		t.Fatalf("problems: %+v", problems)
	}
	if len(entries) != 2 || entries[0].Compiled.ID != "user.mixed-sample" || entries[1].Compiled.ID != "user.routine-check" {
		t.Fatalf("entries: %v", entries)
	}
	mixed, routine := entries[0], entries[1]
	if !mixed.Legacy() || mixed.Compiled.Dialect != compile.DialectTS || !slices.IsSorted(mixed.Compiled.Rewrites) || len(mixed.Compiled.Rewrites) == 0 {
		t.Errorf("dialect %q rewrites %v", mixed.Compiled.Dialect, mixed.Compiled.Rewrites)
	}
	if routine.Compiled.Kind != workflow.KindRoutine {
		t.Errorf("routine kind = %q", routine.Compiled.Kind)
	}
	codes := map[event.NoticeCode]int{}
	for _, n := range mixed.Warnings {
		codes[n.Code]++
		if n.Code == event.NoticeLegacyFormat && (n.Rewrite == "" || n.Pointer == "" || n.Message == "") {
			t.Errorf("a legacy notice without its rewrite, pointer or message: %+v", n)
		}
		if n.Code == event.NoticeRoutineArgUnused && n.Pointer != "/steps/5/template/args/unused" {
			t.Errorf("unused argument notice points at %s", n.Pointer)
		}
	}
	if codes[event.NoticeReservedIDRenamed] != 1 || codes[event.NoticeRoutineArgUnused] != 1 || codes[event.NoticeLegacyFormat] < 20 {
		t.Errorf("notices by code: %v", codes)
	}
	look, ok := mixed.Compiled.Step("second-look--look")
	if !ok || look.Title != "Look at the public API" || look.Provenance != (compile.Provenance{Origin: compile.FromTemplate, By: "user.routine-check"}) {
		t.Fatalf("routine step = %+v", look)
	}
	if mixed.Compiled.Notes != workflow.NotesRequired {
		t.Errorf("notes policy %q; a legacy file requires notes", mixed.Compiled.Notes)
	}
}

// TestReservedIDNeverShadowsBundled: a user file claiming a bundled id
// loads beside it, under its own id.
func TestReservedIDNeverShadowsBundled(t *testing.T) {
	b := []byte(`{"id":"wr.hello","name":"Mine","description":"d","version":"1","steps":[{"id":"a","title":"A","prompt":"p"}]}`)
	bundled := MustLoad(t, b, catalog.Source{Kind: catalog.Bundled}, "wr.hello.json")
	mine := MustLoad(t, b, catalog.Source{Kind: catalog.User, Path: "/u"}, "hello.json")
	c := catalog.New([]catalog.Entry{mine, bundled}, nil)
	if e, _ := c.Get("wr.hello"); e.Source.Kind != catalog.Bundled {
		t.Fatalf("wr.hello is %s's", e.Source.Kind)
	}
	if _, ok := c.Get("user.hello"); !ok || len(c.Shadowed) != 0 {
		t.Fatalf("user.hello missing or something shadowed: %+v", c.Shadowed)
	}
}

// TestRoutinesResolveAmongBundled: a routine not among the files given
// resolves among the fallback (the bundled ones).
func TestRoutinesResolveAmongBundled(t *testing.T) {
	r := fixture(t, "routine.json")
	bundled, problems := catalog.LoadSet([]catalog.File{r}, catalog.Source{Kind: catalog.Bundled}, nil)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	entries, problems := catalog.LoadSet([]catalog.File{fixture(t, "mixed.json")}, catalog.Source{Kind: catalog.Project, Path: "/p"}, catalog.RoutinesOf(bundled))
	if len(problems) > 0 || len(entries) != 1 {
		t.Fatalf("problems %+v", problems)
	}
	if s, ok := entries[0].Compiled.Step("second-look--dig"); !ok || s.Provenance.By != "wr.routine-check" {
		t.Fatalf("step = %+v", s)
	}
	if _, problems := catalog.LoadSet([]catalog.File{fixture(t, "mixed.json")}, catalog.Source{Kind: catalog.Project, Path: "/p"}, nil); len(problems) != 1 {
		t.Fatal("a call to a routine found nowhere loaded")
	}
}
