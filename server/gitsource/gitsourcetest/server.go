// Package gitsourcetest serves git repositories to tests the way a git
// host does: git's own http-backend (from Debian's git package) behind
// net/http/cgi, optionally behind HTTP basic auth, or git's own `git
// daemon` over git://, over bare repositories in a test's temporary
// folder, which the test commits and pushes to with git.
package gitsourcetest

import (
	"bytes"
	"crypto/subtle"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Server is a git host over HTTP.
type Server struct {
	// URL is where it listens: http://127.0.0.1:PORT.
	URL string
	// Root holds the bare repositories, NAME.git.
	Root string
	srv  *httptest.Server
	// Requests counts the requests served.
	Requests atomic.Int64
}

// Git runs git with args in dir, failing tb on an error, and returns its
// output trimmed. Commits are made by a fixed author at fixed times, so
// the same content makes the same commit.
func Git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=WorkRail Test", "GIT_AUTHOR_EMAIL=test@workrail.invalid",
		"GIT_COMMITTER_NAME=WorkRail Test", "GIT_COMMITTER_EMAIL=test@workrail.invalid",
		"GIT_AUTHOR_DATE=2025-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2025-01-01T00:00:00Z",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return strings.TrimSpace(out.String())
}

// NeedGit fails tb when git is not installed (`.ci/tasks test` installs it).
func NeedGit(tb testing.TB) string {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Fatal("git is not installed: .ci/tasks test installs it (apt-get install git)")
	}
	cmd := exec.Command("git", "--exec-path")
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("git --exec-path: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// NewServer starts a git host. With password set, every request must
// carry HTTP basic auth with that password (any user name), as a private
// repository's host asks.
func NewServer(tb testing.TB, password string) *Server {
	tb.Helper()
	exe := filepath.Join(NeedGit(tb), "git-http-backend")
	s := &Server{Root: tb.TempDir()}
	backend := &cgi.Handler{Path: exe, Root: "/", Env: []string{"GIT_PROJECT_ROOT=" + s.Root, "GIT_HTTP_EXPORT_ALL=1",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1"}}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Requests.Add(1)
		if password != "" {
			_, got, ok := r.BasicAuth()
			if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(password)) != 1 {
				w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
				http.Error(w, "credentials wanted", http.StatusUnauthorized)
				return
			}
		}
		backend.ServeHTTP(w, r)
	}))
	s.URL = s.srv.URL
	tb.Cleanup(s.srv.Close)
	return s
}

// Close stops the server: it refuses connections from then on.
func (s *Server) Close() { s.srv.Close() }

// Repo is a bare repository on a Server (or a folder alone, for file://)
// and a work tree the test commits in and pushes from.
type Repo struct {
	tb   testing.TB
	Bare string // the bare repository's folder
	Work string
}

// NewRepo makes the bare repository NAME.git in root, which hands out
// any commit it holds by its hash, and a work tree pushing to it.
func NewRepo(tb testing.TB, root, name string) *Repo {
	tb.Helper()
	NeedGit(tb)
	r := &Repo{tb: tb, Bare: filepath.Join(root, name+".git"), Work: tb.TempDir()}
	Git(tb, root, "init", "-q", "--bare", "-b", "main", r.Bare)
	Git(tb, r.Bare, "config", "uploadpack.allowAnySHA1InWant", "true")
	Git(tb, r.Work, "init", "-q", "-b", "main")
	Git(tb, r.Work, "remote", "add", "origin", r.Bare)
	return r
}

// Repo makes the repository NAME.git on s.
func (s *Server) Repo(tb testing.TB, name string) *Repo { return NewRepo(tb, s.Root, name) }

// URL is the repository's address on s.
func (s *Server) RepoURL(name string) string { return s.URL + "/" + name + ".git" }

// FileURL is the repository's file:// address.
func (r *Repo) FileURL() string { return "file://" + r.Bare }

// Commit writes files (path → content; an empty content removes the
// file) in the work tree, commits them and pushes main; it returns the
// commit's hash.
func (r *Repo) Commit(msg string, files map[string]string) string {
	r.tb.Helper()
	for name, content := range files {
		p := filepath.Join(r.Work, filepath.FromSlash(name))
		if content == "" {
			os.Remove(p)
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			r.tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			r.tb.Fatal(err)
		}
	}
	Git(r.tb, r.Work, "add", "-A")
	Git(r.tb, r.Work, "commit", "-q", "--allow-empty", "-m", msg)
	Git(r.tb, r.Work, "push", "-q", "--force", "origin", "main")
	return Git(r.tb, r.Work, "rev-parse", "HEAD")
}

// Rewrite drops the last commit and commits files in its place, pushed
// with --force: the branch's history is rewritten.
func (r *Repo) Rewrite(msg string, files map[string]string) string {
	r.tb.Helper()
	Git(r.tb, r.Work, "reset", "-q", "--hard", "HEAD~1")
	return r.Commit(msg, files)
}

// Daemon is git's own `git daemon`, serving every repository of Root
// over git:// on a port of this machine.
type Daemon struct {
	// URL is where it listens: git://127.0.0.1:PORT.
	URL  string
	Root string
	cmd  *exec.Cmd
}

// NewDaemon starts `git daemon` over a new folder of repositories and
// returns once it accepts connections; the test's end stops it.
func NewDaemon(tb testing.TB) *Daemon {
	tb.Helper()
	exe := filepath.Join(NeedGit(tb), "git-daemon") // not `git daemon`, which would leave it running as its child
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := l.Addr().(*net.TCPAddr)
	l.Close() // git daemon takes the port a moment later
	d := &Daemon{URL: "git://" + addr.String(), Root: tb.TempDir()}
	d.cmd = exec.Command(exe, "--listen=127.0.0.1", "--port="+strconv.Itoa(addr.Port), "--reuseaddr",
		"--export-all", "--informative-errors", "--base-path="+d.Root, d.Root)
	d.cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if err := d.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(d.Close)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		c, err := net.Dial("tcp", addr.String())
		if err == nil {
			c.Close()
			return d
		}
		if time.Now().After(deadline) {
			tb.Fatalf("git daemon does not accept connections on %s: %v", addr, err)
		}
	}
}

// Close stops the daemon: it refuses connections from then on.
func (d *Daemon) Close() {
	if d.cmd.ProcessState == nil {
		d.cmd.Process.Kill()
		d.cmd.Wait()
	}
}

// Repo makes the repository NAME.git on d.
func (d *Daemon) Repo(tb testing.TB, name string) *Repo { return NewRepo(tb, d.Root, name) }

// RepoURL is the repository's git:// address on d.
func (d *Daemon) RepoURL(name string) string { return d.URL + "/" + name + ".git" }
