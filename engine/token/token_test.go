package token_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/token"
)

var (
	secret1 = bytes.Repeat([]byte{0x11}, 32)
	secret2 = bytes.Repeat([]byte{0x22}, 32)
)

func ring(t testing.TB, active token.KeyID, keys ...token.Key) *token.Ring {
	t.Helper()
	r, err := token.NewRing(keys, active)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func ring1(t testing.TB) *token.Ring { return ring(t, 1, token.Key{ID: 1, Secret: secret1}) }

func claims(k token.Kind) token.Claims {
	c := token.Claims{Kind: k, Key: 1, Session: 12, Run: 3, Node: 40, Attempt: 2}
	if k == token.State {
		c.Attempt = 0
	}
	return c
}

func mint(t testing.TB, r *token.Ring, c token.Claims) string {
	t.Helper()
	s, err := r.Mint(c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// forge builds a token from raw payload bytes with a valid HMAC, written
// independently of the package so it also pins the wire format.
func forge(prefix string, payload, secret []byte) string {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte(prefix))
	h.Write(payload)
	raw := append(append([]byte(nil), payload...), h.Sum(nil)[:16]...)
	return prefix + base64.RawURLEncoding.EncodeToString(raw)
}

func payload(kind byte, vals ...uint64) []byte {
	b := []byte{kind}
	for _, v := range vals {
		b = binary.AppendUvarint(b, v)
	}
	return b
}

// rawOf and withRaw edit a token below the base64 layer.
func rawOf(t testing.TB, s string) (string, []byte) {
	t.Helper()
	i := strings.Index(s, ".v1.") + len(".v1.")
	raw, err := base64.RawURLEncoding.DecodeString(s[i:])
	if err != nil {
		t.Fatal(err)
	}
	return s[:i], raw
}

func withRaw(prefix string, raw []byte) string {
	return prefix + base64.RawURLEncoding.EncodeToString(raw)
}

func code(err error) engine.Code {
	var e *engine.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return "<not *engine.Error>"
}

func TestKind(t *testing.T) {
	tests := []struct {
		k            token.Kind
		prefix, name string
	}{
		{token.State, "st.v1.", "st"},
		{token.Ack, "ack.v1.", "ack"},
		{token.Checkpoint, "chk.v1.", "chk"},
		{0, "", "Kind(0)"},
		{9, "", "Kind(9)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.k.Prefix(); got != tt.prefix {
				t.Errorf("Prefix() = %q, want %q", got, tt.prefix)
			}
			if got := tt.k.String(); got != tt.name {
				t.Errorf("String() = %q, want %q", got, tt.name)
			}
		})
	}
}

func TestRoundTrip(t *testing.T) {
	r := ring1(t)
	tests := []token.Claims{
		claims(token.State),
		claims(token.Ack),
		claims(token.Checkpoint),
		{Kind: token.Ack, Key: 1, Session: 1, Run: 1, Node: 1, Attempt: 0},
		{Kind: token.Checkpoint, Key: 1, Session: 1<<64 - 1, Run: 1<<32 - 1, Node: 1<<32 - 1, Attempt: 1<<32 - 1},
		{Kind: token.State, Key: 1, Session: 1<<64 - 1, Run: 1<<32 - 1, Node: 1<<32 - 1},
	}
	for _, c := range tests {
		t.Run(c.Kind.String(), func(t *testing.T) {
			s := mint(t, r, c)
			if !strings.HasPrefix(s, c.Kind.Prefix()) {
				t.Fatalf("token %q lacks prefix %q", s, c.Kind.Prefix())
			}
			got, err := r.Parse(s, c.Kind)
			if err != nil {
				t.Fatalf("Parse(%q): %v", s, err)
			}
			if got != c {
				t.Fatalf("Parse(Mint(%+v)) = %+v", c, got)
			}
		})
	}
}

// TestWireFormat pins the documented encoding against an independent
// implementation.
func TestWireFormat(t *testing.T) {
	r := ring1(t)
	tests := []struct {
		c    token.Claims
		want string
	}{
		{claims(token.State), forge("st.v1.", payload(1, 1, 12, 3, 40), secret1)},
		{claims(token.Ack), forge("ack.v1.", payload(2, 1, 12, 3, 40, 2), secret1)},
		{claims(token.Checkpoint), forge("chk.v1.", payload(3, 1, 12, 3, 40, 2), secret1)},
	}
	for _, tt := range tests {
		t.Run(tt.c.Kind.String(), func(t *testing.T) {
			if got := mint(t, r, tt.c); got != tt.want {
				t.Fatalf("Mint = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDeterministic(t *testing.T) {
	r1, r2 := ring1(t), ring1(t)
	for _, k := range []token.Kind{token.State, token.Ack, token.Checkpoint} {
		t.Run(k.String(), func(t *testing.T) {
			a, b, c := mint(t, r1, claims(k)), mint(t, r1, claims(k)), mint(t, r2, claims(k))
			if a != b || a != c {
				t.Fatalf("same claims minted %q, %q, %q", a, b, c)
			}
			other := claims(k)
			other.Node++
			if mint(t, r1, other) == a {
				t.Fatal("different claims minted the same token")
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	r := ring1(t)
	st, ack := mint(t, r, claims(token.State)), mint(t, r, claims(token.Ack))
	stPrefix, stRaw := rawOf(t, st)
	ackBody := strings.TrimPrefix(ack, "ack.v1.")
	other := ring(t, 2, token.Key{ID: 2, Secret: secret2})

	tamper := func(raw []byte, i int) []byte {
		b := bytes.Clone(raw)
		b[(i+len(b))%len(b)] ^= 0x01
		return b
	}
	// The payload of claims with another node, under st's genuine tag.
	changedPayload := append(payload(1, 1, 12, 3, 41), stRaw[len(stRaw)-16:]...)

	tests := []struct {
		name string
		s    string
		want token.Kind
		code engine.Code
		// reason, for format errors, is a substring of details.reason.
		reason string
	}{
		{"empty", "", token.State, engine.CodeTokenInvalidFormat, "empty"},
		{"garbage", "hello world", token.State, engine.CodeTokenInvalidFormat, "unknown prefix"},
		{"prefix only", "st.v1.", token.State, engine.CodeTokenInvalidFormat, "too short"},
		{"unknown version", strings.Replace(st, "st.v1.", "st.v2.", 1), token.State, engine.CodeTokenInvalidFormat, "unknown prefix"},
		{"upper-case prefix", strings.Replace(st, "st.v1.", "ST.v1.", 1), token.State, engine.CodeTokenInvalidFormat, "unknown prefix"},
		{"bad base64 char", st[:len(st)-3] + "!" + st[len(st)-2:], token.State, engine.CodeTokenInvalidFormat, "base64"},
		{"padded base64", st + "==", token.State, engine.CodeTokenInvalidFormat, "base64"},
		{"std base64 alphabet", "st.v1." + strings.Repeat("+", 28), token.State, engine.CodeTokenInvalidFormat, "base64"},
		{"embedded newline", st[:10] + "\n" + st[10:], token.State, engine.CodeTokenInvalidFormat, "base64"},
		{"non-zero trailing bits", ack[:len(ack)-1] + string(nextB64(ack[len(ack)-1])), token.Ack, engine.CodeTokenInvalidFormat, "base64"},
		{"leading space", " " + st, token.State, engine.CodeTokenInvalidFormat, "unknown prefix"},
		{"trailing space", st + " ", token.State, engine.CodeTokenInvalidFormat, "base64"},
		{"too long", st + strings.Repeat("A", 64), token.State, engine.CodeTokenInvalidFormat, "too long"},
		{"truncated by one byte", withRaw(stPrefix, stRaw[:len(stRaw)-1]), token.State, engine.CodeTokenInvalidFormat, "too short"},
		{"one byte appended", withRaw(stPrefix, append(bytes.Clone(stRaw), 0)), token.State, engine.CodeTokenInvalidFormat, "trailing bytes"},
		{"swapped kind prefix st<-ack", "st.v1." + ackBody, token.State, engine.CodeTokenInvalidFormat, "kind byte"},
		{"swapped kind prefix chk<-ack", "chk.v1." + ackBody, token.Checkpoint, engine.CodeTokenInvalidFormat, "kind byte"},
		{"kind byte/prefix mismatch, valid hmac", forge("chk.v1.", payload(2, 1, 12, 3, 40, 2), secret1), token.Checkpoint, engine.CodeTokenInvalidFormat, "kind byte"},
		{"unknown kind byte, valid hmac", forge("st.v1.", payload(7, 1, 12, 3, 40), secret1), token.State, engine.CodeTokenInvalidFormat, "kind byte"},
		{"state with attempt, valid hmac", forge("st.v1.", payload(1, 1, 12, 3, 40, 0), secret1), token.State, engine.CodeTokenInvalidFormat, "trailing bytes"},
		{"ack without attempt, valid hmac", forge("ack.v1.", payload(2, 1, 12, 3, 40), secret1), token.Ack, engine.CodeTokenInvalidFormat, "attempt is truncated"},
		{"trailing bytes, valid hmac", forge("st.v1.", append(payload(1, 1, 12, 3, 40), 0), secret1), token.State, engine.CodeTokenInvalidFormat, "trailing bytes"},
		{"non-minimal varint, valid hmac", forge("st.v1.", []byte{1, 1, 0x8c, 0x00, 3, 40}, secret1), token.State, engine.CodeTokenInvalidFormat, "session is not minimally encoded"},
		{"zero session, valid hmac", forge("st.v1.", payload(1, 1, 0, 3, 40), secret1), token.State, engine.CodeTokenInvalidFormat, "session is zero"},
		{"zero run, valid hmac", forge("st.v1.", payload(1, 1, 12, 0, 40), secret1), token.State, engine.CodeTokenInvalidFormat, "run is zero"},
		{"zero node, valid hmac", forge("st.v1.", payload(1, 1, 12, 3, 0), secret1), token.State, engine.CodeTokenInvalidFormat, "node is zero"},
		{"zero key id, valid hmac", forge("st.v1.", payload(1, 0, 12, 3, 40), secret1), token.State, engine.CodeTokenInvalidFormat, "key id is zero"},
		{"run over 32 bits, valid hmac", forge("st.v1.", payload(1, 1, 12, 1<<32, 40), secret1), token.State, engine.CodeTokenInvalidFormat, "run is out of range"},
		{"varint over 64 bits", withRaw("st.v1.", append([]byte{1, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 3, 40}, make([]byte, 16)...)), token.State, engine.CodeTokenInvalidFormat, "session is truncated or overflows"},
		{"unknown key", mint(t, other, token.Claims{Kind: token.State, Key: 2, Session: 12, Run: 3, Node: 40}), token.State, engine.CodeTokenUnknownKey, ""},
		{"tampered payload byte", withRaw(stPrefix, changedPayload), token.State, engine.CodeTokenBadSignature, ""},
		{"tampered first tag byte", withRaw(stPrefix, tamper(stRaw, -16)), token.State, engine.CodeTokenBadSignature, ""},
		{"tampered last tag byte", withRaw(stPrefix, tamper(stRaw, -1)), token.State, engine.CodeTokenBadSignature, ""},
		{"signed with another secret", forge("st.v1.", payload(1, 1, 12, 3, 40), secret2), token.State, engine.CodeTokenBadSignature, ""},
		{"ack as state", ack, token.State, engine.CodeTokenWrongKind, ""},
		{"state as ack", st, token.Ack, engine.CodeTokenWrongKind, ""},
		{"checkpoint as ack", mint(t, r, claims(token.Checkpoint)), token.Ack, engine.CodeTokenWrongKind, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.Parse(tt.s, tt.want)
			if got := code(err); got != tt.code {
				t.Fatalf("Parse(%q) = %v; want code %s", tt.s, err, tt.code)
			}
			var e *engine.Error
			errors.As(err, &e)
			if reason, _ := e.Details["reason"].(string); !strings.Contains(reason, tt.reason) {
				t.Errorf("reason = %q, want it to contain %q", reason, tt.reason)
			}
			if field := map[token.Kind]string{token.State: "stateToken", token.Ack: "ackToken", token.Checkpoint: "checkpointToken"}[tt.want]; !strings.HasPrefix(e.Message, "the "+field+" ") {
				t.Errorf("message does not start by naming the %s field: %q", field, e.Message)
			}
		})
	}
}

// nextB64 sets the lowest bit of a base64url character. On the last
// character of a 22-byte raw token (ack) that bit is padding and must be 0.
func nextB64(c byte) byte {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	return alphabet[strings.IndexByte(alphabet, c)|1]
}

func TestWrongKindDetails(t *testing.T) {
	r := ring1(t)
	_, err := r.Parse(mint(t, r, claims(token.Ack)), token.State)
	var e *engine.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v", err)
	}
	want := map[string]any{"expected": "st", "got": "ack"}
	if !reflect.DeepEqual(e.Details, want) {
		t.Fatalf("details = %v, want %v", e.Details, want)
	}
	if e.Retry.Kind != engine.NotRetryable {
		t.Errorf("retry = %v", e.Retry)
	}
}

// TestTruncationAlwaysFormat checks the self-delimiting design: every
// truncation of a valid token is a format error, never a crash or a pass.
func TestTruncationAlwaysFormat(t *testing.T) {
	r := ring1(t)
	for _, k := range []token.Kind{token.State, token.Ack, token.Checkpoint} {
		s := mint(t, r, claims(k))
		for i := 0; i < len(s); i++ {
			if _, err := r.Parse(s[:i], k); code(err) != engine.CodeTokenInvalidFormat {
				t.Errorf("Parse(%q) = %v; want %s", s[:i], err, engine.CodeTokenInvalidFormat)
			}
		}
	}
}

func TestRotation(t *testing.T) {
	k1, k2 := token.Key{ID: 1, Secret: secret1}, token.Key{ID: 2, Secret: secret2}
	before := ring(t, 1, k1)
	old := mint(t, before, token.Claims{Kind: token.State, Key: before.Active(), Session: 5, Run: 1, Node: 9})

	after := ring(t, 2, k1, k2)
	if after.Active() != 2 {
		t.Fatalf("Active() = %d, want 2", after.Active())
	}
	c, err := after.Parse(old, token.State)
	if err != nil || c.Key != 1 {
		t.Fatalf("old token after rotation: %+v, %v", c, err)
	}
	if again := mint(t, after, c); again != old {
		t.Fatalf("re-mint with recorded key = %q, want %q", again, old)
	}
	c.Key = after.Active()
	fresh := mint(t, after, c)
	if fresh == old {
		t.Fatal("new key minted the old token")
	}
	if c, err := after.Parse(fresh, token.State); err != nil || c.Key != 2 {
		t.Fatalf("new token: %+v, %v", c, err)
	}
	if _, err := before.Parse(fresh, token.State); code(err) != engine.CodeTokenUnknownKey {
		t.Fatalf("old ring on new token: %v", err)
	}
}

func TestNewRingErrors(t *testing.T) {
	k1 := token.Key{ID: 1, Secret: secret1}
	tests := []struct {
		name   string
		keys   []token.Key
		active token.KeyID
	}{
		{"no keys", nil, 1},
		{"active missing", []token.Key{k1}, 2},
		{"duplicate id", []token.Key{k1, {ID: 1, Secret: secret2}}, 1},
		{"short secret", []token.Key{{ID: 1, Secret: secret1[:31]}}, 1},
		{"zero id", []token.Key{{ID: 0, Secret: secret1}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := token.NewRing(tt.keys, tt.active); err == nil {
				t.Fatal("NewRing succeeded")
			}
		})
	}
}

func TestRingCopiesSecret(t *testing.T) {
	s := bytes.Clone(secret1)
	r := ring(t, 1, token.Key{ID: 1, Secret: s})
	tok := mint(t, r, claims(token.State))
	s[0] ^= 0xff
	if _, err := r.Parse(tok, token.State); err != nil {
		t.Fatalf("mutating the caller's secret changed the ring: %v", err)
	}
}

func TestMintErrors(t *testing.T) {
	r := ring1(t)
	tests := []struct {
		name string
		c    token.Claims
		code engine.Code // "" for a plain programmer error
	}{
		{"zero kind", token.Claims{Key: 1, Session: 1, Run: 1, Node: 1}, ""},
		{"zero session", token.Claims{Kind: token.State, Key: 1, Run: 1, Node: 1}, ""},
		{"zero run", token.Claims{Kind: token.Ack, Key: 1, Session: 1, Node: 1}, ""},
		{"zero node", token.Claims{Kind: token.Ack, Key: 1, Session: 1, Run: 1}, ""},
		{"state with attempt", token.Claims{Kind: token.State, Key: 1, Session: 1, Run: 1, Node: 1, Attempt: 1}, ""},
		{"unknown key", token.Claims{Kind: token.State, Key: 7, Session: 1, Run: 1, Node: 1}, engine.CodeTokenUnknownKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := r.Mint(tt.c)
			if err == nil {
				t.Fatalf("Mint = %q, want error", s)
			}
			var e *engine.Error
			if isEngine := errors.As(err, &e); isEngine != (tt.code != "") || (isEngine && e.Code != tt.code) {
				t.Fatalf("Mint error = %v; want code %q", err, tt.code)
			}
		})
	}
}

func TestParseInvalidWant(t *testing.T) {
	r := ring1(t)
	if _, err := r.Parse(mint(t, r, claims(token.State)), 0); err == nil {
		t.Fatal("Parse with kind 0 succeeded")
	}
}

func TestCheckScope(t *testing.T) {
	st := claims(token.State)
	tests := []struct {
		name     string
		edit     func(*token.Claims)
		mismatch []string
	}{
		{"match", func(*token.Claims) {}, nil},
		{"other attempt and key still match", func(c *token.Claims) { c.Attempt = 9; c.Key = 2 }, nil},
		{"session", func(c *token.Claims) { c.Session++ }, []string{"session"}},
		{"run", func(c *token.Claims) { c.Run++ }, []string{"run"}},
		{"node", func(c *token.Claims) { c.Node++ }, []string{"node"}},
		{"run and node", func(c *token.Claims) { c.Run++; c.Node++ }, []string{"run", "node"}},
		{"all", func(c *token.Claims) { c.Session++; c.Run++; c.Node++ }, []string{"session", "run", "node"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ack := claims(token.Ack)
			tt.edit(&ack)
			err := token.CheckScope(st, ack)
			if tt.mismatch == nil {
				if err != nil {
					t.Fatalf("CheckScope = %v", err)
				}
				return
			}
			var e *engine.Error
			if !errors.As(err, &e) || e.Code != engine.CodeTokenScopeMismatch {
				t.Fatalf("CheckScope = %v", err)
			}
			if got := e.Details["mismatch"]; !reflect.DeepEqual(got, tt.mismatch) {
				t.Errorf("mismatch = %v, want %v", got, tt.mismatch)
			}
			if !strings.Contains(e.Message, "ackToken that came with that same stateToken") {
				t.Errorf("message = %q", e.Message)
			}
		})
	}
}

func TestLength(t *testing.T) {
	r := ring1(t)
	const limit = 64
	for _, k := range []token.Kind{token.State, token.Ack, token.Checkpoint} {
		c := token.Claims{Kind: k, Key: 1, Session: 1e6, Run: 100, Node: 1e5, Attempt: 1000}
		if k == token.State {
			c.Attempt = 0
		}
		s := mint(t, r, c)
		t.Logf("%-4s %d chars: %s", k, len(s), s)
		if len(s) > limit {
			t.Errorf("%s token is %d chars; want ≤ %d", k, len(s), limit)
		}
	}
}
