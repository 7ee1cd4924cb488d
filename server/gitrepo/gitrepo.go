// Package gitrepo reads what a workspace's git repository says about it —
// the branch checked out, the commit HEAD names, the repository's top
// folder — straight from the files under .git (HEAD, loose refs,
// packed-refs, a worktree's or submodule's "gitdir:" file), without
// running git. Anything it cannot read, or that git would not accept, it
// leaves out: an observation is a hint for ranking, never a reason to
// fail a call. It adapts a workspace's .git files to the use cases'
// Observer port (execute.Observer).
package gitrepo

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/workrail/workrail/engine/event"
)

// Repo is what was read of a repository. Branch is empty on a detached
// HEAD; HeadSHA is empty on a branch with no commit yet.
type Repo struct {
	Root    string // the top folder of the work tree, absolute
	Branch  string // e.g. "main", without refs/heads/
	HeadSHA string // lowercase hex, 40 (SHA-1) or 64 (SHA-256) digits
}

// Limits on what is read: HEAD and a loose ref are one line; a symbolic
// ref chain longer than maxSymrefs is a loop.
const (
	maxRefFile = 4 << 10
	maxSymrefs = 5
	maxBranch  = 255
)

// Read finds the repository dir is in (dir or the nearest parent holding
// .git) and reads it. ok is false when there is none, or when its .git is
// not one git would use.
func Read(dir string) (Repo, bool) {
	if !filepath.IsAbs(dir) {
		return Repo{}, false
	}
	root, dotgit, ok := find(filepath.Clean(dir))
	if !ok {
		return Repo{}, false
	}
	gitDir, ok := resolveGitDir(root, dotgit)
	if !ok {
		return Repo{}, false
	}
	head, err := readLine(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return Repo{}, false
	}
	repo := Repo{Root: root}
	common := commonDir(gitDir)
	if ref, symbolic := strings.CutPrefix(head, "ref: "); symbolic {
		if !validRef(ref) {
			return Repo{}, false
		}
		repo.Branch = branchName(ref)
		repo.HeadSHA = resolve(gitDir, common, ref)
		return repo, true
	}
	if !isSHA(head) {
		return Repo{}, false
	}
	repo.HeadSHA = head
	return repo, true
}

// find walks up from dir to the first folder holding .git.
func find(dir string) (root, dotgit string, ok bool) {
	for {
		p := filepath.Join(dir, ".git")
		if _, err := os.Lstat(p); err == nil {
			return dir, p, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", false
		}
		dir = parent
	}
}

// resolveGitDir is the git directory .git names: itself when it is a
// folder, or the folder a "gitdir: PATH" file points to (a linked worktree
// or a submodule; PATH relative to the file's folder).
func resolveGitDir(root, dotgit string) (string, bool) {
	fi, err := os.Stat(dotgit)
	if err != nil {
		return "", false
	}
	if fi.IsDir() {
		return dotgit, true
	}
	line, err := readLine(dotgit)
	if err != nil {
		return "", false
	}
	p, ok := strings.CutPrefix(line, "gitdir: ")
	if !ok || p == "" {
		return "", false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
		return "", false
	}
	return filepath.Clean(p), true
}

// commonDir is where a git directory's shared refs live: a linked
// worktree's "commondir" file names it; otherwise it is the git directory.
func commonDir(gitDir string) string {
	line, err := readLine(filepath.Join(gitDir, "commondir"))
	if err != nil || line == "" {
		return gitDir
	}
	if !filepath.IsAbs(line) {
		line = filepath.Join(gitDir, line)
	}
	return filepath.Clean(line)
}

// resolve follows ref to a commit: a loose ref file (the worktree's own,
// then the shared one), else packed-refs; a loose ref may itself be
// symbolic. "" when the ref names no commit (a branch with no commit yet).
func resolve(gitDir, common, ref string) string {
	for range maxSymrefs {
		line, ok := looseRef(gitDir, common, ref)
		if !ok {
			return packedRef(common, ref)
		}
		next, symbolic := strings.CutPrefix(line, "ref: ")
		if !symbolic {
			if isSHA(line) {
				return line
			}
			return ""
		}
		if !validRef(next) {
			return ""
		}
		ref = next
	}
	return ""
}

func looseRef(gitDir, common, ref string) (string, bool) {
	for _, d := range []string{gitDir, common} {
		if line, err := readLine(filepath.Join(d, filepath.FromSlash(ref))); err == nil {
			return line, true
		}
	}
	return "", false
}

// packedRef reads ref's commit from packed-refs: lines "SHA REF", with
// "#" header lines and "^SHA" peeled-tag lines between them.
func packedRef(common, ref string) string {
	f, err := os.Open(filepath.Join(common, "packed-refs"))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), maxRefFile)
	for sc.Scan() {
		sha, name, ok := strings.Cut(sc.Text(), " ")
		if ok && name == ref && isSHA(sha) {
			return sha
		}
	}
	return ""
}

// readLine reads a small file's first line, trimmed.
func readLine(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxRefFile+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxRefFile {
		return "", errors.New("gitrepo: " + path + " is too large for a ref")
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	return strings.TrimSpace(string(line)), nil
}

// validRef accepts the refs HEAD may name: under refs/, printable, no
// ".." (which would leave the git directory), at most maxBranch bytes of
// branch name.
func validRef(ref string) bool {
	if !strings.HasPrefix(ref, "refs/") || strings.Contains(ref, "..") || len(ref) > len("refs/heads/")+maxBranch ||
		!utf8.ValidString(ref) || strings.HasSuffix(ref, "/") {
		return false
	}
	for _, r := range ref {
		if unicode.IsControl(r) || unicode.IsSpace(r) || r == '\\' {
			return false
		}
	}
	return true
}

// branchName is ref without refs/heads/; a HEAD pointing elsewhere
// (refs/remotes/…) is shown as the whole ref.
func branchName(ref string) string {
	if b, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
		return b
	}
	return ref
}

func isSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Observations is what a read records: the repository root, the branch
// and the HEAD commit, each only when known.
func (r Repo) Observations() []event.ObservationRecordedData {
	var out []event.ObservationRecordedData
	for _, o := range []event.ObservationRecordedData{
		{Key: event.ObsGitBranch, Value: r.Branch},
		{Key: event.ObsGitHeadSHA, Value: r.HeadSHA},
		{Key: event.ObsRepoRoot, Value: r.Root},
	} {
		if o.Value != "" {
			out = append(out, o)
		}
	}
	return out
}

// Observer observes workspaces for the use cases, each read bounded by
// Timeout: a read still running then (a hung network filesystem) is
// given up. One read of a workspace runs at a time: a call while it runs
// waits for it until its timeout, and once that has passed skips the
// workspace until the read returns, so a stuck mount costs one
// goroutine, not one per call.
type Observer struct {
	Timeout time.Duration

	mu    sync.Mutex
	reads map[string]*read // the read running, per workspace
}

// read is one read of a workspace: repo is set when done is closed.
type read struct {
	done     chan struct{}
	deadline time.Time
	repo     Repo
}

// DefaultTimeout bounds one workspace's read.
const DefaultTimeout = time.Second

// NewObserver returns an Observer with DefaultTimeout.
func NewObserver() *Observer { return &Observer{Timeout: DefaultTimeout} }

// Observe reads workspace's repository within the timeout; nothing when
// there is none, it is odd, or it does not answer in time.
func (o *Observer) Observe(workspace string) []event.ObservationRecordedData {
	r := o.start(workspace)
	timer := time.NewTimer(time.Until(r.deadline))
	defer timer.Stop()
	select {
	case <-r.done:
		return r.repo.Observations()
	case <-timer.C:
		return nil
	}
}

// start returns the read of workspace running, starting one when none
// is.
func (o *Observer) start(workspace string) *read {
	o.mu.Lock()
	defer o.mu.Unlock()
	if r, ok := o.reads[workspace]; ok {
		return r
	}
	if o.reads == nil {
		o.reads = map[string]*read{}
	}
	r := &read{done: make(chan struct{}), deadline: time.Now().Add(o.Timeout)}
	o.reads[workspace] = r
	go func() {
		r.repo, _ = Read(workspace)
		o.mu.Lock()
		delete(o.reads, workspace)
		o.mu.Unlock()
		close(r.done)
	}()
	return r
}
