// Package giturl reads the address of a workflow repository in the forms
// git accepts — https://, ssh:// and scp-like user@host:path, git://,
// file:// (and http:// to this machine only) — and splits off the
// credentials an address may carry. Only the address without them is
// ever shown, logged or recorded; the credentials are handed to the
// fetch alone. It imports nothing of the project.
package giturl

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"
)

// Scheme is the closed set of ways a repository is reached.
type Scheme string

// The schemes.
const (
	HTTPS Scheme = "https"
	HTTP  Scheme = "http" // to this machine only: plain http would send a token in the clear
	SSH   Scheme = "ssh"  // ssh:// and scp-like user@host:path
	Git   Scheme = "git"
	File  Scheme = "file"
)

// Address is a repository's address read apart.
type Address struct {
	Scheme Scheme
	// Host is the host name without its port ("" for file://): what a
	// per-host token is looked up by.
	Host string
	// Shown is the address without credentials: what every page, log
	// line, error and record names, and what the fetch is pointed at.
	Shown string
	// User and Password are the credentials the address carried, if any.
	// Secret: only the fetch reads them.
	User, Password string
}

// maxLen bounds an address: no real one is near it.
const maxLen = 2048

// scpLike is git's user@host:path form (the user is required here, so
// that a Windows-looking C:\path or a bare word is not read as a host).
var scpLike = regexp.MustCompile(`^([A-Za-z0-9._~-]+)@([A-Za-z0-9.-]+):([^/].*|/.+)$`)

// Parse reads s. Its errors never quote s: it may hold a token.
func Parse(s string) (Address, error) {
	if s == "" || len(s) > maxLen {
		return Address{}, fmt.Errorf("a repository address is 1 to %d characters", maxLen)
	}
	if strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return Address{}, errors.New("a repository address holds no spaces or control characters")
	}
	if m := scpLike.FindStringSubmatch(s); m != nil && !strings.Contains(s, "://") {
		return Address{Scheme: SSH, Host: m[2], Shown: s}, nil
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" {
		return Address{}, errors.New(`a repository address starts with https://, ssh://, git:// or file://, or is scp-like (git@host:org/repo.git)`)
	}
	a := Address{Scheme: Scheme(strings.ToLower(u.Scheme)), Host: strings.ToLower(u.Hostname())}
	if u.User != nil {
		a.User = u.User.Username()
		a.Password, _ = u.User.Password()
	}
	if u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return Address{}, errors.New("a repository address has no query (?) or fragment (#)")
	}
	switch a.Scheme {
	case HTTPS, Git:
		if a.Host == "" || u.Path == "" || u.Path == "/" {
			return Address{}, fmt.Errorf("a %s:// address names a host and a repository path", a.Scheme)
		}
	case HTTP:
		if !loopback(a.Host) {
			return Address{}, errors.New("plain http:// sends the repository and any token unencrypted: use https://, or ssh (http:// is taken only for this machine: localhost, 127.0.0.1, ::1)")
		}
	case SSH:
		if a.Host == "" || u.Path == "" {
			return Address{}, errors.New("an ssh:// address names a host and a repository path")
		}
	case File:
		if (a.Host != "" && a.Host != "localhost") || !strings.HasPrefix(u.Path, "/") {
			return Address{}, errors.New("a file:// address names an absolute folder on this machine: file:///path/to/repo")
		}
		a.Host = ""
	default:
		return Address{}, fmt.Errorf("%q is not a scheme git sources are read over: use https://, ssh://, git:// or file://", a.Scheme)
	}
	if a.Scheme == Git && u.User != nil {
		return Address{}, errors.New("a git:// address carries no credentials (the protocol has none)")
	}
	if a.Scheme == File && u.User != nil {
		return Address{}, errors.New("a file:// address carries no credentials")
	}
	shown := *u
	shown.User = nil
	if a.Scheme == SSH && a.User != "" {
		shown.User = url.User(a.User) // an ssh user name is no secret; its password is
	}
	a.Shown = shown.String()
	return a, nil
}

// loopback reports whether host names this machine.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Secrets are the credentials the address carries, to be stripped from
// anything written: the password, or over http(s) a user without one (a
// token is often written so: https://TOKEN@host/...).
func (a Address) Secrets() []string {
	switch {
	case a.Password != "":
		return []string{a.Password}
	case a.User != "" && (a.Scheme == HTTPS || a.Scheme == HTTP):
		return []string{a.User}
	}
	return nil
}

// Shown is s without its credentials, or, when s cannot be read,
// everything before its last "@" (where credentials would end) left out.
func Shown(s string) string {
	if a, err := Parse(s); err == nil {
		return a.Shown
	}
	scheme, rest, ok := strings.Cut(s, "://")
	if i := strings.LastIndexByte(rest, '@'); ok && i >= 0 {
		return scheme + "://" + rest[i+1:]
	}
	if i := strings.LastIndexByte(s, '@'); !ok && i >= 0 {
		return s[i+1:]
	}
	return s
}

// TokenEnv is the environment variable holding the token for host:
// WORKRAIL_GIT_TOKEN_ and the host in capitals, every character but a
// letter or digit an underscore (git.example.com:
// WORKRAIL_GIT_TOKEN_GIT_EXAMPLE_COM).
func TokenEnv(host string) string {
	var b strings.Builder
	b.WriteString("WORKRAIL_GIT_TOKEN_")
	for _, r := range strings.ToUpper(host) {
		if (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}
