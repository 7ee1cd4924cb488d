package giturl

import (
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in      string
		scheme  Scheme
		host    string
		shown   string
		secrets []string
	}{
		{"https://github.com/acme/flows.git", HTTPS, "github.com", "https://github.com/acme/flows.git", nil},
		{"https://ghp_abc123@github.com/acme/flows.git", HTTPS, "github.com", "https://github.com/acme/flows.git", []string{"ghp_abc123"}},
		{"https://x-access-token:s3cr%2Ft@GitHub.com:8443/acme/flows", HTTPS, "github.com", "https://GitHub.com:8443/acme/flows", []string{"s3cr/t"}},
		{"http://127.0.0.1:9418/flows.git", HTTP, "127.0.0.1", "http://127.0.0.1:9418/flows.git", nil},
		{"http://bob:pw@localhost/flows.git", HTTP, "localhost", "http://localhost/flows.git", []string{"pw"}},
		{"ssh://git@git.example.com:2222/acme/flows.git", SSH, "git.example.com", "ssh://git@git.example.com:2222/acme/flows.git", nil},
		{"ssh://git:hunter2@git.example.com/acme/flows.git", SSH, "git.example.com", "ssh://git@git.example.com/acme/flows.git", []string{"hunter2"}},
		{"git@github.com:acme/flows.git", SSH, "github.com", "git@github.com:acme/flows.git", nil},
		{"git://git.example.com/flows.git", Git, "git.example.com", "git://git.example.com/flows.git", nil},
		{"file:///srv/git/flows.git", File, "", "file:///srv/git/flows.git", nil},
	} {
		t.Run(tc.in, func(t *testing.T) {
			a, err := Parse(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if a.Scheme != tc.scheme || a.Host != tc.host || a.Shown != tc.shown || !slices.Equal(a.Secrets(), tc.secrets) {
				t.Fatalf("got %+v, secrets %q", a, a.Secrets())
			}
			for _, s := range a.Secrets() {
				if strings.Contains(a.Shown, s) {
					t.Fatalf("shown %q holds the secret %q", a.Shown, s)
				}
			}
		})
	}
}

// Addresses git sources are not read from are refused, and the refusal
// never quotes the address: it may hold a token.
func TestParseRefuses(t *testing.T) {
	for _, in := range []string{
		"",
		"github.com/acme/flows",
		"http://tok3n@example.com/flows.git", // plain http off this machine
		"ftp://example.com/flows.git",
		"https://example.com",
		"https://tok3n@example.com/flows.git?x=1",
		"git://tok3n@example.com/flows.git",
		"file://tok3n@localhost/srv/flows",
		"file://server/srv/flows",
		"https://example.com/a b",
		"C:\\repos\\flows",
	} {
		if _, err := Parse(in); err == nil {
			t.Errorf("%q: no error", in)
		} else if strings.Contains(err.Error(), "tok3n") {
			t.Errorf("%q: the error quotes the token: %v", in, err)
		}
	}
}

func TestShown(t *testing.T) {
	for in, want := range map[string]string{
		"https://tok3n@example.com/flows.git":  "https://example.com/flows.git",
		"ftp://user:tok3n@example.com/x":       "ftp://example.com/x",
		"weird:tok3n@host?x":                   "host?x",
		"https://example.com/flows.git":        "https://example.com/flows.git",
		"git@github.com:acme/flows.git":        "git@github.com:acme/flows.git",
		"http://u:p@10.0.0.1/not-loopback.git": "http://10.0.0.1/not-loopback.git",
	} {
		if got := Shown(in); got != want {
			t.Errorf("Shown(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTokenEnv(t *testing.T) {
	for host, want := range map[string]string{
		"github.com":        "WORKRAIL_GIT_TOKEN_GITHUB_COM",
		"git.example-co.io": "WORKRAIL_GIT_TOKEN_GIT_EXAMPLE_CO_IO",
		"127.0.0.1":         "WORKRAIL_GIT_TOKEN_127_0_0_1",
	} {
		if got := TokenEnv(host); got != want {
			t.Errorf("TokenEnv(%q) = %q, want %q", host, got, want)
		}
	}
}
