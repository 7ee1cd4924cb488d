package sources_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/server/sources"
	"github.com/workrail/workrail/workflows"
)

// folders is a registry over a user folder, a config folder and one
// workspace, with user.greet in the user folder.
type folders struct {
	reg                *sources.Registry
	user, config, ws   string
	userSrc, configSrc catalog.Source
}

func newFolders(t *testing.T) folders {
	t.Helper()
	root := t.TempDir()
	f := folders{user: filepath.Join(root, "user"), config: filepath.Join(root, "config"), ws: filepath.Join(root, "ws")}
	f.userSrc, f.configSrc = catalog.Source{Kind: catalog.User, Path: f.user}, catalog.Source{Kind: catalog.Config, Path: f.config}
	writeFile(t, f.user, "greet.json", greetText("1"))
	if err := os.Mkdir(f.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	reg, err := sources.New(workflows.FS, []catalog.Source{f.userSrc, f.configSrc})
	if err != nil {
		t.Fatal(err)
	}
	f.reg = reg
	return f
}

func greetText(version string) string {
	return "{\n  \"id\": \"user.greet\",\n  \"name\": \"Greet\",\n  \"description\": \"Say hi.\",\n  \"version\": \"" + version +
		"\",\n  \"steps\": [{ \"id\": \"hi\", \"title\": \"Say hi\", \"prompt\": \"Say hi.\" }]\n}\n"
}

// snapshot is every file under root and its bytes.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(path)
			out[path] = string(b)
		}
		return nil
	})
	return out
}

func kindOf(err error) catalog.WriteErrorKind {
	var we *catalog.WriteError
	if errors.As(err, &we) {
		return we.Kind
	}
	return ""
}

// TestSave: a save replaces the file only while it still has the bytes
// the editor loaded, only with text that loads from its source, only in
// a folder the registry reads and under a plain name; every refusal
// leaves every folder as it was.
func TestSave(t *testing.T) {
	loaded := catalog.HashFile([]byte(greetText("1")))
	for _, tc := range []struct {
		name    string
		src     func(f folders) catalog.Source
		file    string
		base    catalog.FileHash
		text    string
		onDisk  func(t *testing.T, f folders) // before the save: someone edits the file
		want    catalog.WriteErrorKind        // "" for saved
		current string                        // a conflict's Current
	}{
		{name: "saved", file: "greet.json", base: loaded, text: greetText("2")},
		{name: "stale base", file: "greet.json", base: loaded, text: greetText("2"), want: catalog.WriteConflict,
			onDisk: func(t *testing.T, f folders) { writeFile(t, f.user, "greet.json", greetText("1b")) }, current: greetText("1b")},
		{name: "removed on disk", file: "greet.json", base: loaded, text: greetText("2"), want: catalog.WriteConflict,
			onDisk: func(t *testing.T, f folders) { os.Remove(filepath.Join(f.user, "greet.json")) }},
		{name: "invalid", file: "greet.json", base: loaded, text: strings.Replace(greetText("2"), `"prompt"`, `"promt"`, 1), want: catalog.WriteInvalid},
		{name: "not JSON", file: "greet.json", base: loaded, text: `{"id": "user.greet",`, want: catalog.WriteInvalid},
		{name: "wr outside bundled", file: "greet.json", base: loaded, text: strings.Replace(greetText("2"), "user.greet", "wr.greet", 1), want: catalog.WriteInvalid},
		{name: "too big", file: "greet.json", base: loaded, text: greetText("2") + strings.Repeat(" ", 1<<20), want: catalog.WriteInvalid},
		{name: "parent", file: "../greet.json", base: loaded, text: greetText("2"), want: catalog.WriteBadName},
		// A file of a subfolder is saved in place (TestSaveInSubfolder),
		// but only in a folder that is there.
		{name: "subfolder", file: "sub/greet.json", base: loaded, text: greetText("2"), want: catalog.WriteNotWritable},
		{name: "hidden", file: ".greet.json", base: loaded, text: greetText("2"), want: catalog.WriteBadName},
		{name: "not json", file: "greet.txt", base: loaded, text: greetText("2"), want: catalog.WriteBadName},
		{name: "bundled", src: func(folders) catalog.Source { return catalog.Source{Kind: catalog.Bundled} },
			file: "wr.hello.json", text: greetText("2"), want: catalog.WriteNotWritable},
		{name: "unknown folder", src: func(f folders) catalog.Source { return catalog.Source{Kind: catalog.User, Path: f.ws} },
			file: "greet.json", text: greetText("2"), want: catalog.WriteNotWritable},
		{name: "config folder as user", src: func(f folders) catalog.Source { return catalog.Source{Kind: catalog.User, Path: f.config} },
			file: "greet.json", text: greetText("2"), want: catalog.WriteNotWritable},
		{name: "project outside .workrail", src: func(f folders) catalog.Source { return catalog.Source{Kind: catalog.Project, Path: f.user} },
			file: "greet.json", base: loaded, text: greetText("2"), want: catalog.WriteNotWritable},
		{name: "relative project", src: func(folders) catalog.Source {
			return catalog.Source{Kind: catalog.Project, Path: filepath.Join("ws", ".workrail", "workflows")}
		}, file: "greet.json", text: greetText("2"), want: catalog.WriteNotWritable},
		{name: "symbolic link", file: "link.json", base: loaded, text: greetText("2"), want: catalog.WriteNotWritable,
			onDisk: func(t *testing.T, f folders) {
				symlink(t, filepath.Join(f.user, "greet.json"), filepath.Join(f.user, "link.json"))
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFolders(t)
			if tc.onDisk != nil {
				tc.onDisk(t, f)
			}
			src := f.userSrc
			if tc.src != nil {
				src = tc.src(f)
			}
			before := snapshot(t, filepath.Dir(f.user))
			err := f.reg.Save(src, tc.file, tc.base, []byte(tc.text))
			if kindOf(err) != tc.want || (tc.want == "" && err != nil) {
				t.Fatalf("Save = %v; want %q", err, tc.want)
			}
			after := snapshot(t, filepath.Dir(f.user))
			if tc.want != "" {
				if len(after) != len(before) || !equal(before, after) {
					t.Fatalf("a refused save changed the folders:\nbefore %v\nafter  %v", before, after)
				}
				if tc.want == catalog.WriteConflict {
					if got := err.(*catalog.WriteError).Current; string(got) != tc.current {
						t.Errorf("the conflict carries %q; want the file on disk %q", got, tc.current)
					}
				}
				return
			}
			if after[filepath.Join(f.user, "greet.json")] != tc.text || len(after) != len(before) {
				t.Fatalf("after the save the folders hold %v", after)
			}
			if e, _ := f.reg.Catalog("").Get("user.greet"); e.Compiled.Version != "2" {
				t.Errorf("the catalog has version %q after the save", e.Compiled.Version)
			}
		})
	}
}

func equal(a, b map[string]string) bool {
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return len(a) == len(b)
}

// TestSaveKeepsTheFileMode: the file is replaced, its mode is not.
func TestSaveKeepsTheFileMode(t *testing.T) {
	f := newFolders(t)
	path := filepath.Join(f.user, "greet.json")
	os.Chmod(path, 0o640)
	if err := f.reg.Save(f.userSrc, "greet.json", catalog.HashFile([]byte(greetText("1"))), []byte(greetText("2"))); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o640 {
		t.Errorf("mode after the save = %v; want 0640", info.Mode().Perm())
	}
}

// TestSaveRacesAnEditOnDisk: another editor writes the file while the
// save is checking it; the save reports the conflict with that editor's
// bytes, which stay on disk.
func TestSaveRacesAnEditOnDisk(t *testing.T) {
	f := newFolders(t)
	theirs := greetText("theirs")
	sources.SetOpen(f.reg, sources.ReadTimeout, func(path string) (*os.File, error) {
		if filepath.Base(path) == "greet.json" {
			writeFile(t, f.user, "greet.json", theirs)
		}
		return sources.OpenFile(path)
	})
	err := f.reg.Save(f.userSrc, "greet.json", catalog.HashFile([]byte(greetText("1"))), []byte(greetText("mine")))
	if kindOf(err) != catalog.WriteConflict || string(err.(*catalog.WriteError).Current) != theirs {
		t.Fatalf("Save = %v; want a conflict carrying their bytes", err)
	}
	if got := snapshot(t, f.user); len(got) != 1 || got[filepath.Join(f.user, "greet.json")] != theirs {
		t.Fatalf("the folder holds %v; want their edit alone", got)
	}
}

// TestConcurrentSaves: of saves from one base, exactly one is written;
// every other is a conflict.
func TestConcurrentSaves(t *testing.T) {
	f := newFolders(t)
	base := catalog.HashFile([]byte(greetText("1")))
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			errs[i] = f.reg.Save(f.userSrc, "greet.json", base, []byte(greetText(string(rune('a'+i)))))
		})
	}
	wg.Wait()
	saved := -1
	for i, err := range errs {
		switch {
		case err == nil && saved >= 0:
			t.Fatalf("saves %d and %d both wrote", saved, i)
		case err == nil:
			saved = i
		case kindOf(err) != catalog.WriteConflict:
			t.Fatalf("save %d: %v", i, err)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(f.user, "greet.json")); saved < 0 || string(got) != greetText(string(rune('a'+saved))) {
		t.Fatalf("save %d won, the file holds %s", saved, got)
	}
}

// TestCreate: a new file goes into its folder (made 0700 when missing),
// never over an existing one, and a project folder only inside a
// workspace that exists.
func TestCreate(t *testing.T) {
	f := newFolders(t)
	text := []byte(strings.Replace(greetText("1"), "user.greet", "user.fresh", 1))
	if err := f.reg.Create(f.configSrc, "fresh.json", text); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(f.config); err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("the missing folder was made as %v, %v; want 0700", info.Mode(), err)
	}
	if got, _ := os.ReadFile(filepath.Join(f.config, "fresh.json")); !bytes.Equal(got, text) {
		t.Fatalf("the new file holds %s", got)
	}
	err := f.reg.Create(f.userSrc, "greet.json", text)
	if kindOf(err) != catalog.WriteExists || string(err.(*catalog.WriteError).Current) != greetText("1") {
		t.Fatalf("Create over greet.json = %v; want exists, carrying the file", err)
	}
	if got, _ := os.ReadFile(filepath.Join(f.user, "greet.json")); string(got) != greetText("1") {
		t.Fatal("Create replaced an existing file")
	}

	project, err := f.reg.Folder(catalog.Project, f.ws)
	if err != nil {
		t.Fatal(err)
	}
	ptext := []byte(strings.Replace(greetText("1"), "user.greet", "project.greet", 1))
	if err := f.reg.Create(project, "project.greet.json", ptext); err != nil {
		t.Fatal(err)
	}
	if e, ok := f.reg.Catalog(f.ws).Get("project.greet"); !ok || e.Source.Kind != catalog.Project {
		t.Fatalf("the new project workflow is not in the workspace's catalog: %+v", e.Source)
	}
	gone, _ := f.reg.Folder(catalog.Project, filepath.Join(f.ws, "missing"))
	if err := f.reg.Create(gone, "project.greet.json", ptext); kindOf(err) != catalog.WriteNotWritable {
		t.Fatalf("Create in a workspace that does not exist = %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.ws, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("Create made a workspace folder")
	}
}

func TestRead(t *testing.T) {
	f := newFolders(t)
	if b, err := f.reg.Read(f.userSrc, "greet.json"); err != nil || string(b) != greetText("1") {
		t.Fatalf("Read = %q, %v", b, err)
	}
	if _, err := f.reg.Read(f.userSrc, "nope.json"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Read of a missing file = %v", err)
	}
	if _, err := f.reg.Read(catalog.Source{Kind: catalog.User, Path: "/etc"}, "passwd.json"); kindOf(err) != catalog.WriteNotWritable {
		t.Fatalf("Read outside the registry's folders = %v", err)
	}
	mkfifo(t, filepath.Join(f.user, "pipe.json"))
	if _, err := f.reg.Read(f.userSrc, "pipe.json"); kindOf(err) != catalog.WriteNotWritable {
		t.Fatalf("Read of a named pipe = %v", err)
	}
}

func TestFolder(t *testing.T) {
	f := newFolders(t)
	for _, tc := range []struct {
		kind      catalog.SourceKind
		workspace string
		want      catalog.Source
	}{
		{catalog.User, "", f.userSrc},
		{catalog.User, f.ws, f.userSrc},
		{catalog.Project, f.ws + "/", catalog.Source{Kind: catalog.Project, Path: filepath.Join(f.ws, ".workrail", "workflows")}},
		{catalog.Project, "", catalog.Source{}},
		{catalog.Project, "relative/ws", catalog.Source{}},
		{catalog.Bundled, "", catalog.Source{}},
		{catalog.Config, "", catalog.Source{}},
	} {
		got, err := f.reg.Folder(tc.kind, tc.workspace)
		if got != tc.want || (err == nil) != (tc.want != catalog.Source{}) {
			t.Errorf("Folder(%s, %q) = %+v, %v; want %+v", tc.kind, tc.workspace, got, err, tc.want)
		}
	}
	none, err := sources.New(fstest.MapFS{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := none.Folder(catalog.User, ""); kindOf(err) != catalog.WriteNotWritable {
		t.Errorf("Folder(user) without a user folder = %v", err)
	}
}

// A project whose .workrail, or .workrail/workflows, is a symbolic link
// is never written through, wherever the link points (out of the
// repository or not): a create and a save are refused as not writable,
// naming the link, and the folder it points at is left as it was. A
// workspace reached through a link of its own is written as usual.
func TestProjectWritesRefuseSymlinkedFolders(t *testing.T) {
	ptext := []byte(strings.Replace(greetText("1"), "user.greet", "project.greet", 1))
	for _, tc := range []struct {
		name string
		link func(t *testing.T, ws, outside string) // makes the link
	}{
		{".workrail out of the repository", func(t *testing.T, ws, outside string) {
			symlink(t, outside, filepath.Join(ws, ".workrail"))
		}},
		{".workrail/workflows out of the repository", func(t *testing.T, ws, outside string) {
			os.Mkdir(filepath.Join(ws, ".workrail"), 0o755)
			symlink(t, outside, filepath.Join(ws, ".workrail", "workflows"))
		}},
		{".workrail to a folder inside the repository", func(t *testing.T, ws, _ string) {
			inside := filepath.Join(ws, "config")
			os.MkdirAll(filepath.Join(inside, "workflows"), 0o755)
			symlink(t, "config", filepath.Join(ws, ".workrail"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFolders(t)
			// outside stands for any folder of the user's: it holds a
			// workflows folder with a file the save would replace.
			outside := filepath.Join(filepath.Dir(f.ws), "outside")
			writeFile(t, filepath.Join(outside, "workflows"), "project.greet.json", "precious\n")
			writeFile(t, outside, "project.greet.json", "precious\n")
			tc.link(t, f.ws, outside)
			before := snapshot(t, filepath.Dir(f.ws))
			project, err := f.reg.Folder(catalog.Project, f.ws)
			if err != nil {
				t.Fatal(err)
			}
			err = f.reg.Create(project, "project.fresh.json", bytes.Replace(ptext, []byte("project.greet"), []byte("project.fresh"), 1))
			if kindOf(err) != catalog.WriteNotWritable || !strings.Contains(err.Error(), "is a symbolic link") {
				t.Fatalf("Create through the link = %v; want not writable, naming the link", err)
			}
			err = f.reg.Save(project, "project.greet.json", catalog.HashFile([]byte("precious\n")), ptext)
			if kindOf(err) != catalog.WriteNotWritable {
				t.Fatalf("Save through the link = %v; want not writable", err)
			}
			if after := snapshot(t, filepath.Dir(f.ws)); !equalMaps(before, after) {
				t.Fatalf("a refused write changed files:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
	t.Run("a workspace reached through a link", func(t *testing.T) {
		f := newFolders(t)
		via := filepath.Join(filepath.Dir(f.ws), "via")
		symlink(t, f.ws, via)
		project, err := f.reg.Folder(catalog.Project, via)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.reg.Create(project, "project.greet.json", ptext); err != nil {
			t.Fatalf("Create in a linked workspace: %v", err)
		}
		if got, _ := os.ReadFile(filepath.Join(f.ws, ".workrail", "workflows", "project.greet.json")); !bytes.Equal(got, ptext) {
			t.Fatalf("the file holds %q", got)
		}
	})
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// A file in a subfolder the folder is read with is saved in place, by
// its path within the folder; a path through a symbolic link, out of the
// folder or into a folder WorkRail does not read is refused, and nothing
// is written.
func TestSaveInSubfolder(t *testing.T) {
	f := newFolders(t)
	sub := filepath.Join(f.config, "routines")
	writeFile(t, sub, "greet.json", strings.ReplaceAll(greetText("1"), "user.greet", "repo.deep-greet"))
	text := []byte(strings.ReplaceAll(greetText("2"), "user.greet", "repo.deep-greet"))
	old, err := f.reg.Read(f.configSrc, "routines/greet.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.reg.Save(f.configSrc, "routines/greet.json", catalog.HashFile(old), text); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(sub, "greet.json")); !bytes.Equal(b, text) {
		t.Fatalf("saved %s", b)
	}
	if _, err := os.Stat(filepath.Join(f.config, "greet.json")); err == nil {
		t.Fatal("the save wrote a file at the top of the folder")
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(f.config, "linked")); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, filepath.Dir(f.config))
	for name, kind := range map[string]catalog.WriteErrorKind{
		"linked/greet.json": catalog.WriteNotWritable, "../user/greet.json": catalog.WriteBadName, "missing/greet.json": catalog.WriteNotWritable,
		"examples/greet.json": catalog.WriteBadName, ".hidden/greet.json": catalog.WriteBadName, "a/b/c/d/e/greet.json": catalog.WriteBadName,
	} {
		err := f.reg.Create(f.configSrc, name, text)
		var we *catalog.WriteError
		if !errors.As(err, &we) || we.Kind != kind {
			t.Errorf("%s: %v, want a %s error", name, err, kind)
		}
	}
	if after := snapshot(t, filepath.Dir(f.config)); len(after) != len(before) {
		t.Errorf("a refused write wrote something: %d files before, %d after", len(before), len(after))
	}
}
