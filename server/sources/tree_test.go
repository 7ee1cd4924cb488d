//go:build unix

package sources_test

import (
	"fmt"
	"os"
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

// A routine file, in the TypeScript format, that lives in routines/ below
// the folder of the workflows calling it.
const (
	checkRoutine = `{"id":"wr.routine-check","name":"Check","description":"d","version":"1","recommendedAutonomy":"guided",
		"steps":[{"id":"look","title":"Look at {target}","prompt":"Look at {target}."}]}`
	checkCaller = `{"id":"wr.caller","name":"Caller","description":"d","version":"1",
		"steps":[{"id":"call","title":"Call","templateCall":{"templateId":"wr.templates.routine.check","args":{"target":"the API"}}}]}`
)

func registry(t *testing.T, dirs ...catalog.Source) *sources.Registry {
	t.Helper()
	reg, err := sources.New(fstest.MapFS{}, dirs)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func problemFiles(cat *catalog.Catalog) map[string]string {
	out := map[string]string{}
	for _, p := range cat.Problems {
		out[p.File] = p.Problems.Error()
	}
	return out
}

// A folder is read as it is laid out: its subfolders' files load too, a
// routine in routines/ resolves the calls of the workflows above it and
// of any other source, and hidden folders, examples/ and internal/ are
// passed over as the TypeScript WorkRail passes them over.
func TestFolderReadWithSubfolders(t *testing.T) {
	lib := t.TempDir()
	writeFile(t, lib, "caller.json", checkCaller)
	writeFile(t, filepath.Join(lib, "routines"), "check.json", checkRoutine)
	writeFile(t, filepath.Join(lib, "team", "review"), "deep.json", wfJSON("repo.deep", "Deep", ""))
	for _, skipped := range []string{".git", "examples", "internal", filepath.Join("team", "examples")} {
		writeFile(t, filepath.Join(lib, skipped), "broken.json", "{")
	}
	other := t.TempDir()
	writeFile(t, other, "other.json", strings.ReplaceAll(checkCaller, "wr.caller", "wr.other"))
	cat := catalogOf(t, registry(t, catalog.Source{Kind: catalog.User, Path: other}, catalog.Source{Kind: catalog.Config, Path: lib}), "")
	if len(cat.Problems) > 0 {
		t.Fatalf("problems: %v", problemFiles(cat))
	}
	for _, id := range []string{"repo.caller", "repo.routine-check", "repo.deep", "user.other"} {
		if _, ok := cat.Get(engine.WorkflowID(id)); !ok {
			t.Errorf("%s not loaded: %v", id, cat.IDs())
		}
	}
	if e, _ := cat.Get("user.other"); e.Compiled.Steps[0].Step == nil || e.Compiled.Steps[0].Step.Title != "Look at the API" {
		t.Errorf("the other source's call did not expand the routine: %+v", e.Compiled.Steps)
	}
}

// A subfolder's files are watched like the folder's own: a change in
// one is seen by the next call.
func TestSubfolderChangesAreSeen(t *testing.T) {
	lib := t.TempDir()
	sub := filepath.Join(lib, "routines")
	writeFile(t, sub, "a.json", wfJSON("repo.a", "First", ""))
	reg := registry(t, catalog.Source{Kind: catalog.Config, Path: lib})
	if e, ok := catalogOf(t, reg, "").Get("repo.a"); !ok || e.Compiled.Name != "First" {
		t.Fatalf("a: %+v", e.Compiled.Name)
	}
	writeFile(t, sub, "a.json", wfJSON("repo.a", "Second name", ""))
	later := time.Now().Add(time.Second)
	os.Chtimes(filepath.Join(sub, "a.json"), later, later)
	if e, ok := catalogOf(t, reg, "").Get("repo.a"); !ok || e.Compiled.Name != "Second name" {
		t.Fatalf("the edit was not seen: %+v", e.Compiled.Name)
	}
	writeFile(t, filepath.Join(sub, "more"), "b.json", wfJSON("repo.b", "B", ""))
	if _, ok := catalogOf(t, reg, "").Get("repo.b"); !ok {
		t.Fatal("a new subfolder's file was not seen")
	}
}

// The walk is bounded: a folder deeper than the bound and folders past
// the count are problems saying so (the others load), and a symbolic
// link back up the tree lists each folder once.
func TestFolderWalkIsBounded(t *testing.T) {
	lib := t.TempDir()
	deep := filepath.Join(lib, "a", "b", "c", "d")
	writeFile(t, deep, "ok.json", wfJSON("repo.four-down", "Four", ""))
	writeFile(t, filepath.Join(deep, "e"), "too-deep.json", wfJSON("repo.five-down", "Five", ""))
	symlink(t, lib, filepath.Join(lib, "a", "back-to-top"))
	symlink(t, filepath.Join(lib, "a"), filepath.Join(lib, "a", "b", "up"))
	cat := catalogOf(t, registry(t, catalog.Source{Kind: catalog.Config, Path: lib}), "")
	if _, ok := cat.Get("repo.four-down"); !ok {
		t.Errorf("the file four folders down did not load: %v", problemFiles(cat))
	}
	if _, ok := cat.Get("repo.five-down"); ok {
		t.Error("a file five folders down loaded")
	}
	probs := problemFiles(cat)
	if msg := probs[filepath.Join(deep, "e")]; !strings.Contains(msg, "more than 4 folders below") {
		t.Errorf("the folder past the bound: %q (problems %v)", msg, probs)
	}
	if len(probs) != 1 {
		t.Errorf("problems %v; want only the folder past the bound (links back up are read once, silently)", probs)
	}

	wide := t.TempDir()
	for i := range 70 {
		writeFile(t, filepath.Join(wide, "f"+pad(i)), "w.json", wfJSON("repo.w"+pad(i), "W", ""))
	}
	cat = catalogOf(t, registry(t, catalog.Source{Kind: catalog.Config, Path: wide}), "")
	var unread []string
	for file, msg := range problemFiles(cat) {
		if strings.Contains(msg, "already had 64 folders read") {
			unread = append(unread, filepath.Base(file))
		}
	}
	slices.Sort(unread)
	if want := []string{"f63", "f64", "f65", "f66", "f67", "f68", "f69"}; !slices.Equal(unread, want) {
		t.Errorf("folders left unread %v, want %v", unread, want)
	}
	if n := len(cat.IDs()); n != 63 {
		t.Errorf("%d workflows loaded, want the 63 of the folders read", n)
	}
}

// A call of a routine no folder holds names the routine, every folder it
// was looked for in, and the fix.
func TestMissingRoutineSaysWhereItWasLooked(t *testing.T) {
	user, lib := t.TempDir(), t.TempDir()
	writeFile(t, lib, "caller.json", checkCaller)
	cat := catalogOf(t, registry(t, catalog.Source{Kind: catalog.User, Path: user}, catalog.Source{Kind: catalog.Config, Path: lib}), "")
	msg := problemFiles(cat)[filepath.Join(lib, "caller.json")]
	for _, want := range []string{`calls routine "wr.routine-check", which is not loaded`, user + " (and its subfolders), " + lib + " (and its subfolders)",
		"bundled routines", "routines/ beside its workflows", "workflowPaths"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the problem lacks %q: %s", want, msg)
		}
	}
	// Once the routine's folder is there, the same file loads.
	writeFile(t, filepath.Join(lib, "routines"), "check.json", checkRoutine)
	cat = catalogOf(t, registry(t, catalog.Source{Kind: catalog.User, Path: user}, catalog.Source{Kind: catalog.Config, Path: lib}), "")
	if _, ok := cat.Get("repo.caller"); !ok {
		t.Errorf("caller not loaded: %v", problemFiles(cat))
	}
}

func pad(i int) string { return fmt.Sprintf("%02d", i) }
