package gitsource

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/workrail/workrail/server/giturl"
)

// fetch brings r to the commit its ref names now. It lists the remote's
// refs (one round trip) and, when the ref still names the commit served,
// changes only the time of the last sync; otherwise it fetches that
// commit, shallow, into a scratch repository, writes its workflow files
// into the commit's folder and drops the repository: the folder is all
// that is kept. A commit named as the ref is fetched once.
func (s *Set) fetch(ctx context.Context, r *repo, before State) (State, error) {
	if r.bad != nil {
		return before, errors.New("config.json's address cannot be read: " + r.bad.Error())
	}
	lim := s.opts.Limits
	ctx, cancel := context.WithTimeout(ctx, lim.FetchTime)
	defer cancel()
	creds := s.credentialsOf(r.addr)
	st := before
	dir := filepath.Join(s.opts.Dir, r.key)
	served := before.Commit != "" && exists(filepath.Join(dir, before.Commit))
	if isHash(r.cfg.Ref) && served && before.Commit == strings.ToLower(r.cfg.Ref) {
		st.SyncedAt = s.opts.Now().UTC()
		return st, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return before, err
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
	st.Folder = filepath.Join(dir, commit, filepath.FromSlash(r.cfg.Path))
	return st, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// isHash reports whether ref names a commit by its full hash.
func isHash(ref string) bool {
	return len(ref) == 40 && strings.Trim(strings.ToLower(ref), "0123456789abcdef") == ""
}

// git runs git for a fetch of r with creds, in r's folder of the cache.
func (s *Set) git(r *repo, creds credentials) gitRun {
	return newGitRun(filepath.Join(s.opts.Dir, r.key), s.opts.Dir, originOf(r.addr), creds.header)
}

// originOf is where an http(s) address's credentials are sent:
// scheme://host[:port]/, redirects within it included.
func originOf(a giturl.Address) string {
	u, err := url.Parse(a.Shown)
	if err != nil || (a.Scheme != giturl.HTTPS && a.Scheme != giturl.HTTP) {
		return ""
	}
	return u.Scheme + "://" + u.Host + "/"
}

// errEmpty is a repository without a ref.
var errEmpty = errors.New("the repository is empty")

// resolve lists the remote's refs (`git ls-remote`) and finds the one r
// follows: the default branch (HEAD) when r names none, else the branch
// or tag of that name (or the full ref name given). It returns the ref
// to fetch and the commit it names (an annotated tag peeled); a commit
// named as r's ref is its own answer, fetched by its hash. Over http(s),
// a refusal for want of credentials asks the Helper once.
func (s *Set) resolve(ctx context.Context, r *repo, creds *credentials) (ref, commit string, err error) {
	if isHash(r.cfg.Ref) {
		return "", strings.ToLower(r.cfg.Ref), nil
	}
	list := func() ([]byte, error) {
		// Protocol v0 lists the refs in the answer to the first request:
		// a sync that finds nothing new costs one round trip (v2 takes two).
		return s.git(r, *creds).run(ctx, "-c", "protocol.version=0", "ls-remote", "--symref", "--", r.addr.Shown)
	}
	out, err := list()
	if authRequired(err) && (r.addr.Scheme == giturl.HTTPS || r.addr.Scheme == giturl.HTTP) {
		var ok bool
		if *creds, ok = s.withHelper(ctx, r.addr, *creds); ok {
			out, err = list()
		}
	}
	if err != nil {
		return "", "", err
	}
	refs := parseRefs(string(out))
	if len(refs.hash) == 0 {
		return "", "", errEmpty
	}
	name, ok := refs.pick(r.cfg.Ref)
	if !ok {
		if r.cfg.Ref == "" {
			return "", "", errors.New("the repository names no default branch (it may be empty): name the branch to follow as ref")
		}
		return "", "", fmt.Errorf("the repository has no branch or tag %q", r.cfg.Ref)
	}
	commit = refs.hash[name]
	if peeled, ok := refs.hash[name+"^{}"]; ok {
		commit = peeled
	}
	return name, commit, nil
}

// remoteRefs are the refs `git ls-remote --symref` lists: each name's
// hash (a tag's peeled commit under NAME^{}) and the branch HEAD names.
type remoteRefs struct {
	hash map[string]string
	head string // "" when the server does not say
}

func parseRefs(out string) remoteRefs {
	refs := remoteRefs{hash: map[string]string{}}
	for line := range strings.Lines(out) {
		left, name, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "\t")
		if !ok {
			continue
		}
		if target, ok := strings.CutPrefix(left, "ref: "); ok {
			if name == "HEAD" {
				refs.head = target
			}
			continue
		}
		refs.hash[name] = left
	}
	return refs
}

// pick is the full name of the ref r follows among the remote's refs.
func (refs remoteRefs) pick(want string) (string, bool) {
	if want == "" {
		head, ok := refs.hash["HEAD"]
		if !ok {
			return "", false
		}
		if refs.head != "" {
			_, ok := refs.hash[refs.head]
			return refs.head, ok
		}
		// No symref said: the branch HEAD's commit is on, the default one
		// first.
		for _, name := range []string{"refs/heads/main", "refs/heads/master"} {
			if refs.hash[name] == head {
				return name, true
			}
		}
		return "HEAD", true
	}
	for _, name := range []string{want, "refs/heads/" + want, "refs/tags/" + want} {
		if _, ok := refs.hash[name]; ok && strings.HasPrefix(name, "refs/") && !strings.HasSuffix(name, "^{}") {
			return name, true
		}
	}
	return "", false
}

// fetched is the scratch repository's ref a fetch writes.
const fetched = "refs/workrail/fetched"

// download fetches ref (or, ref empty, commit by its hash) into a
// scratch bare repository beside r's commit folders, shallow, and writes
// the workflow files of the commit fetched into that commit's folder.
func (s *Set) download(ctx context.Context, r *repo, creds credentials, ref, commit string) (string, []Skipped, error) {
	g := s.git(r, creds)
	scratch, err := os.MkdirTemp(g.dir, "fetch-")
	if err != nil {
		return "", nil, err
	}
	defer os.RemoveAll(scratch)
	if _, err := g.run(ctx, "init", "-q", "--bare", "--template=", "--", scratch); err != nil {
		return "", nil, err
	}
	g.gitDir = scratch
	spec, rev := "+"+ref+":"+fetched, fetched
	if ref == "" {
		spec, rev = commit+":"+fetched, commit // a hash is never forced
	}
	err = fetchPack(ctx, g, s.opts.Limits.PackBytes, "fetch", "-q", "--depth=1", "--no-tags", "--no-write-fetch-head", "--", r.addr.Shown, spec)
	if ref == "" && says(err, "unadvertised object", "not our ref") {
		// The server will not hand out a commit by its hash: take every
		// branch and tag, whole, and look for it among them.
		err = fetchPack(ctx, g, s.opts.Limits.PackBytes, "fetch", "-q", "--no-tags", "--no-write-fetch-head", "--", r.addr.Shown,
			"+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*")
	}
	if err != nil {
		return "", nil, err
	}
	out, err := g.run(ctx, "rev-parse", "--verify", "-q", rev+"^{commit}") // an annotated tag peeled
	if err != nil && ref == "" && ctx.Err() == nil {
		return "", nil, fmt.Errorf("the repository has no commit %s", commit)
	} else if err != nil {
		return "", nil, err
	}
	commit = strings.TrimSpace(string(out))
	skipped, err := s.writeCommit(ctx, g, commit, r.cfg.Path)
	return commit, skipped, err
}

// authRequired reports whether git was refused for want of credentials
// (or of right ones: a token sent in a header is not git's to retry).
func authRequired(err error) bool {
	return says(err, "could not read Username", "could not read Password", "terminal prompts disabled",
		"Authentication failed", "returned error: 401")
}

// explain words a failed fetch for the person reading the sources list:
// what it was and what to do, credentials stripped.
func (s *Set) explain(ctx context.Context, err error, creds credentials, host string) error {
	lim := s.opts.Limits
	var msg string
	switch {
	case errors.Is(err, errPackTooLarge):
		msg = tooLarge(lim.PackBytes).Error()
	case errors.Is(err, errNoGit):
		msg = err.Error()
	case errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil:
		msg = fmt.Sprintf("the fetch took over %s and was given up (%v)", lim.FetchTime, err)
	case authRequired(err) && creds.header == "":
		msg = fmt.Sprintf("the repository asks for credentials, and none were found: set %s (or %s) in the daemon's environment, or store them with a git credential helper (%v)",
			giturl.TokenEnv(host), tokenEnv, err)
	case authRequired(err):
		msg = "the repository refused the credentials given: check the token (" + err.Error() + ")"
	case says(err, "returned error: 403"):
		msg = "the repository refused these credentials (" + err.Error() + "): check the token can read it"
	case says(err, "not found", "does not appear to be a git repository", "not exported", "no such repository"):
		msg = "no repository at this address (or a private one the credentials cannot see): " + err.Error()
	case errors.Is(err, errEmpty):
		msg = "the repository is empty: push a commit to it"
	case says(err, "connection refused"):
		msg = "connection refused: the repository's host is not answering at this address (" + err.Error() + ")"
	default:
		msg = err.Error()
	}
	return errors.New(scrub(msg, creds.secrets))
}
