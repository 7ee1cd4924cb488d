package sources_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/server/sources"
	"github.com/workrail/workrail/workflows"
)

// Repositories are read after the folders, each at the folder of the
// commit it serves: its entries name the repository and commit, a file
// the fetch left out is a load problem, one repository that could not be
// fetched is a warning naming it and when it last was (and leaves the
// others read), and of two defining one id the later wins. A sync that
// moves a repository to another commit is seen by the next call.
func TestRepositories(t *testing.T) {
	user, company, team, team2 := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	writeFile(t, user, "mine.json", wfJSON("user.mine", "Mine", ""))
	writeFile(t, company, "review.json", wfJSON("team.review", "Company review", ""))
	writeFile(t, company, "core.json", wfJSON("wr.core", "Claims wr", ""))
	writeFile(t, team, "review.json", wfJSON("team.review", "Team review", ""))
	writeFile(t, team2, "review.json", wfJSON("team.review", "Team review, v2", ""))
	synced := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	c1, c2, c3 := strings.Repeat("1", 40), strings.Repeat("2", 40), strings.Repeat("3", 40)
	var mu sync.Mutex
	repos := []sources.Repository{
		{URL: "https://example.com/company.git", Commit: c1, Folder: company, SyncedAt: synced,
			Skipped: []sources.SkippedFile{{File: "link.json", Reason: "a symbolic link: not written"}}},
		{URL: "https://example.com/team.git", Ref: "main", Commit: c2, Folder: team, SyncedAt: synced, Error: "connection refused"},
		{URL: "https://example.com/new.git", Error: "authentication required"},
	}
	reg, err := sources.New(fstest.MapFS{}, []catalog.Source{{Kind: catalog.User, Path: user}})
	if err != nil {
		t.Fatal(err)
	}
	reg.SetRepositories(func() []sources.Repository {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(repos)
	})
	cat := reg.Catalog("")
	review, _ := cat.Get("team.review")
	if review.Compiled.Name != "Team review" || review.Source.Repo != (catalog.RepoRef{URL: "https://example.com/team.git", Ref: "main", Commit: c2}) || review.Source.Path != team {
		t.Fatalf("team.review: %q from %+v", review.Compiled.Name, review.Source)
	}
	if len(cat.Shadowed) != 1 || cat.Shadowed[0].Shadowed.Repo.URL != "https://example.com/company.git" || cat.Shadowed[0].Winner.Repo.URL != "https://example.com/team.git" {
		t.Errorf("shadowed: %+v", cat.Shadowed)
	}
	if core, ok := cat.Get("repo.core"); !ok || core.Warnings[0].Code != "RESERVED_ID_RENAMED" {
		t.Errorf("a repository's wr.core: %+v (ids %v)", core.Warnings, cat.IDs())
	}
	if _, ok := cat.Get("user.mine"); !ok {
		t.Error("the user's own workflow is gone")
	}
	if len(cat.Problems) != 1 || cat.Problems[0].File != filepath.Join(company, "link.json") || !strings.Contains(cat.Problems[0].Problems[0].Message, "symbolic link") {
		t.Errorf("problems: %+v", cat.Problems)
	}
	var codes []catalog.SourceWarningCode
	for _, w := range cat.Warnings {
		codes = append(codes, w.Code)
	}
	if !slices.Equal(codes, []catalog.SourceWarningCode{catalog.SourceStale, catalog.SourceUnavailable}) ||
		cat.Warnings[0].LastSynced != "2025-03-01T12:00:00Z" || !strings.Contains(cat.Warnings[0].Message, "team.git") ||
		!strings.Contains(cat.Warnings[1].Message, "authentication required") {
		t.Errorf("warnings: %+v", cat.Warnings)
	}

	// The team's repository recovers at another commit.
	mu.Lock()
	repos[1].Commit, repos[1].Folder, repos[1].Error = c3, team2, ""
	mu.Unlock()
	cat = reg.Catalog("")
	if review, _ := cat.Get("team.review"); review.Compiled.Name != "Team review, v2" || review.Source.Repo.Commit != c3 {
		t.Errorf("after the sync: %q at %s", review.Compiled.Name, review.Source.Repo.Commit)
	}
	if len(cat.Warnings) != 1 || cat.Warnings[0].Code != catalog.SourceUnavailable {
		t.Errorf("warnings after the sync: %+v", cat.Warnings)
	}
}

// BenchmarkFiveSources lists the catalog of five sources of 20 workflows
// each, once every file is cached: as configured folders, and as
// repositories (whose folders are the commits they serve). The two cost
// the same: a repository is read as a folder.
func BenchmarkFiveSources(b *testing.B) {
	var dirs []catalog.Source
	var repos []sources.Repository
	for i := range 5 {
		dir := b.TempDir()
		for j := range 20 {
			writeFile(b, dir, fmt.Sprintf("w%02d.json", j), wfJSON(fmt.Sprintf("team.s%dw%02d", i, j), "W", ""))
		}
		dirs = append(dirs, catalog.Source{Kind: catalog.Config, Path: dir})
		repos = append(repos, sources.Repository{URL: fmt.Sprintf("https://example.com/s%d.git", i), Commit: strings.Repeat("a", 40), Folder: dir, SyncedAt: time.Now()})
	}
	for _, tc := range []struct {
		name  string
		dirs  []catalog.Source
		repos []sources.Repository
	}{{"folders", dirs, nil}, {"repositories", nil, repos}} {
		b.Run(tc.name, func(b *testing.B) {
			reg, err := sources.New(workflows.FS, tc.dirs)
			if err != nil {
				b.Fatal(err)
			}
			reg.SetRepositories(func() []sources.Repository { return slices.Clone(tc.repos) })
			if n := len(reg.Catalog("").IDs()); n < 100 {
				b.Fatalf("%d workflows", n)
			}
			for b.Loop() {
				reg.Catalog("")
			}
		})
	}
}
