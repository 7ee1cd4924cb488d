package token_test

import (
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/token"
)

// FuzzParse checks that Parse never panics, fails only with token codes, and
// accepts only canonical strings: anything that parses re-mints to itself.
func FuzzParse(f *testing.F) {
	r := ring1(f)
	for _, c := range []token.Claims{
		claims(token.State), claims(token.Ack), claims(token.Checkpoint),
		{Kind: token.Ack, Key: 1, Session: 1e6, Run: 100, Node: 1e5, Attempt: 1000},
		{Kind: token.State, Key: 1, Session: 1<<64 - 1, Run: 1<<32 - 1, Node: 1<<32 - 1},
	} {
		s := mint(f, r, c)
		f.Add(s)
		f.Add(s[:len(s)-1])
		f.Add(s + "A")
	}
	for _, s := range []string{"", "st.v1.", "ack.v1.", "chk.v1.", "garbage", "st.v1." + strings.Repeat("A", 28),
		forge("st.v1.", []byte{1, 1, 0x8c, 0x00, 3, 40}, secret1)} {
		f.Add(s)
	}
	tokenCodes := map[engine.Code]bool{
		engine.CodeTokenInvalidFormat: true, engine.CodeTokenBadSignature: true,
		engine.CodeTokenUnknownKey: true, engine.CodeTokenWrongKind: true,
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, want := range []token.Kind{token.State, token.Ack, token.Checkpoint} {
			c, err := r.Parse(s, want)
			if err != nil {
				if !tokenCodes[code(err)] {
					t.Fatalf("Parse(%q, %s) = %v; want a token error code", s, want, err)
				}
				continue
			}
			if c.Kind != want {
				t.Fatalf("Parse(%q, %s) returned kind %s", s, want, c.Kind)
			}
			again, err := r.Mint(c)
			if err != nil || again != s {
				t.Fatalf("Parse(%q) = %+v re-mints to %q, %v", s, c, again, err)
			}
		}
	})
}

// FuzzForgedPayload signs arbitrary payloads with the real key, so the
// fuzzer explores the decoder past the HMAC: whatever verifies must be the
// canonical encoding of its claims.
func FuzzForgedPayload(f *testing.F) {
	r := ring1(f)
	f.Add(uint8(0), payload(1, 1, 12, 3, 40))
	f.Add(uint8(1), payload(2, 1, 1e6, 100, 1e5, 1000))
	f.Add(uint8(2), payload(3, 1, 1<<64-1, 1<<32-1, 1<<32-1, 1<<32-1))
	f.Add(uint8(0), []byte{1, 1, 0x8c, 0x00, 3, 40})
	f.Fuzz(func(t *testing.T, k uint8, p []byte) {
		want := token.Kind(k%3 + 1)
		s := forge(want.Prefix(), p, secret1)
		c, err := r.Parse(s, want)
		if err != nil {
			if c := code(err); c != engine.CodeTokenInvalidFormat && c != engine.CodeTokenUnknownKey {
				t.Fatalf("Parse(forged %x) = %v; a validly signed token can only fail on format or key", p, err)
			}
			return
		}
		if again, err := r.Mint(c); err != nil || again != s {
			t.Fatalf("forged %x parsed as %+v, which re-mints to %q, %v", p, c, again, err)
		}
	})
}
