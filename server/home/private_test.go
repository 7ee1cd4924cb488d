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
