package gitsource

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

// errNoGit is a fetch without git to run.
var errNoGit = errors.New("git was not found on PATH: install git to fetch workflowRepos")

// gitRun runs the git processes of one fetch: in a folder of the cache,
// with an environment of its own, each in a session of its own that is
// killed whole (remote helpers, ssh, index-pack) when its context ends.
type gitRun struct {
	dir    string // where git runs: a repository's folder of the cache
	gitDir string // the scratch repository, once there is one
	env    []string
}

// safeConfig is set on every git run. No credential helper, askpass
// program or terminal is asked (the Helper is, once, by the fetch); no
// hook runs; a fetched pack is kept as one file, which the pack bound
// watches grow; nothing runs in the background after a fetch.
var safeConfig = []string{
	"-c", "credential.helper=", "-c", "core.askPass=", "-c", "core.hooksPath=/dev/null",
	"-c", "fetch.unpackLimit=1", "-c", "transfer.unpackLimit=1",
	"-c", "maintenance.auto=false", "-c", "gc.auto=0",
}

// newGitRun is the git of a fetch run in dir, whose parent git must not
// look above for a repository. header, when set, is the Authorization
// header sent to origin (scheme://host[:port]/): it travels in the
// environment, which only this user can read, never on a command line.
func newGitRun(dir, parent, origin, header string) gitRun {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(clearedEnv, name) || strings.HasPrefix(name, "GIT_CONFIG_KEY_") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_")
	})
	env = append(env, "GIT_TERMINAL_PROMPT=0", "GIT_ALLOW_PROTOCOL=http:https:ssh:git:file",
		"GIT_CEILING_DIRECTORIES="+parent, "LC_ALL=C")
	if header != "" {
		env = append(env, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http."+origin+".extraHeader", "GIT_CONFIG_VALUE_0="+header)
	}
	return gitRun{dir: dir, env: env}
}

// clearedEnv are the variables a git run does without: the ways to be
// asked for a password, the protocols allowed, the language of git's
// words (explain reads them), and those naming a repository or its
// configuration (`git rev-parse --local-env-vars`, which git itself
// clears before working in another repository).
var clearedEnv = []string{
	"GIT_ASKPASS", "SSH_ASKPASS", "GIT_TERMINAL_PROMPT", "GIT_ALLOW_PROTOCOL", "GIT_CEILING_DIRECTORIES", "LC_ALL",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_OBJECT_DIRECTORY",
	"GIT_DIR", "GIT_WORK_TREE", "GIT_IMPLICIT_WORK_TREE", "GIT_GRAFT_FILE", "GIT_INDEX_FILE", "GIT_NO_REPLACE_OBJECTS",
	"GIT_REPLACE_REF_BASE", "GIT_PREFIX", "GIT_INTERNAL_SUPER_PREFIX", "GIT_SHALLOW_FILE", "GIT_COMMON_DIR",
}

// command is git with args; its stdin is empty.
func (g gitRun) command(ctx context.Context, args ...string) *exec.Cmd {
	if g.gitDir != "" {
		args = append([]string{"--git-dir=" + g.gitDir}, args...)
	}
	cmd := exec.CommandContext(ctx, "git", append(slices.Clip(safeConfig), args...)...)
	cmd.Dir, cmd.Env = g.dir, g.env
	// A session of its own: no terminal to prompt on, and one group to kill.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	return cmd
}

// run runs git with args and returns what it printed.
func (g gitRun) run(ctx context.Context, args ...string) ([]byte, error) {
	cmd := g.command(ctx, args...)
	var out bytes.Buffer
	stderr := &firstBytes{}
	cmd.Stdout, cmd.Stderr = &out, stderr
	err := cmd.Run()
	return out.Bytes(), failure(ctx, err, stderr)
}

// failure is the error of a git run that ended with err: the context's
// when it ended first, errNoGit, or what git said.
func failure(ctx context.Context, err error, stderr *firstBytes) error {
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, exec.ErrNotFound):
		return errNoGit
	}
	return &gitError{said: said(stderr.String()), err: err}
}

// gitError is a git run that failed, with what it said.
type gitError struct {
	said string
	err  error
}

func (e *gitError) Error() string {
	if e.said == "" {
		return "git: " + e.err.Error()
	}
	return e.said
}

// says reports whether a git run failed saying any of words (any case).
func says(err error, words ...string) bool {
	var g *gitError
	if !errors.As(err, &g) {
		return false
	}
	lower := strings.ToLower(g.said)
	return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(lower, strings.ToLower(w)) })
}

// said is git's stderr as one line: "fatal: " and "error: " dropped,
// and the advice it prints after a failed connection.
func said(stderr string) string {
	var parts []string
	for line := range strings.Lines(stderr) {
		line = strings.TrimSpace(line)
		line = strings.TrimPrefix(strings.TrimPrefix(line, "fatal: "), "error: ")
		switch line {
		case "", "Could not read from remote repository.", "Please make sure you have the correct access rights", "and the repository exists.":
			continue
		}
		parts = append(parts, line)
	}
	return strings.Join(parts, "; ")
}

// firstBytes keeps the first bytes git writes to stderr: a message is cut to
// maxMessage anyway, and a server's words are its to choose.
type firstBytes struct{ bytes.Buffer }

func (t *firstBytes) Write(p []byte) (int, error) {
	if room := 4*maxMessage - t.Len(); room > 0 {
		t.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
