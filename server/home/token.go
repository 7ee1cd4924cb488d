package home

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"
)

// AuthToken is the bearer token HTTP MCP clients send, created on first
// use in auth.token (0600). An existing token is used only if it is
// private to this user: one others could read or plant is refused.
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
