package home

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"
)

// MinTokenLen is the shortest auth.token accepted: 32 hex or base64url
// characters carry at least 128 bits when random. The daemon makes 64.
const MinTokenLen = 32

// AuthToken is the bearer token HTTP MCP clients and scripts send, and
// the key the Console's CSRF token derives from, created on first use in
// auth.token (0600). An existing token is used
// only if it is private to this user (one others could read or plant is
// refused) and long enough not to be guessed.
func (h Dir) AuthToken() (string, error) {
	path := h.Path("auth.token")
	if f, err := os.Open(path); err == nil {
		defer f.Close()
		if err := checkPrivate(f, path); err != nil {
			return "", err
		}
		b, err := io.ReadAll(io.LimitReader(f, 4096))
		if err != nil {
			return "", fmt.Errorf("home: read %s: %w", path, err)
		}
		if t := strings.TrimSpace(string(b)); t != "" {
			if err := checkToken(t, path); err != nil {
				return "", err
			}
			return t, nil
		}
	}
	buf := make([]byte, 32)
	if _, err := rand.Read(buf); err != nil {
		return "", err
	}
	t := hex.EncodeToString(buf)
	return t, WriteFileAtomic(path, []byte(t+"\n"), 0o600)
}

// checkToken refuses a token written by hand that could be guessed: one
// shorter than MinTokenLen, or with characters outside hex and base64url
// (a phrase, a password).
func checkToken(t, path string) error {
	fix := fmt.Sprintf("delete %s and start WorkRail again: the daemon makes a new random one (HTTP MCP clients then need the new token)", path)
	if len(t) < MinTokenLen {
		return fmt.Errorf("home: %s holds a %d-character token; a token must be at least %d characters of hex or base64url (A-Z, a-z, 0-9, '-', '_') so it cannot be guessed: %s",
			path, len(t), MinTokenLen, fix)
	}
	for _, c := range t {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return fmt.Errorf("home: %s holds a token with the character %q; a token must be hex or base64url (A-Z, a-z, 0-9, '-', '_'), at least %d characters: %s",
				path, c, MinTokenLen, fix)
		}
	}
	return nil
}
