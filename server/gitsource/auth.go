package gitsource

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/workrail/workrail/server/giturl"
)

// Helper asks git's credential helpers for the user and password of an
// http(s) repository; ok is false when none answers.
type Helper func(ctx context.Context, a giturl.Address) (user, password string, ok bool)

// tokenEnv is the token for every host without one of its own.
const tokenEnv = "WORKRAIL_GIT_TOKEN"

// tokenUser is the user name sent with a token when the address names
// none: GitHub and GitLab read only the password of a token's basic auth.
const tokenUser = "workrail"

// credentials are what one fetch authenticates with, and the secrets
// every message of it is stripped of.
type credentials struct {
	// header is the Authorization header sent over http(s); "": none
	// (over ssh, git's ssh and its agent and keys decide).
	header  string
	secrets []string
}

// credentialsOf finds r's credentials without asking the helpers: over
// http(s) a password in the address, else the host's token
// (WORKRAIL_GIT_TOKEN_<HOST>), else WORKRAIL_GIT_TOKEN, sent as basic
// auth under the address's user name if it names one; over ssh the ssh
// agent and keys, as for any git command. git:// and file:// take none.
func (s *Set) credentialsOf(a giturl.Address) credentials {
	c := credentials{secrets: a.Secrets()}
	if a.Scheme != giturl.HTTPS && a.Scheme != giturl.HTTP {
		return c
	}
	pass := a.Password
	if pass == "" {
		pass = cmp.Or(s.opts.Getenv(giturl.TokenEnv(a.Host)), s.opts.Getenv(tokenEnv))
	}
	if pass == "" && a.User == "" {
		return c
	}
	c.header = basicAuth(cmp.Or(a.User, tokenUser), pass)
	c.secrets = appendSecret(c.secrets, pass)
	return c
}

// withHelper is c with what git's credential helpers answer for a, when
// they answer.
func (s *Set) withHelper(ctx context.Context, a giturl.Address, c credentials) (credentials, bool) {
	user, pass, ok := s.opts.Helper(ctx, a)
	if !ok || pass == "" {
		return c, false
	}
	c.header = basicAuth(cmp.Or(user, a.User, tokenUser), pass)
	c.secrets = appendSecret(appendSecret(c.secrets, pass), user)
	return c, true
}

// basicAuth is the Authorization header of HTTP basic auth.
func basicAuth(user, pass string) string {
	return "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

func appendSecret(secrets []string, s string) []string {
	if s == "" || slices.Contains(secrets, s) {
		return secrets
	}
	return append(secrets, s)
}

// maxMessage bounds a failure's message: a server's error page is quoted
// in it.
const maxMessage = 600

// scrub is msg with every secret, as written and as an address would
// escape it, replaced by ***, and cut to maxMessage bytes.
func scrub(msg string, secrets []string) string {
	for _, s := range secrets {
		for _, form := range []string{s, url.QueryEscape(s), url.PathEscape(s), url.UserPassword("u", s).String()[2:]} {
			if form != "" {
				msg = strings.ReplaceAll(msg, form, "***")
			}
		}
	}
	msg = strings.Join(strings.Fields(strings.ToValidUTF8(msg, "?")), " ")
	if len(msg) > maxMessage {
		msg = strings.ToValidUTF8(msg[:maxMessage], "") + "…"
	}
	return strings.TrimSpace(msg)
}

// helperWait bounds asking the credential helpers.
const helperWait = 10 * time.Second

// gitCredentialFill asks git's credential helpers (`git credential
// fill`), never a person: no terminal prompt, no askpass program. No git,
// or no helper that knows the host, answers nothing.
func gitCredentialFill(ctx context.Context, a giturl.Address) (user, password string, ok bool) {
	u, err := url.Parse(a.Shown)
	if err != nil {
		return "", "", false
	}
	ctx, cancel := context.WithTimeout(ctx, helperWait)
	defer cancel()
	var in bytes.Buffer
	in.WriteString("protocol=" + string(a.Scheme) + "\nhost=" + u.Host + "\npath=" + strings.TrimPrefix(u.Path, "/") + "\n")
	if a.User != "" {
		in.WriteString("username=" + a.User + "\n")
	}
	in.WriteString("\n")
	cmd := exec.CommandContext(ctx, "git", "credential", "fill")
	cmd.Stdin = &in
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "GIT_ASKPASS=") || strings.HasPrefix(kv, "SSH_ASKPASS=")
	}), "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.Output()
	if err != nil {
		return "", "", false
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "=")
		switch k {
		case "username":
			user = v
		case "password":
			password = v
		}
	}
	return user, password, password != ""
}
