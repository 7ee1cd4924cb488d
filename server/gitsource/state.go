package gitsource

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/workrail/workrail/server/giturl"
)

// State is what is known of one repository: what `workrail sources`
// and the Console list, and what the cache remembers across restarts.
// Nothing in it holds a credential.
type State struct {
	URL  string `json:"url"` // without credentials
	Ref  string `json:"ref,omitempty"`
	Path string `json:"path,omitempty"`
	// Commit is the 40-hex commit served; "" before the first fetch.
	Commit string `json:"commit,omitempty"`
	// Folder holds the workflow files of Commit (Path within its tree).
	Folder string `json:"folder,omitempty"`
	// SyncedAt is when a fetch last succeeded: it fetched Commit, or found
	// the ref still there.
	SyncedAt time.Time `json:"syncedAt,omitzero"`
	// CheckedAt is when a fetch was last tried.
	CheckedAt time.Time `json:"checkedAt,omitzero"`
	// Error is why the last fetch failed; "" when it succeeded.
	Error string `json:"error,omitempty"`
	// Skipped are the files of Commit's tree left out of Folder.
	Skipped []Skipped `json:"skipped,omitempty"`
}

// Skipped is a file of the repository that was not written, and why
// (a symbolic link, over the size of a workflow file, past a limit).
type Skipped struct {
	File   string `json:"file"` // its path in the repository
	Reason string `json:"reason"`
}

// stateFile is the state's file in a repository's folder.
const stateFile = "state.json"

// commitDir is a commit's folder in a repository's folder.
var commitDir = regexp.MustCompile(`^[0-9a-f]{40}$`)

// restore reads r's state from the cache; a state whose folder is gone
// (removed by hand) serves nothing until the next fetch.
func (s *Set) restore(r *repo) State {
	st := State{URL: r.addr.Shown, Ref: r.cfg.Ref, Path: r.cfg.Path}
	if r.bad != nil {
		st.URL = giturl.Shown(r.cfg.URL)
		st.Error = "config.json's address cannot be read: " + r.bad.Error()
		return st
	}
	b, err := os.ReadFile(filepath.Join(s.opts.Dir, r.key, stateFile))
	if err != nil {
		return st
	}
	var saved State
	if json.Unmarshal(b, &saved) != nil || !commitDir.MatchString(saved.Commit) {
		return st
	}
	folder := filepath.Join(s.opts.Dir, r.key, saved.Commit, filepath.FromSlash(r.cfg.Path))
	if info, err := os.Stat(filepath.Join(s.opts.Dir, r.key, saved.Commit)); err != nil || !info.IsDir() {
		return st
	}
	st.Commit, st.Folder, st.SyncedAt, st.CheckedAt, st.Error, st.Skipped = saved.Commit, folder, saved.SyncedAt, saved.CheckedAt, saved.Error, saved.Skipped
	return st
}

// save writes st to r's folder (atomically, 0600); the cache is a cache,
// so a failure to write it is only logged.
func (s *Set) save(r *repo, st State) {
	if r.bad != nil {
		return
	}
	dir := filepath.Join(s.opts.Dir, r.key)
	b, _ := json.MarshalIndent(st, "", "  ")
	err := os.MkdirAll(dir, 0o700)
	if err == nil {
		err = writeAtomically(filepath.Join(dir, stateFile), append(b, '\n'))
	}
	if err != nil {
		s.opts.Log.Warn("workflow repository: its state could not be saved", "repo", st.URL, "err", err)
	}
}

// prune removes r's commit folders but keep and prev (a call may still be
// reading the one served before), and what a fetch left behind.
func (s *Set) prune(r *repo, keep, prev string) {
	dir := filepath.Join(s.opts.Dir, r.key)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if name := e.Name(); e.IsDir() && name != keep && name != prev {
			if err := os.RemoveAll(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
				s.opts.Log.Warn("workflow repository: an old copy could not be removed", "repo", r.addr.Shown, "err", err)
			}
		}
	}
}

// writeAtomically replaces path by a file holding b (0600), written beside
// it under a name of its own: `workrail sources sync` with no daemon may
// write the same state as a daemon starting.
func writeAtomically(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
