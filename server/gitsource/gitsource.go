// Package gitsource keeps the workflow repositories config.json names
// (workflowRepos): it fetches each, shallow where the server allows, with
// the git on PATH (git.go), writes the workflow files of the commit
// fetched into a folder of a cache under the home, and remembers which
// commit it serves, when it was fetched and why the last fetch failed.
// Running the user's git means the user's ssh config, known_hosts,
// proxies, url.insteadOf and credential helpers apply exactly as to
// their own `git fetch`.
// The folder is then read like any other source (server/sources); a
// commit never changes, so a folder, once written, is what the workflows
// of that commit are, offline too, as a Go module cache serves a version.
//
// What a repository holds is untrusted, so everything is bounded: the
// time of a fetch, the bytes it receives, and the files, folders, depth
// and bytes written of its tree (limits.go). Credentials are never
// written anywhere nor put on a command line: they come from the
// address, the environment, git's credential helpers or ssh's own
// agent and keys, are handed to git in its environment alone, and are
// stripped from every message (auth.go).
//
// It imports nothing of the project but server/giturl; the wiring hands
// the folders to server/sources.
package gitsource

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/workrail/workrail/server/giturl"
)

// Repo is one entry of workflowRepos: the address as written (it may carry
// credentials), the ref followed ("" for the remote's default branch) and
// the folder of the repository the workflows are in ("" for its top).
type Repo struct {
	URL, Ref, Path string
}

// Options are what a Set is given besides its repositories.
type Options struct {
	// Dir is the cache: one folder per repository.
	Dir string
	// Getenv reads the environment (os.Getenv when nil): the tokens.
	Getenv func(string) string
	// Helper asks git's credential helpers for an http(s) address
	// (gitCredentialFill when nil; tests give their own).
	Helper Helper
	// Now is the clock of the times recorded (time.Now when nil).
	Now func() time.Time
	// Log hears each fetch and each failure, credentials stripped.
	Log *slog.Logger
	// Limits bound each fetch (DefaultLimits when zero).
	Limits Limits
}

// Set is the repositories of one daemon, in workflowRepos order.
type Set struct {
	opts  Options
	repos []*repo

	mu sync.Mutex // guards every repo's state
}

// repo is one repository and what is known of it.
type repo struct {
	cfg  Repo
	addr giturl.Address
	bad  error  // the address cannot be read: never fetched
	key  string // its folder in the cache
	sync sync.Mutex
	st   State // guarded by Set.mu
}

// New reads what the cache holds of each repository, without touching
// the network or changing the cache: a daemon starts at once, serving the
// commits fetched before (and `workrail doctor` reads them as they are).
func New(repos []Repo, opts Options) *Set {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Helper == nil {
		opts.Helper = gitCredentialFill
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Limits == (Limits{}) {
		opts.Limits = DefaultLimits()
	}
	s := &Set{opts: opts}
	for _, cfg := range repos {
		r := &repo{cfg: cfg}
		r.addr, r.bad = giturl.Parse(cfg.URL)
		if r.bad == nil && cfg.Path != "" && (!filepath.IsLocal(cfg.Path) || path.Clean(cfg.Path) != cfg.Path) {
			r.bad = errors.New("path names a folder inside the repository: relative, with / between names and no . or .. (workflows, or teams/review)")
		}
		r.key = keyOf(r.addr.Shown, cfg.Ref, cfg.Path)
		if r.bad != nil {
			r.key = keyOf(giturl.Shown(cfg.URL), cfg.Ref, cfg.Path)
		}
		r.st = s.restore(r)
		s.repos = append(s.repos, r)
	}
	return s
}

// Tidy removes from the cache what no repository needs: the folders of
// repositories no longer named, and what a fetch cut short left behind.
// The daemon calls it at start, before any sync.
func (s *Set) Tidy() {
	keep := map[string]bool{}
	for _, r := range s.repos {
		keep[r.key] = true
		if st := s.state(r); st.Commit != "" {
			s.prune(r, st.Commit, "")
		}
	}
	s.forget(keep)
}

// keyOf is a repository's folder in the cache: the repository's name and
// a digest of what tells two entries apart, the credentials left out.
func keyOf(shown, ref, path string) string {
	sum := sha256.Sum256([]byte(shown + "\n" + ref + "\n" + path))
	name := strings.TrimSuffix(shown[strings.LastIndexAny(shown, "/:")+1:], ".git")
	name = strings.Trim(unsafeName.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if len(name) > 32 {
		name = name[:32]
	}
	if name == "" {
		name = "repo"
	}
	return name + "-" + hex.EncodeToString(sum[:6])
}

var unsafeName = regexp.MustCompile(`[^a-z0-9._-]+`)

// forget removes the folders of repositories no longer named.
func (s *Set) forget(keep map[string]bool) {
	entries, err := os.ReadDir(s.opts.Dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.IsDir() && !keep[e.Name()] {
			if _, err := os.Stat(filepath.Join(s.opts.Dir, e.Name(), stateFile)); err == nil {
				os.RemoveAll(filepath.Join(s.opts.Dir, e.Name()))
			}
		}
	}
}

// States is what is known of every repository, in workflowRepos order.
func (s *Set) States() []State {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]State, len(s.repos))
	for i, r := range s.repos {
		out[i] = r.st
	}
	return out
}

// Sync fetches every repository, a few at once, and reports whether any
// now serves another commit. Each fetch is bounded by Limits.FetchTime;
// ctx ends them all sooner. A repository fetched already is fetched again
// (its ls-remote costs one round trip when nothing moved) unless
// onlyMissing, when only those not yet fetched are.
func (s *Set) Sync(ctx context.Context, onlyMissing bool) (changed bool) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	slots := make(chan struct{}, 4)
	for _, r := range s.repos {
		if onlyMissing && s.state(r).Commit != "" {
			continue
		}
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			if s.syncOne(ctx, r) {
				mu.Lock()
				changed = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return changed
}

func (s *Set) state(r *repo) State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return r.st
}

func (s *Set) setState(r *repo, st State) {
	s.mu.Lock()
	r.st = st
	s.mu.Unlock()
	s.save(r, st)
}

// Run syncs in the background until ctx ends: at once, then every
// interval, calling changed after a sync that moved a repository to
// another commit. With interval 0 it fetches only the repositories it
// holds no copy of, once. It never blocks the caller.
func (s *Set) Run(ctx context.Context, interval time.Duration, changed func()) {
	if len(s.repos) == 0 {
		return
	}
	go func() {
		if s.Sync(ctx, interval == 0) && changed != nil {
			changed()
		}
		if interval == 0 {
			return
		}
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if s.Sync(ctx, false) && changed != nil {
					changed()
				}
			}
		}
	}()
}

// syncOne fetches r if it moved and reports whether it now serves another
// commit. A failure keeps the commit served before and records why.
func (s *Set) syncOne(ctx context.Context, r *repo) bool {
	r.sync.Lock() // a sync asked for while one runs waits for it, then looks again
	defer r.sync.Unlock()
	before := s.state(r)
	start := s.opts.Now()
	st, err := s.fetch(ctx, r, before)
	st.CheckedAt = start.UTC()
	if err != nil {
		st = before
		st.CheckedAt = start.UTC()
		st.Error = err.Error()
		s.setState(r, st)
		s.opts.Log.Warn("workflow repository not fetched", "repo", before.URL, "ref", before.Ref, "serving", cmp.Or(before.Commit, "nothing"), "err", st.Error)
		return false
	}
	st.Error = ""
	s.setState(r, st)
	moved := st.Commit != before.Commit
	if moved {
		s.opts.Log.Info("workflow repository fetched", "repo", st.URL, "ref", st.Ref, "commit", st.Commit, "took", time.Since(start).Round(time.Millisecond).String())
		s.prune(r, st.Commit, before.Commit)
	}
	return moved
}
