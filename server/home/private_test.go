package home_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workrail/workrail/server/home"
)

func TestCheckPrivate(t *testing.T) {
	cases := []struct {
		mode os.FileMode
		want string // "" when accepted
	}{
		{0o700, ""},
		{0o750, ""},
		{0o755, ""},
		{0o770, "chmod 700"},
		{0o777, "chmod 700"},
		{0o702, "other users can write"},
	}
	for _, c := range cases {
		dir := filepath.Join(t.TempDir(), "home")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, c.mode); err != nil {
			t.Fatal(err)
		}
		err := home.Dir(dir).CheckPrivate()
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("mode %04o: %v; want %q", c.mode, err, c.want)
		}
	}
}

// A token others can read, or one another user planted, is refused and
// nothing is overwritten.
func TestAuthTokenMustBePrivate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "auth.token")
	h := home.Dir(dir)
	first, err := h.AuthToken()
	if err != nil || len(first) != 64 {
		t.Fatalf("first AuthToken = %q, %v", first, err)
	}
	if again, err := h.AuthToken(); err != nil || again != first {
		t.Fatalf("second AuthToken = %q, %v; want the same token", again, err)
	}
	if err := os.WriteFile(path, []byte("planted\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o644)
	if tok, err := h.AuthToken(); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("a 0644 token was accepted: %q, %v", tok, err)
	}
	os.Chmod(path, 0o600)
	if os.Getuid() == 0 {
		if err := os.Chown(path, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if tok, err := h.AuthToken(); err == nil || !strings.Contains(err.Error(), "belongs to user 65534") {
			t.Fatalf("another user's token was accepted: %q, %v", tok, err)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != "planted\n" {
		t.Fatalf("the refused token was overwritten: %q", b)
	}
}

// A token written by hand is used only if it could not be guessed: at
// least home.MinTokenLen characters of hex or base64url. A refusal says
// the minimum and how to fix it, and leaves the file alone.
func TestAuthTokenMustBeStrong(t *testing.T) {
	for _, tc := range []struct {
		name, token string
		refused     string // "" when accepted
	}{
		{"5 bytes", "abcde", "a 5-character token; a token must be at least 32 characters"},
		{"one short of the minimum", strings.Repeat("a1", 15) + "b", "a 31-character token"},
		{"a passphrase", "correct horse battery staple, twice over", "with the character ' '"},
		{"32 hex", strings.Repeat("0f", 16), ""},
		{"43 base64url", "ZmFrZS10b2tlbi1mb3ItdGVzdHMtb25seS1ub3QtcmVh", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "auth.token")
			if err := os.WriteFile(path, []byte(tc.token+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			tok, err := home.Dir(dir).AuthToken()
			if tc.refused == "" {
				if err != nil || tok != tc.token {
					t.Fatalf("AuthToken = %q, %v; want %q", tok, err, tc.token)
				}
				return
			}
			if err == nil {
				t.Fatalf("the token %q was accepted", tok)
			}
			for _, want := range []string{tc.refused, "delete " + path + " and start WorkRail again"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if b, _ := os.ReadFile(path); string(b) != tc.token+"\n" {
				t.Errorf("the refused token was overwritten: %q", b)
			}
		})
	}
}
