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
// least home.MinTokenLen characters of hex or base64url, with the variety
// of a random one. A refusal says what is wrong and how to make a good
// one, and leaves the file alone.
func TestAuthTokenMustBeStrong(t *testing.T) {
	for _, tc := range []struct {
		name, token string
		refused     string // "" when accepted
	}{
		{"5 bytes", "abcde", "a 5-character token; a token must be at least 32 characters"},
		{"one short of the minimum", strings.Repeat("a1", 15) + "b", "a 31-character token"},
		{"a passphrase", "correct horse battery staple, twice over", "with the character ' '"},
		{"32 a", strings.Repeat("a", 32), "carry 0.0 bits each, under 2.5"},
		{"five letters", strings.Repeat("abcde", 6) + "ab", "carry 2.3 bits each"},
		{"uneven", strings.Repeat("a", 24) + "0123456b", "carry 1.6 bits each"},
		{"hex digits twice", "0123456789abcdef0123456789abcdef", "it repeats its first 16 characters"},
		{"a word repeated", "password1234password1234password", "it repeats its first 12 characters"},
		{"a run", "abcdefghijklmnopqrstuvwxyzABCDEF", "30 of its 31 neighbouring characters are one apart"},
		{"a run down", "zyxwvutsrqponmlkjihgfedcba987654", "are one apart"},
		{"32 hex", "7c1e9a40d2f85b36e0a47f19c3d6b28e", ""},
		{"64 hex", "9f2c4e81a7d03b56c8e1f4a92d07b6e3580c1fa4e9d27b36a1c5f08e4d9b2a71", ""},
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
			for _, want := range []string{tc.refused, "delete " + path + " and start WorkRail again", "openssl rand -hex 32 > " + path} {
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
