package gitsource

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/workrail/workrail/server/giturl"
)

// fetch brings r to the commit its ref names now. It lists the remote's
// refs (one round trip) and, when the ref still names the commit served,
// changes only the time of the last sync; otherwise it fetches that
// commit, shallow, into scratch storage, writes its workflow files into
// the commit's folder and drops the storage: the folder is all that is
// kept. A commit named as the ref is fetched once.
func (s *Set) fetch(ctx context.Context, r *repo, before State) (State, error) {
	if r.bad != nil {
		return before, errors.New("config.json's address cannot be read: " + r.bad.Error())
	}
	installHTTP.Do(installClient)
	lim := s.opts.Limits
	ctx, cancel := context.WithTimeout(ctx, lim.FetchTime)
	defer cancel()
	creds := s.credentialsOf(r.addr)
	st := before
	served := before.Commit != "" && exists(filepath.Join(s.opts.Dir, r.key, before.Commit))
	if plumbing.IsHash(r.cfg.Ref) && served && before.Commit == strings.ToLower(r.cfg.Ref) {
		st.SyncedAt = s.opts.Now().UTC()
		return st, nil
	}
	ref, commit, err := s.resolve(ctx, r, &creds)
	if err != nil {
		return before, s.explain(ctx, err, creds, r.addr.Host)
	}
	if served && commit == before.Commit {
		st.SyncedAt = s.opts.Now().UTC()
		return st, nil
	}
	commit, skipped, err := s.download(ctx, r, creds, ref, commit)
	if err != nil {
		return before, s.explain(ctx, err, creds, r.addr.Host)
	}
	st.Commit, st.Skipped, st.SyncedAt = commit, skipped, s.opts.Now().UTC()
	st.Folder = filepath.Join(s.opts.Dir, r.key, commit, filepath.FromSlash(r.cfg.Path))
	return st, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// resolve lists the remote's refs and finds the one r follows: the
// default branch (HEAD) when r names none, else the branch or tag of that
// name (or the full ref name given). It returns the ref to fetch and the
// commit it names (an annotated tag peeled); a commit named as r's ref
// is its own answer, fetched by its hash. Over http(s), a refusal for want
// of credentials asks git's credential helpers once.
func (s *Set) resolve(ctx context.Context, r *repo, creds *credentials) (plumbing.ReferenceName, string, error) {
	if plumbing.IsHash(r.cfg.Ref) {
		return "", strings.ToLower(r.cfg.Ref), nil
	}
	remote := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "origin", URLs: []string{r.addr.Shown}})
	list := func() ([]*plumbing.Reference, error) {
		return remote.ListContext(ctx, &git.ListOptions{Auth: creds.auth, PeelingOption: git.AppendPeeled})
	}
	refs, err := list()
	if errors.Is(err, transport.ErrAuthenticationRequired) && (r.addr.Scheme == giturl.HTTPS || r.addr.Scheme == giturl.HTTP) {
		var ok bool
		if *creds, ok = s.withHelper(ctx, r.addr, *creds); ok {
			refs, err = list()
		}
	}
	if err != nil {
		return "", "", err
	}
	byName := map[plumbing.ReferenceName]*plumbing.Reference{}
	for _, ref := range refs {
		byName[ref.Name()] = ref
	}
	name, ok := pick(byName, r.cfg.Ref)
	if !ok {
		if r.cfg.Ref == "" {
			return "", "", errors.New("the repository names no default branch (it may be empty): name the branch to follow as ref")
		}
		return "", "", fmt.Errorf("the repository has no branch or tag %q", r.cfg.Ref)
	}
	hash := byName[name].Hash()
	if peeled, ok := byName[name+"^{}"]; ok {
		hash = peeled.Hash()
	}
	return name, hash.String(), nil
}

// pick is the full name of the ref r follows among the remote's refs.
func pick(refs map[plumbing.ReferenceName]*plumbing.Reference, want string) (plumbing.ReferenceName, bool) {
	if want == "" {
		head, ok := refs[plumbing.HEAD]
		if !ok {
			return "", false
		}
		if head.Type() == plumbing.SymbolicReference {
			_, ok := refs[head.Target()]
			return head.Target(), ok
		}
		// No symref advertised: the branch HEAD's commit is on, the
		// default one first.
		for _, name := range []plumbing.ReferenceName{plumbing.Main, plumbing.Master} {
			if b, ok := refs[name]; ok && b.Hash() == head.Hash() {
				return name, true
			}
		}
		return plumbing.HEAD, true
	}
	for _, name := range []plumbing.ReferenceName{plumbing.ReferenceName(want), plumbing.NewBranchReferenceName(want), plumbing.NewTagReferenceName(want)} {
		if _, ok := refs[name]; ok && strings.HasPrefix(string(name), "refs/") {
			return name, true
		}
	}
	return "", false
}

// download fetches ref (or, ref empty, commit by its hash) into scratch
// storage beside r's commit folders, shallow, and writes the workflow
// files of the commit fetched into that commit's folder.
func (s *Set) download(ctx context.Context, r *repo, creds credentials, ref plumbing.ReferenceName, commit string) (string, []Skipped, error) {
	dir := filepath.Join(s.opts.Dir, r.key)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", nil, err
	}
	scratch, err := os.MkdirTemp(dir, "fetch-")
	if err != nil {
		return "", nil, err
	}
	defer os.RemoveAll(scratch)
	fsStore := filesystem.NewStorageWithOptions(osfs.New(scratch), cache.NewObjectLRUDefault(), filesystem.Options{ExclusiveAccess: true})
	defer fsStore.Close()
	store := boundedStorage{Storage: fsStore, limit: s.opts.Limits.PackBytes}
	repo, err := git.Init(store, nil)
	if err != nil {
		return "", nil, err
	}
	if _, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{r.addr.Shown}}); err != nil {
		return "", nil, err
	}
	local := plumbing.ReferenceName("refs/heads/workrail")
	src := string(ref)
	if ref == "" {
		src = commit
	}
	opts := &git.FetchOptions{RemoteName: "origin", Auth: creds.auth, Depth: 1, Tags: git.NoTags,
		RefSpecs: []config.RefSpec{config.RefSpec("+" + src + ":" + string(local))}}
	if ref == "" {
		opts.RefSpecs[0] = config.RefSpec(src + ":" + string(local)) // a hash is never forced
	}
	err = repo.FetchContext(ctx, opts)
	if errors.Is(err, git.ErrExactSHA1NotSupported) {
		// The server will not hand out a commit by its hash: take every
		// branch and tag, whole, and look for it among them.
		opts.Depth, opts.RefSpecs = 0, []config.RefSpec{"+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*"}
		err = repo.FetchContext(ctx, opts)
	} else if err == nil || errors.Is(err, git.NoErrAlreadyUpToDate) {
		if ref != "" {
			var got *plumbing.Reference
			if got, err = repo.Reference(local, true); err == nil {
				commit = got.Hash().String()
			}
		}
	}
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return "", nil, err
	}
	c, err := commitOf(repo, plumbing.NewHash(commit))
	if err != nil {
		return "", nil, err
	}
	skipped, err := s.writeCommit(ctx, repo, c, dir, r.cfg.Path)
	return c.Hash.String(), skipped, err
}

// commitOf is the commit h names, through an annotated tag.
func commitOf(repo *git.Repository, h plumbing.Hash) (*object.Commit, error) {
	if tag, err := repo.TagObject(h); err == nil {
		return tag.Commit()
	}
	c, err := repo.CommitObject(h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return nil, fmt.Errorf("the repository has no commit %s", h)
	}
	return c, err
}

// explain words a failed fetch for the person reading the sources list:
// what it was and what to do, credentials stripped.
func (s *Set) explain(ctx context.Context, err error, creds credentials, host string) error {
	lim := s.opts.Limits
	var msg string
	switch {
	case errors.Is(err, errPackTooLarge) || strings.Contains(err.Error(), errPackTooLarge.Error()):
		msg = tooLarge(lim.PackBytes).Error()
	case errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil:
		msg = fmt.Sprintf("the fetch took over %s and was given up (%v)", lim.FetchTime, err)
	case errors.Is(err, transport.ErrAuthenticationRequired) && creds.auth == nil:
		msg = fmt.Sprintf("the repository asks for credentials, and none were found: set %s (or %s) in the daemon's environment, or store them with a git credential helper (%v)",
			giturl.TokenEnv(host), tokenEnv, err)
	case errors.Is(err, transport.ErrAuthenticationRequired):
		msg = "the repository refused the credentials given: check the token (" + err.Error() + ")"
	case errors.Is(err, transport.ErrAuthorizationFailed):
		msg = "the repository refused these credentials (" + err.Error() + "): check the token can read it"
	case errors.Is(err, transport.ErrRepositoryNotFound):
		msg = "no repository at this address (or a private one the credentials cannot see): " + err.Error()
	case errors.Is(err, transport.ErrEmptyRemoteRepository):
		msg = "the repository is empty: push a commit to it"
	default:
		msg = err.Error()
	}
	return errors.New(scrub(msg, creds.secrets))
}

var installHTTP sync.Once

// installClient gives go-git's http(s) transport timeouts for what
// precedes a response (a fetch as a whole is bounded by its context).
func installClient() {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSHandshakeTimeout = 15 * time.Second
	t.ResponseHeaderTimeout = 30 * time.Second
	c := githttp.NewClient(&http.Client{Transport: t})
	client.InstallProtocol("https", c)
	client.InstallProtocol("http", c)
}
