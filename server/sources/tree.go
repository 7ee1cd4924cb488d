package sources

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/workflow"
)

// A source folder is read as it is laid out: its *.json files and those
// of its subfolders, so a library that keeps its routines in routines/
// (as the TypeScript WorkRail's does) loads from the one folder it lives
// in. The walk is bounded, for a project's folder comes from whatever
// repository an agent points at: at most maxDepth folders below the
// source and maxFolders folders in all, each folder listed once however
// symbolic links lead back to it.
const (
	maxDepth   = 4
	maxFolders = 64
)

// passedOver names the subfolders never read: hidden ones (.git and the
// like), and those the TypeScript WorkRail passes over too: examples/
// holds samples, internal/ the workflows its daemon runs for itself.
func passedOver(name string) bool {
	return strings.HasPrefix(name, ".") || name == "examples" || name == "internal"
}

// tree is what listing a source folder found: its workflow files, sorted
// by path, and the subfolders left unread for its bounds, each with why.
type tree struct {
	files  []string
	unread []unreadFolder
}

type unreadFolder struct {
	path string
	why  string
}

// listTree lists the source folder dir (see above). A folder that does
// not exist has no files: the error then matches fs.ErrNotExist or
// syscall.ENOTDIR.
func listTree(dir string) (tree, error) {
	w := walk{seen: map[folderKey]bool{}}
	if err := w.folder(dir, 0); err != nil {
		return tree{}, err
	}
	sort.Strings(w.t.files)
	return w.t, nil
}

// folderKey identifies a folder whatever path reaches it.
type folderKey struct{ dev, ino uint64 }

type walk struct {
	t       tree
	seen    map[folderKey]bool
	folders int
}

// folder lists dir, depth folders below the source, and the subfolders
// it may descend to.
func (w *walk) folder(dir string, depth int) error {
	f, err := openFile(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("is %s, not a folder; workflows go in a folder of *.json files", kindOf(info.Mode()))
	}
	if k, ok := keyOf(info); ok {
		if w.seen[k] {
			return nil // reached again through a symbolic link: listed once
		}
		w.seen[k] = true
	}
	w.folders++
	entries, err := f.ReadDir(-1)
	if err != nil {
		return err
	}
	var subs []string
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasSuffix(name, ".json"):
			w.t.files = append(w.t.files, filepath.Join(dir, name))
		case passedOver(name):
		case e.IsDir() || e.Type()&fs.ModeSymlink != 0 && isFolder(filepath.Join(dir, name)):
			subs = append(subs, filepath.Join(dir, name))
		}
	}
	sort.Strings(subs)
	for _, sub := range subs {
		switch {
		case depth+1 > maxDepth:
			w.t.unread = append(w.t.unread, unreadFolder{sub, fmt.Sprintf(
				"not read: it is more than %d folders below the workflow folder; move its workflows higher up, or name its folder in workflowPaths", maxDepth)})
		case w.folders >= maxFolders:
			w.t.unread = append(w.t.unread, unreadFolder{sub, fmt.Sprintf(
				"not read: the workflow folder already had %d folders read (the most WorkRail reads under one); name this one in workflowPaths, or remove folders that hold no workflows", maxFolders)})
		default:
			if err := w.folder(sub, depth+1); err != nil && !errors.Is(err, fs.ErrNotExist) {
				w.t.unread = append(w.t.unread, unreadFolder{sub, "not read: " + err.Error()})
			}
		}
	}
	return nil
}

// isFolder reports whether path, after symbolic links, is a folder.
func isFolder(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}

func keyOf(info fs.FileInfo) (folderKey, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return folderKey{}, false
	}
	return folderKey{uint64(st.Dev), uint64(st.Ino)}, true
}

// Files lists the workflow files of folder dir as a source folder is
// read (listTree), for `workrail validate DIR`: the files, and the
// subfolders left unread, each as a problem saying why.
func Files(dir string) ([]string, []catalog.LoadProblem, error) {
	t, err := listTree(dir)
	if err != nil {
		return nil, nil, err
	}
	var unread []catalog.LoadProblem
	for _, u := range t.unread {
		unread = append(unread, catalog.LoadProblem{File: u.path, Problems: workflow.Problems{{Message: u.why}}})
	}
	return t.files, unread, nil
}
