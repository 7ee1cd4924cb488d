package gitsource

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// writeCommit writes the workflow files under folder sub of commit into
// the commit's folder beside the scratch repository, within the limits:
// a file written is a regular *.json file of at most FileBytes; symbolic
// links, files past the count or the bytes of a tree, and folders too
// deep are left out and listed; past Entries the walk stops. The tree is
// listed with `git ls-tree`, the files read with one `git cat-file
// --batch`. The folder appears whole or not at all (it is written beside
// and renamed into place).
func (s *Set) writeCommit(ctx context.Context, g gitRun, commit, sub string) ([]Skipped, error) {
	w := &treeWalk{lim: s.opts.Limits, prefix: sub}
	if err := g.listTree(ctx, commit+":"+sub, w.entry); err != nil {
		if sub != "" && says(err, "not a valid object name", "not a tree object") {
			return nil, fmt.Errorf("the repository has no folder %q at commit %s: check path", sub, commit[:12])
		}
		return nil, err
	}
	final := filepath.Join(g.dir, commit)
	tmp, err := os.MkdirTemp(g.dir, commit+".tmp-")
	if err != nil {
		return nil, err
	}
	dst := filepath.Join(tmp, filepath.FromSlash(sub))
	if err := os.MkdirAll(dst, 0o700); err != nil {
		return nil, err
	}
	if err := g.writeBlobs(ctx, dst, w.files); err != nil {
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

// treeEntry is a line of `git ls-tree -r -t -l -z`: path is relative to
// the tree listed; size is a blob's.
type treeEntry struct {
	mode, oid, path string
	size            int64
}

// The modes of tree entries.
const (
	modeDir     = "040000"
	modeSymlink = "120000"
)

// listTree lists the tree treeish names, each folder before what it
// holds, in the tree's order, handing each entry to each until it
// returns false.
func (g gitRun) listTree(ctx context.Context, treeish string, each func(treeEntry) bool) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := g.command(ctx, "ls-tree", "-r", "-t", "-l", "-z", treeish)
	stderr := &firstBytes{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return failure(ctx, err, stderr)
	}
	rd, stopped := bufio.NewReader(out), false
	for !stopped {
		rec, err := rd.ReadString(0)
		if err != nil {
			break
		}
		if e, ok := parseEntry(strings.TrimSuffix(rec, "\x00")); ok && !each(e) {
			stopped = true
			cancel()
		}
	}
	err = cmd.Wait()
	if stopped {
		return nil
	}
	return failure(ctx, err, stderr)
}

// parseEntry reads "MODE TYPE OID SIZE\tPATH" (SIZE "-" but for blobs).
func parseEntry(rec string) (treeEntry, bool) {
	meta, p, ok := strings.Cut(rec, "\t")
	f := strings.Fields(meta)
	if !ok || len(f) != 4 {
		return treeEntry{}, false
	}
	size, _ := strconv.ParseInt(f[3], 10, 64)
	return treeEntry{mode: f[0], oid: f[2], path: p, size: size}, true
}

// treeWalk decides, entry by entry, what of a tree is written.
type treeWalk struct {
	lim    Limits
	prefix string // the tree's folder in the repository, for the names listed
	under  string // a folder left out: its entries are passed over

	entries int
	bytes   int64
	files   []treeEntry
	skipped []Skipped
}

func (w *treeWalk) skip(rel, reason string) {
	w.skipped = append(w.skipped, Skipped{File: path.Join(w.prefix, rel), Reason: reason})
}

// entry takes one entry of the listing; false stops the walk.
func (w *treeWalk) entry(e treeEntry) bool {
	if w.under != "" && strings.HasPrefix(e.path, w.under) {
		return true
	}
	dir, name := path.Split(e.path)
	if w.entries++; w.entries > w.lim.Entries {
		w.skip(strings.TrimSuffix(dir, "/"), fmt.Sprintf("the rest of the repository was not read: more than %d files and folders under the workflows' folder", w.lim.Entries))
		return false
	}
	if !local(e.path) {
		if e.mode == modeDir {
			w.under = e.path + "/" // no tree git writes holds such a name
		}
		return true
	}
	switch {
	case e.mode == modeDir:
		if depth := strings.Count(e.path, "/") + 1; depth > w.lim.Depth {
			w.skip(e.path, fmt.Sprintf("a folder more than %d levels down: not read", w.lim.Depth))
			w.under = e.path + "/"
		}
	case !strings.HasSuffix(name, ".json"):
	case e.mode == modeSymlink:
		w.skip(e.path, "a symbolic link: workflow files are read from regular files only")
	case e.mode == "100644" || e.mode == "100755" || e.mode == "100664":
		w.file(e)
	}
	return true
}

// local reports whether every name of p is one a file can be written
// under in the folder of the tree.
func local(p string) bool {
	for name := range strings.SplitSeq(p, "/") {
		if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "\\\x00") {
			return false
		}
	}
	return true
}

// file takes one workflow file, or says why not.
func (w *treeWalk) file(e treeEntry) {
	switch {
	case e.size > w.lim.FileBytes:
		w.skip(e.path, fmt.Sprintf("is %d bytes, over the limit of a workflow file (%s): shrink or split it", e.size, size(w.lim.FileBytes)))
	case len(w.files)+1 > w.lim.Files:
		w.skip(e.path, fmt.Sprintf("past the first %d workflow files of the repository: not written", w.lim.Files))
	case w.bytes+e.size > w.lim.TreeBytes:
		w.skip(e.path, fmt.Sprintf("past the first %s of workflow files of the repository: not written", size(w.lim.TreeBytes)))
	default:
		w.files = append(w.files, e)
		w.bytes += e.size
	}
}

// writeBlobs writes each file's blob under dst, read with one `git
// cat-file --batch` fed their names as it answers.
func (g gitRun) writeBlobs(ctx context.Context, dst string, files []treeEntry) error {
	if len(files) == 0 {
		return nil
	}
	run, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := g.command(run, "cat-file", "--batch")
	stderr := &firstBytes{}
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return failure(ctx, err, stderr)
	}
	go func() {
		bw := bufio.NewWriter(in)
		for _, f := range files {
			bw.WriteString(f.oid + "\n")
		}
		bw.Flush()
		in.Close()
	}()
	err = writeEach(bufio.NewReader(out), dst, files)
	if err != nil {
		cancel()
	}
	if werr := cmd.Wait(); err == nil {
		err = failure(ctx, werr, stderr)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// writeEach writes the blobs `git cat-file --batch` answers for files.
func writeEach(rd *bufio.Reader, dst string, files []treeEntry) error {
	for _, f := range files {
		header, err := rd.ReadString('\n')
		if err != nil {
			return err
		}
		if h := strings.Fields(header); len(h) != 3 || h[1] != "blob" || h[2] != strconv.FormatInt(f.size, 10) {
			return fmt.Errorf("git cat-file answered %q for %s", strings.TrimSpace(header), f.path)
		}
		if err := writeFile(filepath.Join(dst, filepath.FromSlash(f.path)), rd, f.size); err != nil {
			return err
		}
		if _, err := rd.Discard(1); err != nil { // the newline after the content
			return err
		}
	}
	return nil
}

// writeFile writes the next n bytes of r to a new file at target.
func writeFile(target string, r io.Reader, n int64) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.CopyN(f, r, n)
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
