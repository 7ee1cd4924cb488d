package gitsource

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// writeCommit writes the workflow files under folder sub of commit c
// into c's folder in dir, within the limits: a file written is a
// regular *.json file of at most FileBytes; symbolic links, files past
// the count or the bytes of a tree, and folders too deep are left out
// and listed; past Entries the walk stops. The folder appears whole or
// not at all (it is written beside and renamed into place).
func (s *Set) writeCommit(ctx context.Context, repo *git.Repository, c *object.Commit, dir, sub string) ([]Skipped, error) {
	root, err := c.Tree()
	if err != nil {
		return nil, err
	}
	if sub != "" {
		if root, err = root.Tree(sub); errors.Is(err, object.ErrDirectoryNotFound) || errors.Is(err, object.ErrEntryNotFound) {
			return nil, fmt.Errorf("the repository has no folder %q at commit %s: check path", sub, c.Hash.String()[:12])
		} else if err != nil {
			return nil, err
		}
	}
	final := filepath.Join(dir, c.Hash.String())
	tmp, err := os.MkdirTemp(dir, c.Hash.String()+".tmp-")
	if err != nil {
		return nil, err
	}
	w := &treeWriter{ctx: ctx, repo: repo, lim: s.opts.Limits, dst: filepath.Join(tmp, filepath.FromSlash(sub)), prefix: sub}
	if err := os.MkdirAll(w.dst, 0o700); err != nil {
		return nil, err
	}
	if err := w.walk(root, "", 0); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	if err := os.Rename(tmp, final); err != nil {
		// A commit's folder is never rewritten: one there already (another
		// process fetched it, or a fetch whose state was lost) holds these
		// very files.
		os.RemoveAll(tmp)
		if info, serr := os.Stat(final); serr != nil || !info.IsDir() {
			return nil, err
		}
	}
	return w.skipped, nil
}

// treeWriter walks one tree, writing what it may.
type treeWriter struct {
	ctx    context.Context
	repo   *git.Repository
	lim    Limits
	dst    string // the folder the tree is written to
	prefix string // the tree's folder in the repository, for the names listed

	entries, files int
	bytes          int64
	skipped        []Skipped
	stopped        bool
}

func (w *treeWriter) skip(rel, reason string) {
	w.skipped = append(w.skipped, Skipped{File: path.Join(w.prefix, rel), Reason: reason})
}

// walk writes the entries of t, the folder rel (depth levels below the
// workflows' folder).
func (w *treeWriter) walk(t *object.Tree, rel string, depth int) error {
	for _, e := range t.Entries {
		if w.stopped {
			return nil
		}
		if err := w.ctx.Err(); err != nil {
			return err
		}
		if w.entries++; w.entries > w.lim.Entries {
			w.skip(rel, fmt.Sprintf("the rest of the repository was not read: more than %d files and folders under the workflows' folder", w.lim.Entries))
			w.stopped = true
			return nil
		}
		if e.Name == "" || e.Name == "." || e.Name == ".." || strings.ContainsAny(e.Name, "/\\\x00") {
			continue // no tree git writes holds such a name
		}
		name := path.Join(rel, e.Name)
		switch {
		case e.Mode == filemode.Dir:
			if depth+1 > w.lim.Depth {
				w.skip(name, fmt.Sprintf("a folder more than %d levels down: not read", w.lim.Depth))
				continue
			}
			sub, err := w.repo.TreeObject(e.Hash)
			if err != nil {
				return err
			}
			if err := w.walk(sub, name, depth+1); err != nil {
				return err
			}
		case !strings.HasSuffix(e.Name, ".json"):
		case e.Mode == filemode.Symlink:
			w.skip(name, "a symbolic link: workflow files are read from regular files only")
		case e.Mode == filemode.Regular || e.Mode == filemode.Executable || e.Mode == filemode.Deprecated:
			if err := w.file(e, name); err != nil {
				return err
			}
		}
	}
	return nil
}

// file writes one workflow file, or says why not.
func (w *treeWriter) file(e object.TreeEntry, name string) error {
	blob, err := w.repo.BlobObject(e.Hash)
	if err != nil {
		return err
	}
	switch {
	case blob.Size > w.lim.FileBytes:
		w.skip(name, fmt.Sprintf("is %d bytes, over the limit of a workflow file (%s): shrink or split it", blob.Size, size(w.lim.FileBytes)))
		return nil
	case w.files+1 > w.lim.Files:
		w.skip(name, fmt.Sprintf("past the first %d workflow files of the repository: not written", w.lim.Files))
		return nil
	case w.bytes+blob.Size > w.lim.TreeBytes:
		w.skip(name, fmt.Sprintf("past the first %s of workflow files of the repository: not written", size(w.lim.TreeBytes)))
		return nil
	}
	w.files++
	w.bytes += blob.Size
	rd, err := blob.Reader()
	if err != nil {
		return err
	}
	defer rd.Close()
	target := filepath.Join(w.dst, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, io.LimitReader(rd, blob.Size))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// size is n bytes in the unit people read it in.
func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
