package sources_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/server/sources"
)

// A reference read from the package a library came with is found when
// the library's folder is in that package (beside its spec/ and docs/),
// and otherwise says every place it was looked for; a source that climbs
// out of the package is never looked for, and a workspace reference is
// left to the workspace.
func TestPackageReferencesArePlaced(t *testing.T) {
	pkg := t.TempDir()
	lib := filepath.Join(pkg, "workflows")
	writeFile(t, filepath.Join(pkg, "spec"), "rubric.md", "# Rubric\n")
	writeFile(t, lib, "audit.json", `{"id":"wr.audit","name":"Audit","description":"d","version":"1","metricsProfile":"none",
		"references":[
			{"id":"rubric","title":"Rubric","source":"./spec/rubric.md","purpose":"p","authoritative":true,"resolveFrom":"package"},
			{"id":"gone","title":"Gone","source":"docs/gone.md","purpose":"p","authoritative":false,"resolveFrom":"package"},
			{"id":"out","title":"Out","source":"../../etc/passwd","purpose":"p","authoritative":false,"resolveFrom":"package"},
			{"id":"ws","title":"Workspace","source":"docs/x.md","purpose":"p","authoritative":false}],
		"steps":[{"id":"a","title":"A","prompt":"p"}]}`)
	cat := catalogOf(t, registry(t, catalog.Source{Kind: catalog.Config, Path: lib}), "")
	e, ok := cat.Get("repo.audit")
	if !ok {
		t.Fatalf("not loaded: %v", problemFiles(cat))
	}
	if p, _ := e.Place("rubric"); p.Path != filepath.Join(pkg, "spec", "rubric.md") || len(p.LookedIn) != 0 {
		t.Errorf("rubric placed %+v", p)
	}
	want := []string{filepath.Join(lib, "docs", "gone.md"), filepath.Join(pkg, "docs", "gone.md")}
	if p, _ := e.Place("gone"); p.Path != "" || !slices.Equal(p.LookedIn, want) {
		t.Errorf("gone placed %+v; want looked for in %v", p, want)
	}
	if p, _ := e.Place("out"); p.Path != "" || len(p.LookedIn) != 0 {
		t.Errorf("a source out of the package was looked for: %+v", p)
	}
	if _, ok := e.Place("ws"); ok {
		t.Error("a workspace reference was placed from the library's folder")
	}
}

// A folder's package may be rooted at the folder or the one above it; a
// repository's copy is its own package: the folder above it is
// WorkRail's storage, where other repositories' copies are.
func TestPackageRootsOfARepositoryStayInItsCopy(t *testing.T) {
	for _, tc := range []struct {
		src  catalog.Source
		want []string
	}{
		{catalog.Source{Kind: catalog.Config, Path: "/lib/workflows"}, []string{"/lib/workflows", "/lib"}},
		{catalog.Source{Kind: catalog.User, Path: "/home/u/.workrail/workflows/"}, []string{"/home/u/.workrail/workflows", "/home/u/.workrail"}},
		{catalog.Source{Kind: catalog.Repo, Path: "/data/repos/ab12/workflows"}, []string{"/data/repos/ab12/workflows"}},
	} {
		if got := sources.PackageRoots(tc.src); !slices.Equal(got, tc.want) {
			t.Errorf("%s %s: roots %v; want %v", tc.src.Kind, tc.src.Path, got, tc.want)
		}
	}
}
