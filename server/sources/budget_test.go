package sources_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/server/sources"
)

const notLoaded = "not loaded: the workflows before it in its folder (in name order) hold the limit"

// userRegistry reads folder as the user's workflows.
func userRegistry(t *testing.T, folder string) *sources.Registry {
	t.Helper()
	reg, err := sources.New(fstest.MapFS{}, []catalog.Source{{Kind: catalog.User, Path: folder}})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// weights is what each loaded file of cat holds of its folder's budget,
// by file name.
func weights(cat *catalog.Catalog) map[string]int {
	out := map[string]int{}
	for _, e := range cat.All() {
		if e.Source.Kind != catalog.Bundled {
			out[filepath.Base(e.File)] = len(e.Text) + len(e.Compiled.Canonical)
		}
	}
	return out
}

// loadedFiles are the names of the files cat loaded from folders, sorted.
func loadedFiles(cat *catalog.Catalog) []string {
	var out []string
	for n := range weights(cat) {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// A folder's workflows hold at most its budget, counted in name order:
// the files at the budget load (a broken one counting the bytes kept to
// retry it), the first past it and every later one are problems.
func TestFolderBudgetInNameOrder(t *testing.T) {
	user := t.TempDir()
	for _, name := range []string{"a", "b", "d", "e"} {
		writeFile(t, user, name+".json", wfJSON("user."+name, strings.ToUpper(name), ""))
	}
	writeFile(t, user, "c.json", `{"id":"user.c",`) // broken: its bytes are kept to retry it
	w := weights(catalogOf(t, userRegistry(t, user), ""))
	broken := len(`{"id":"user.c",`)
	cases := []struct {
		name   string
		budget int
		loaded []string
		out    []string // "not loaded"
	}{
		{"all of them", w["a.json"] + w["b.json"] + broken + w["d.json"] + w["e.json"], []string{"a.json", "b.json", "d.json", "e.json"}, nil},
		{"one byte short of all", w["a.json"] + w["b.json"] + broken + w["d.json"] + w["e.json"] - 1, []string{"a.json", "b.json", "d.json"}, []string{"e.json"}},
		{"a, b and c exactly", w["a.json"] + w["b.json"] + broken, []string{"a.json", "b.json"}, []string{"d.json", "e.json"}},
		{"a and b exactly", w["a.json"] + w["b.json"], []string{"a.json", "b.json"}, []string{"c.json", "d.json", "e.json"}},
		{"one byte short of a and b", w["a.json"] + w["b.json"] - 1, []string{"a.json"}, []string{"b.json", "c.json", "d.json", "e.json"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reg := userRegistry(t, user)
			sources.SetBudget(reg, tc.budget, time.Minute)
			cat := catalogOf(t, reg, "")
			if got := loadedFiles(cat); !slices.Equal(got, tc.loaded) {
				t.Errorf("loaded %v; want %v", got, tc.loaded)
			}
			problems := problemsByFile(cat)
			for _, name := range tc.out {
				if !strings.Contains(problems[name], notLoaded) {
					t.Errorf("%s: %q; want %q", name, problems[name], notLoaded)
				}
			}
			if !slices.Contains(tc.out, "c.json") && !strings.Contains(problems["c.json"], "invalid JSON") {
				t.Errorf("c.json, before the limit: %q", problems["c.json"])
			}
			if want := len(tc.loaded) + len(problems); want != 5 {
				t.Errorf("%d files loaded or problems; want the 5", want)
			}
		})
	}
}

// The files a call did not reach in the time it may spend compiling a
// folder are problems that say so, and the next call compiles them; a
// file compiled once needs no time while it is unchanged.
func TestFolderCompileTimeIsBudgeted(t *testing.T) {
	user := t.TempDir()
	for i := range 3 {
		writeFile(t, user, fmt.Sprintf("w%d.json", i), wfJSON(fmt.Sprintf("user.w%d", i), "W", ""))
	}
	reg := userRegistry(t, user)
	sources.SetBudget(reg, 64<<20, 0)
	cat := catalogOf(t, reg, "")
	if loaded := loadedFiles(cat); len(loaded) != 0 {
		t.Fatalf("loaded %v with no time to compile", loaded)
	}
	for name, p := range problemsByFile(cat) {
		if !strings.Contains(p, "not compiled yet: compiling its folder took more than 0s on this call") {
			t.Errorf("%s: %q", name, p)
		}
	}
	sources.SetBudget(reg, 64<<20, time.Minute)
	if loaded := loadedFiles(catalogOf(t, reg, "")); len(loaded) != 3 {
		t.Fatalf("the next call loaded %v", loaded)
	}
	writeFile(t, user, "w3.json", wfJSON("user.w3", "W", ""))
	sources.SetBudget(reg, 64<<20, 0)
	cat = catalogOf(t, reg, "")
	if loaded := loadedFiles(cat); len(loaded) != 3 || !strings.Contains(problemsByFile(cat)["w3.json"], "not compiled yet") {
		t.Fatalf("with no time to compile, loaded %v, problems %v; want the three compiled before, and w3 not yet", loaded, problemsByFile(cat))
	}
}

// Loading a file again with its folder's routines spends the folder's
// budget too.
func TestRetriedFilesSpendTheBudget(t *testing.T) {
	user := t.TempDir()
	writeFile(t, user, "a-routine.json", `{"id":"routine-check","name":"Check","description":"d","version":"1",
		"steps":[{"id":"look","title":"Look at {target}","prompt":"Look at {target}."}]}`)
	writeFile(t, user, "b-caller.json", `{"id":"caller","name":"Caller","description":"d","version":"1",
		"steps":[{"id":"call","title":"Call","templateCall":{"templateId":"wr.templates.routine.check","args":{"target":"the API"}}}]}`)
	w := weights(catalogOf(t, userRegistry(t, user), ""))
	if len(w) != 2 {
		t.Fatalf("loaded %v", w)
	}
	for _, tc := range []struct {
		budget int
		loads  bool
	}{{w["a-routine.json"] + w["b-caller.json"], true}, {w["a-routine.json"] + w["b-caller.json"] - 1, false}} {
		reg := userRegistry(t, user)
		sources.SetBudget(reg, tc.budget, time.Minute)
		cat := catalogOf(t, reg, "")
		_, ok := cat.Get(engine.WorkflowID("caller"))
		if ok != tc.loads || (!ok && !strings.Contains(problemsByFile(cat)["b-caller.json"], notLoaded)) {
			t.Errorf("budget %d: caller loaded %v, problems %v", tc.budget, ok, problemsByFile(cat))
		}
	}
}

// A folder holding the two bombs (a routine with a long prompt called
// from 3,000 steps, and a prompt of 200,000 references) lists them as
// problems saying what they expand to, loads its other files, and
// answers well within the heap catalogOf allows.
func TestHostileFilesDoNotStopTheirFolder(t *testing.T) {
	project := t.TempDir()
	folder := filepath.Join(project, ".workrail", "workflows")
	long := strings.Repeat("Check every file for {topic}. ", 200_000/30)
	writeFile(t, folder, "routine-big.json", `{"id":"routine-big","name":"Big","version":"1","description":"d",
		"steps":[{"id":"s","title":"Look at {topic}","prompt":"`+long+`"}]}`)
	calls := make([]string, 3000)
	for i := range calls {
		calls[i] = fmt.Sprintf(`{"id":"c%d","title":"Call","templateCall":{"templateId":"wr.templates.routine.big","args":{"topic":"x"}}}`, i)
	}
	writeFile(t, folder, "expand.json", `{"id":"expand","name":"Expand","version":"1","description":"d","steps":[`+strings.Join(calls, ",")+`]}`)
	writeFile(t, folder, "render.json", `{"id":"project.render","name":"Render","version":"1","description":"d",
		"context":[{"name":"t","type":"string","description":"d"}],"steps":[{"id":"s","title":"S","prompt":"`+strings.Repeat("{{t}}", 200_000)+`"}]}`)
	writeFile(t, folder, "good.json", wfJSON("project.good", "Good", ""))
	reg := userRegistry(t, t.TempDir())
	cat := catalogOf(t, reg, project)
	if _, ok := cat.Get("project.good"); !ok {
		t.Errorf("good.json did not load beside the bombs: %v", problemsByFile(cat))
	}
	problems := problemsByFile(cat)
	for name, want := range map[string]string{
		"expand.json": "/steps/1000: expands to 3,000 steps once its routine calls are expanded, over the limit of 1,000",
		"render.json": "/steps/0: step s: its title and prompt expand to 1,000,001 bytes, over the limit of 262,144 (256 KiB) for one prompt",
	} {
		if !strings.Contains(problems[name], want) {
			t.Errorf("%s: %q; want %q", name, problems[name], want)
		}
	}
}
