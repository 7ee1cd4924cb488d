//go:build unix

package sources_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/server/sources"
)

// mkfifo makes a named pipe at path. Its cleanup opens the pipe for
// writing and closes it, which releases any reader stuck opening it.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if f, err := os.OpenFile(path, os.O_RDWR, 0); err == nil {
			f.Close()
		}
	})
}

func symlink(t *testing.T, target, path string) {
	t.Helper()
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// padded is a valid workflow file of exactly size bytes.
func padded(id string, size int) string {
	b := wfJSON(id, "Padded", "")
	return b + strings.Repeat(" ", size-len(b))
}

// Anything in a folder but a regular file of at most 1 MiB is a load
// problem saying what it is; the other files of the folder still load.
func TestSpecialFilesAreLoadProblems(t *testing.T) {
	ws := t.TempDir()
	dir := filepath.Join(ws, ".workrail", "workflows")
	writeFile(t, dir, "good.json", wfJSON("project.good", "Good", ""))
	writeFile(t, dir, "exact.json", padded("project.exact", 1<<20))
	writeFile(t, dir, "big.json", padded("project.big", 1<<20+1))
	mkfifo(t, filepath.Join(dir, "pipe.json"))
	symlink(t, "/dev/zero", filepath.Join(dir, "zero.json"))
	symlink(t, "/dev/null", filepath.Join(dir, "null.json"))
	symlink(t, "loop.json", filepath.Join(dir, "loop.json"))
	symlink(t, "nowhere.json", filepath.Join(dir, "dangling.json"))
	symlink(t, "good.json", filepath.Join(dir, "alias.json"))
	if err := os.Mkdir(filepath.Join(dir, "folder.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mknod(filepath.Join(dir, "sock.json"), syscall.S_IFSOCK|0o644, 0); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge.json") // 2 GiB, sparse
	writeFile(t, dir, "huge.json", "")
	if err := os.Truncate(huge, 2<<30); err != nil {
		t.Fatal(err)
	}
	reg, err := sources.New(fstest.MapFS{}, nil)
	if err != nil {
		t.Fatal(err)
	}

	cat := catalogOf(t, reg, ws)
	if got := strings.Join(cat.IDs(), " "); got != "project.good project.exact" {
		t.Errorf("loaded %s; want project.good project.exact", got)
	}
	got := map[string]string{}
	for _, p := range cat.Problems {
		got[filepath.Base(p.File)] = p.Problems.Error()
	}
	const rule = "workflow files must be regular files of at most 1 MiB"
	for file, want := range map[string][]string{
		"pipe.json":     {"is a named pipe, not a regular file", rule},
		"zero.json":     {"is a symbolic link to /dev/zero, a device, not a regular file", rule},
		"null.json":     {"is a symbolic link to /dev/null, a device", rule},
		"sock.json":     {"is a socket, not a regular file", rule},
		"folder.json":   {"is a folder, not a regular file", rule},
		"big.json":      {"is 1048577 bytes, over the limit", rule},
		"huge.json":     {"is 2147483648 bytes, over the limit", rule},
		"loop.json":     {"symbolic link that never resolves", "fix or remove the link"},
		"dangling.json": {"is a symbolic link to nowhere.json, which does not exist", "fix or remove the link"},
	} {
		for _, w := range want {
			if !strings.Contains(got[file], w) {
				t.Errorf("problem of %s = %q; want it to say %q", file, got[file], w)
			}
		}
	}
	if len(cat.Problems) != 9 {
		t.Errorf("%d problems; want 9: %v", len(cat.Problems), got)
	}
	if len(cat.Shadowed) != 1 || cat.Shadowed[0].ID != "project.good" {
		t.Errorf("a symlink to a regular file did not load (as a second definition of project.good): shadowed %+v", cat.Shadowed)
	}
}

// A named pipe in one workspace neither hangs the call for it nor
// delays a call without a workspace.
func TestNamedPipeBlocksNoCall(t *testing.T) {
	root := t.TempDir()
	user, ws := filepath.Join(root, "user"), filepath.Join(root, "ws")
	dir := filepath.Join(ws, ".workrail", "workflows")
	writeFile(t, user, "u.json", wfJSON("user.u", "U", ""))
	writeFile(t, dir, "b.json", wfJSON("project.b", "B", ""))
	mkfifo(t, filepath.Join(dir, "a.json"))
	reg, err := sources.New(fstest.MapFS{}, []catalog.Source{{Kind: catalog.User, Path: user}})
	if err != nil {
		t.Fatal(err)
	}

	withPipe := startCatalog(reg, ws)
	if got := strings.Join(catalogOf(t, reg, "").IDs(), " "); got != "user.u" {
		t.Fatalf("call without a workspace: %s", got)
	}
	cat := await(t, withPipe, ws)
	if got := strings.Join(cat.IDs(), " "); got != "project.b user.u" {
		t.Errorf("call with the pipe loaded %s", got)
	}
	if len(cat.Problems) != 1 || !strings.Contains(cat.Problems[0].Problems.Error(), "is a named pipe") {
		t.Errorf("problems = %+v; want one for the named pipe", cat.Problems)
	}
}
