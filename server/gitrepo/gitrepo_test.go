package gitrepo_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/server/gitrepo"
)

const (
	sha1   = "0123456789abcdef0123456789abcdef01234567"
	sha2   = "89abcdef0123456789abcdef0123456789abcdef"
	sha256 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
)

// layout writes files (path relative to root → content) under a new
// temporary folder and returns it.
func layout(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestRead(t *testing.T) {
	packed := "# pack-refs with: peeled fully-peeled sorted \n" +
		sha2 + " refs/heads/feature/auth\n" +
		sha1 + " refs/tags/v1\n^" + sha2 + "\n"
	tests := []struct {
		name  string
		files map[string]string
		dir   string // the workspace, relative to the layout's root
		root  string // the repository root, relative; "-" for no repository
		want  gitrepo.Repo
	}{
		{"branch", map[string]string{".git/HEAD": "ref: refs/heads/main\n", ".git/refs/heads/main": sha1 + "\n"},
			".", ".", gitrepo.Repo{Branch: "main", HeadSHA: sha1}},
		{"from a subfolder", map[string]string{".git/HEAD": "ref: refs/heads/main\n", ".git/refs/heads/main": sha1 + "\n", "pkg/deep/x.go": ""},
			"pkg/deep", ".", gitrepo.Repo{Branch: "main", HeadSHA: sha1}},
		{"packed-refs", map[string]string{".git/HEAD": "ref: refs/heads/feature/auth\n", ".git/packed-refs": packed},
			".", ".", gitrepo.Repo{Branch: "feature/auth", HeadSHA: sha2}},
		{"a loose ref wins over packed-refs", map[string]string{".git/HEAD": "ref: refs/heads/feature/auth\n", ".git/packed-refs": packed,
			".git/refs/heads/feature/auth": sha1}, ".", ".", gitrepo.Repo{Branch: "feature/auth", HeadSHA: sha1}},
		{"a branch with no commit yet", map[string]string{".git/HEAD": "ref: refs/heads/main\n"},
			".", ".", gitrepo.Repo{Branch: "main"}},
		{"detached HEAD", map[string]string{".git/HEAD": sha1 + "\n", ".git/refs/heads/main": sha2},
			".", ".", gitrepo.Repo{HeadSHA: sha1}},
		{"detached HEAD, SHA-256", map[string]string{".git/HEAD": sha256 + "\n"},
			".", ".", gitrepo.Repo{HeadSHA: sha256}},
		{"symbolic loose ref", map[string]string{".git/HEAD": "ref: refs/heads/alias\n", ".git/refs/heads/alias": "ref: refs/heads/main\n",
			".git/refs/heads/main": sha1}, ".", ".", gitrepo.Repo{Branch: "alias", HeadSHA: sha1}},
		{"symbolic ref loop", map[string]string{".git/HEAD": "ref: refs/heads/a\n", ".git/refs/heads/a": "ref: refs/heads/b\n",
			".git/refs/heads/b": "ref: refs/heads/a\n"}, ".", ".", gitrepo.Repo{Branch: "a"}},
		{"linked worktree", map[string]string{
			"main/.git/HEAD": "ref: refs/heads/main\n", "main/.git/refs/heads/main": sha1,
			"main/.git/refs/heads/wt": sha2, "main/.git/worktrees/wt/HEAD": "ref: refs/heads/wt\n",
			"main/.git/worktrees/wt/commondir": "../..\n", "wt/.git": "gitdir: ../main/.git/worktrees/wt\n"},
			"wt", "wt", gitrepo.Repo{Branch: "wt", HeadSHA: sha2}},
		{"submodule", map[string]string{
			".git/HEAD": "ref: refs/heads/main\n", ".git/modules/lib/HEAD": sha2 + "\n", "lib/.git": "gitdir: ../.git/modules/lib"},
			"lib", "lib", gitrepo.Repo{HeadSHA: sha2}},
		{"no .git", map[string]string{"x.go": ""}, ".", "-", gitrepo.Repo{}},
		{"garbage HEAD", map[string]string{".git/HEAD": "hello\n"}, ".", "-", gitrepo.Repo{}},
		{"short sha", map[string]string{".git/HEAD": sha1[:12] + "\n"}, ".", "-", gitrepo.Repo{}},
		{"uppercase sha", map[string]string{".git/HEAD": strings.ToUpper(sha1) + "\n"}, ".", "-", gitrepo.Repo{}},
		{"HEAD leaving the git directory", map[string]string{".git/HEAD": "ref: refs/../../secret\n", "secret": sha1}, ".", "-", gitrepo.Repo{}},
		{"HEAD outside refs/", map[string]string{".git/HEAD": "ref: HEAD\n"}, ".", "-", gitrepo.Repo{}},
		{"empty HEAD", map[string]string{".git/HEAD": ""}, ".", "-", gitrepo.Repo{}},
		{"HEAD too large", map[string]string{".git/HEAD": "ref: refs/heads/" + strings.Repeat("a", 5000)}, ".", "-", gitrepo.Repo{}},
		{"no HEAD", map[string]string{".git/config": ""}, ".", "-", gitrepo.Repo{}},
		{"gitdir file naming nothing", map[string]string{".git": "gitdir: ../nowhere\n"}, ".", "-", gitrepo.Repo{}},
		{"gitdir file without gitdir", map[string]string{".git": "hello\n"}, ".", "-", gitrepo.Repo{}},
		{"garbage loose ref", map[string]string{".git/HEAD": "ref: refs/heads/main\n", ".git/refs/heads/main": "not a sha\n"},
			".", ".", gitrepo.Repo{Branch: "main"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := layout(t, tt.files)
			got, ok := gitrepo.Read(filepath.Join(base, tt.dir))
			want := tt.want
			if tt.root != "-" {
				want.Root = filepath.Join(base, tt.root)
			}
			if tt.root == "-" && ok && above(got.Root, base) {
				return // a repository of this machine holds the temporary folder
			}
			if ok != (tt.root != "-") || got != want {
				t.Errorf("Read = %+v, %v; want %+v, %v", got, ok, want, tt.root != "-")
			}
		})
	}
}

// above reports whether folder root holds dir and is not dir: the walk
// up from a layout found no repository in it but one of this machine's
// (the test cannot choose where temporary folders are).
func above(root, dir string) bool {
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func TestReadRefusesARelativePath(t *testing.T) {
	if r, ok := gitrepo.Read("."); ok {
		t.Errorf("Read(\".\") = %+v", r)
	}
}

// Observations name only what is known, in a fixed order.
func TestObservations(t *testing.T) {
	tests := []struct {
		repo gitrepo.Repo
		want []event.ObservationRecordedData
	}{
		{gitrepo.Repo{Root: "/r", Branch: "main", HeadSHA: sha1}, []event.ObservationRecordedData{
			{Key: event.ObsGitBranch, Value: "main"}, {Key: event.ObsGitHeadSHA, Value: sha1}, {Key: event.ObsRepoRoot, Value: "/r"}}},
		{gitrepo.Repo{Root: "/r", HeadSHA: sha1}, []event.ObservationRecordedData{
			{Key: event.ObsGitHeadSHA, Value: sha1}, {Key: event.ObsRepoRoot, Value: "/r"}}},
		{gitrepo.Repo{Root: "/r", Branch: "main"}, []event.ObservationRecordedData{
			{Key: event.ObsGitBranch, Value: "main"}, {Key: event.ObsRepoRoot, Value: "/r"}}},
		{gitrepo.Repo{}, nil},
	}
	for _, tt := range tests {
		if got := tt.repo.Observations(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%+v: %+v; want %+v", tt.repo, got, tt.want)
		}
	}
}

func TestObserver(t *testing.T) {
	base := layout(t, map[string]string{".git/HEAD": "ref: refs/heads/main\n", ".git/refs/heads/main": sha1})
	o := gitrepo.NewObserver()
	want := []event.ObservationRecordedData{{Key: event.ObsGitBranch, Value: "main"}, {Key: event.ObsGitHeadSHA, Value: sha1}, {Key: event.ObsRepoRoot, Value: base}}
	if got := o.Observe(base); !reflect.DeepEqual(got, want) {
		t.Errorf("Observe = %+v; want %+v", got, want)
	}
	if got := o.Observe(filepath.Join(base, "missing", "folder")); !reflect.DeepEqual(got, want) {
		t.Errorf("Observe of a folder not there yet = %+v; want its repository's", got)
	}
	outside := t.TempDir()
	if got := o.Observe(outside); got != nil && !above(root(got), outside) {
		t.Errorf("Observe outside a repository = %+v", got)
	}
}

// root is the repository root observations name, "" when none.
func root(obs []event.ObservationRecordedData) string {
	for _, o := range obs {
		if o.Key == event.ObsRepoRoot {
			return o.Value
		}
	}
	return ""
}
