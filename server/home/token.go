package home

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"math"
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
// shorter than MinTokenLen, with characters outside hex and base64url (a
// phrase, a password), or with too little variety to be random
// (guessable).
func checkToken(t, path string) error {
	fix := fmt.Sprintf("delete %s and start WorkRail again: the daemon makes a new random one (HTTP MCP clients then need the new token); "+
		"or write one of your own with `openssl rand -hex 32 > %s`", path, path)
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
	if why := guessable(t); why != "" {
		return fmt.Errorf("home: %s holds a token that could be guessed: %s; a token must be random: %s", path, why, fix)
	}
	return nil
}

// minBitsPerChar is the least entropy a token's characters may have, by
// their own counts: a random token of 32 hex characters (4 bits each at
// most) has more than 2.75 all but once in a million, and none of 20
// million drawn had less than 2.5; five letters in turn have 2.32.
const minBitsPerChar = 2.5

// guessable says why t, of hex or base64url characters, is not random:
// too few different characters, or too uneven a use of them (Shannon's
// entropy of its characters under minBitsPerChar: "aaaa…", "abab…"); a
// shorter string repeated ("0123456789abcdef" twice); or a run (more than
// three quarters of neighbours one apart: "abcd…", "9876…"). Empty when
// none applies. The daemon's own tokens (64 random hex characters) never
// fail it, nor, but with odds under one in a million, one of 32.
func guessable(t string) string {
	var counts [256]int
	for i := range len(t) {
		counts[t[i]]++
	}
	bits, n := 0.0, float64(len(t))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			bits -= p * math.Log2(p)
		}
	}
	if bits < minBitsPerChar {
		return fmt.Sprintf("its characters carry %.1f bits each, under %.1f", bits, minBitsPerChar)
	}
	for p := 1; p <= len(t)/2; p++ {
		if t[p:] == t[:len(t)-p] {
			return fmt.Sprintf("it repeats its first %d characters", p)
		}
	}
	steps := 0
	for i := 1; i < len(t); i++ {
		if d := int(t[i]) - int(t[i-1]); d == 1 || d == -1 {
			steps++
		}
	}
	if 4*steps > 3*(len(t)-1) {
		return fmt.Sprintf("%d of its %d neighbouring characters are one apart (a run such as abcd or 4321)", steps, len(t)-1)
	}
	return ""
}
