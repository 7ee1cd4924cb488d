package sources

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/server/home"
)

// writeTimeout is how long one save or create (read, write, sync,
// rename) may take before it is given up.
const writeTimeout = 10 * time.Second

// Writing follows the catalog's rules (catalog.Writable, CheckFileName,
// CheckText): only the folders this registry reads, never bundled
// workflows, only files that load. The folders are live: every agent's
// next catalog reads what is written, so a file is replaced in one
// rename of a synced temporary file, never left half written.

// Folder is the folder new workflows of kind go in, seen from workspace:
// the user's folder, or the workspace's .workrail/workflows.
func (r *Registry) Folder(kind catalog.SourceKind, workspace string) (catalog.Source, error) {
	switch {
	case kind == catalog.User:
		for _, s := range r.dirs {
			if s.Kind == catalog.User {
				return s, nil
			}
		}
	case kind == catalog.Project && filepath.IsAbs(workspace):
		return projectSource(filepath.Clean(workspace)), nil
	}
	return catalog.Source{}, &catalog.WriteError{Kind: catalog.WriteNotWritable,
		Message: fmt.Sprintf("there is no %s folder to write in", kind)}
}

// projectSource is the project folder of a workspace.
func projectSource(workspace string) catalog.Source {
	return catalog.Source{Kind: catalog.Project, Path: filepath.Join(workspace, ".workrail", "workflows")}
}

// file is the path of the workflow file name in src, if src is a folder
// this registry reads and may write. name is a file name, or the path of
// a file in a subfolder the folder is read with ("routines/check.json"):
// each folder of it a real one (never a symbolic link, which could lead
// out of the folder) that listTree reads.
func (r *Registry) file(src catalog.Source, name string) (string, error) {
	if !catalog.Writable(src.Kind) {
		return "", &catalog.WriteError{Kind: catalog.WriteNotWritable,
			Message: "bundled workflows are read-only: fork one to your namespace to change it"}
	}
	folders := strings.Split(filepath.ToSlash(name), "/")
	name, folders = folders[len(folders)-1], folders[:len(folders)-1]
	if err := catalog.CheckFileName(name); err != nil {
		return "", err
	}
	if len(folders) > maxDepth {
		return "", &catalog.WriteError{Kind: catalog.WriteBadName, Message: fmt.Sprintf("a workflow file is at most %d folders below its workflow folder", maxDepth)}
	}
	for i, f := range folders {
		if err := catalog.CheckFileName(f + ".json"); err != nil {
			return "", err
		}
		if passedOver(f) {
			return "", &catalog.WriteError{Kind: catalog.WriteBadName, Message: fmt.Sprintf("WorkRail does not read workflows from folders named %q", f)}
		}
		dir := filepath.Join(append([]string{src.Path}, folders[:i+1]...)...)
		switch info, err := os.Lstat(dir); {
		case err != nil || !info.IsDir() && info.Mode()&fs.ModeSymlink == 0:
			return "", &catalog.WriteError{Kind: catalog.WriteNotWritable, Message: fmt.Sprintf("there is no folder %s to write in", dir)}
		case info.Mode()&fs.ModeSymlink != 0:
			return "", &catalog.WriteError{Kind: catalog.WriteNotWritable, Message: fmt.Sprintf(
				"%s is a symbolic link; WorkRail writes workflow files only into real folders, so edit the file where the link points", dir)}
		}
	}
	name = filepath.Join(append(folders, name)...)
	known := slices.Contains(r.dirs, src)
	if src.Kind == catalog.Project {
		known = filepath.IsAbs(src.Path) && src == projectSource(filepath.Dir(filepath.Dir(src.Path)))
	}
	if !known {
		return "", &catalog.WriteError{Kind: catalog.WriteNotWritable,
			Message: fmt.Sprintf("%s is not a %s workflow folder WorkRail reads", src.Path, src.Kind)}
	}
	return filepath.Join(src.Path, name), nil
}

// Read returns a workflow file's bytes as they are now. A file that is
// not there is an error matching fs.ErrNotExist.
func (r *Registry) Read(src catalog.Source, name string) ([]byte, error) {
	path, err := r.file(src, name)
	if err != nil {
		return nil, err
	}
	type read struct {
		b    []byte
		gone bool
	}
	got, err := within(&r.stuck, path, r.timeout, func() (read, error) {
		b, gone, err := r.onDisk(path)
		return read{b, gone}, err
	})
	if err == nil && got.gone {
		err = &fs.PathError{Op: "read", Path: path, Err: fs.ErrNotExist}
	}
	return got.b, err
}

// Save replaces the workflow file name in src with text if the file's
// bytes still hash to base (a file that is gone counts as empty). The
// text must load from src; otherwise nothing is written.
func (r *Registry) Save(src catalog.Source, name string, base catalog.FileHash, text []byte) error {
	return r.write(src, name, text, func(tmp, path string) error {
		cur, gone, err := r.onDisk(path)
		if err != nil {
			return err
		}
		// Checked after the new bytes are synced, just before the rename,
		// so the window for an edit on disk to slip in is as small as a
		// rename.
		if catalog.HashFile(cur) != base {
			msg := "the file changed on disk since the editor loaded it"
			if gone {
				msg = "the file was removed from disk since the editor loaded it"
			}
			return &catalog.WriteError{Kind: catalog.WriteConflict, Message: msg, Current: cur}
		}
		return os.Rename(tmp, path)
	})
}

// Create writes the new workflow file name in src; it never replaces a
// file. The text must load from src; otherwise nothing is written.
func (r *Registry) Create(src catalog.Source, name string, text []byte) error {
	return r.write(src, name, text, func(tmp, path string) error {
		err := os.Link(tmp, path)
		if errors.Is(err, fs.ErrExist) {
			cur, _, _ := r.onDisk(path)
			return &catalog.WriteError{Kind: catalog.WriteExists, Current: cur,
				Message: fmt.Sprintf("%s already exists in %s", name, filepath.Dir(path))}
		}
		return err
	})
}

// write checks text and the place, writes text to a synced temporary
// file beside the file at path, lets place move it there, and syncs the
// folder so the move survives a crash. One file is written by one call
// at a time, within writeTimeout.
func (r *Registry) write(src catalog.Source, name string, text []byte, place func(tmp, path string) error) error {
	path, err := r.file(src, name)
	if err != nil {
		return err
	}
	if len(text) > maxFileSize {
		return &catalog.WriteError{Kind: catalog.WriteInvalid, Message: "the workflow does not load",
			Problems: workflow.Problems{{Message: fmt.Sprintf("is %d bytes; %s", len(text), mustBe)}}}
	}
	if err := catalog.CheckText(text, src.Kind); err != nil {
		return err
	}
	_, err = within(&r.stuck, path, writeTimeout, func() (struct{}, error) {
		if !r.writing.claim(path) {
			return struct{}{}, &catalog.WriteError{Kind: catalog.WriteConflict, Message: "another save of this file is under way"}
		}
		defer r.writing.release(path)
		return struct{}{}, r.publish(src, path, text, place)
	})
	return writeError(err)
}

func (r *Registry) publish(src catalog.Source, path string, text []byte, place func(tmp, path string) error) error {
	if err := makeFolder(src); err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if info, err := os.Lstat(path); err == nil {
		mode = info.Mode().Perm()
	}
	return home.Publish(path, text, mode, place)
}

// makeFolder creates src's folder (0700) when it is missing; a project
// folder only inside a workspace that exists, and never through a
// symbolic link (see realFolders).
func makeFolder(src catalog.Source) error {
	if src.Kind == catalog.Project {
		ws := filepath.Dir(filepath.Dir(src.Path))
		if info, err := os.Stat(ws); err != nil || !info.IsDir() {
			return &catalog.WriteError{Kind: catalog.WriteNotWritable, Message: fmt.Sprintf("the workspace %s is not an existing folder", ws)}
		}
		if err := realFolders(ws); err != nil {
			return err
		}
	}
	return os.MkdirAll(src.Path, 0o700)
}

// realFolders refuses a workspace whose .workrail or .workrail/workflows
// is a symbolic link, wherever it points. A repository decides what its
// links point at (a clone, a checkout, a pull can change them), so a
// save through one could land anywhere the user may write, out of the
// repository; WorkRail writes project workflows only into real folders
// of the workspace. The workspace itself may be reached through links:
// the user named it. A missing folder is fine: makeFolder creates it.
func realFolders(ws string) error {
	dir := ws
	for _, name := range []string{".workrail", "workflows"} {
		dir = filepath.Join(dir, name)
		info, err := os.Lstat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil
		case err != nil:
			return err
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(dir)
			return &catalog.WriteError{Kind: catalog.WriteNotWritable, Message: fmt.Sprintf(
				"%s is a symbolic link to %s; WorkRail writes project workflows only into a real .workrail/workflows folder of the workspace, "+
					"never through a link that could lead out of it: replace the link with a folder, or edit the files where it points", dir, target)}
		}
	}
	return nil
}

// onDisk reads the workflow file at path as it is now, under the rules of
// every read (a regular file of at most 1 MiB, opened without blocking);
// gone says there is no file. WorkRail replaces only regular files: a
// symbolic link, whose target may lie outside the folder, is refused.
func (r *Registry) onDisk(path string) (b []byte, gone bool, err error) {
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, true, nil
	case err != nil:
		return nil, false, err
	case info.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(path)
		return nil, false, &catalog.WriteError{Kind: catalog.WriteNotWritable, Message: fmt.Sprintf(
			"%s is a symbolic link to %s; WorkRail edits only regular files, so edit the file it points to", filepath.Base(path), target)}
	}
	if err := fit(path, info); err != nil {
		return nil, false, &catalog.WriteError{Kind: catalog.WriteNotWritable, Message: filepath.Base(path) + " " + err.Error()}
	}
	rd, err := readFile(r.open, path, nil)
	return rd.data, false, err
}

// writeError words the errors of a folder WorkRail may not write in as
// not writable; others pass unchanged.
func writeError(err error) error {
	var slow *slowError
	switch {
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EROFS):
		return &catalog.WriteError{Kind: catalog.WriteNotWritable, Message: "WorkRail may not write there: " + err.Error()}
	case errors.As(err, &slow):
		return fmt.Errorf("the save did not finish within %v (a slow or unresponsive filesystem?); "+
			"it may still complete, so reload before saving again", writeTimeout)
	}
	return err
}

// claims is the set of files being written, so that two saves of one
// file never both pass the hash check before either renames.
type claims struct {
	mu sync.Mutex
	m  map[string]bool
}

func (c *claims) claim(path string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m[path] {
		return false
	}
	if c.m == nil {
		c.m = map[string]bool{}
	}
	c.m[path] = true
	return true
}

func (c *claims) release(path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, path)
}
