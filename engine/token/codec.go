package token

import (
	"crypto/hmac"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/workrail/workrail/engine"
)

// Wire sizes. Payloads are self-delimiting (fixed field order, uvarints),
// and the tag has a fixed length, so the whole token length follows from the
// claims and truncation or extension always shows up as a format error.
const (
	tagLen     = 16
	minPayload = 1 + 4                                               // kind + four 1-byte uvarints
	maxPayload = 1 + 4*binary.MaxVarintLen32 + binary.MaxVarintLen64 // kind, key, run, node, attempt; session
	minRaw     = minPayload + tagLen
	maxRaw     = maxPayload + tagLen
	minBody    = (minRaw*8 + 5) / 6 // unpadded base64 lengths
	maxBody    = (maxRaw*8 + 5) / 6
	maxPrefix  = len("ack.v1.")
)

// b64 is strict so that non-zero trailing bits are rejected: each byte
// string then has exactly one encoding (newlines are handled in decode).
var b64 = base64.RawURLEncoding.Strict()

// Mint signs c with key c.Key, which must be in the ring: r.Active() for new
// tokens, or the key id recorded with an old token to re-mint it. The same
// claims and key always give the same string. Invalid claims are a
// programmer error (plain error); a key missing from the ring is
// TOKEN_UNKNOWN_KEY, since it follows from keys.json being replaced.
func (r *Ring) Mint(c Claims) (string, error) {
	if err := c.validate(); err != nil {
		return "", err
	}
	k := r.keys[c.Key]
	if k == nil {
		return "", engine.Errorf(engine.CodeTokenUnknownKey,
			"cannot re-issue the %s: it was signed with key %d, which this WorkRail daemon no longer has; start a new run",
			c.Kind.field(), c.Key).With("keyId", uint32(c.Key))
	}
	m := k.get()
	defer k.put(m)
	raw := appendPayload(m.buf[:0], c)
	raw = append(raw, m.tag(c.Kind, raw)...)

	var out [maxPrefix + maxBody]byte
	n := copy(out[:], c.Kind.Prefix())
	b64.Encode(out[n:], raw)
	return string(out[:n+b64.EncodedLen(len(raw))]), nil
}

func appendPayload(b []byte, c Claims) []byte {
	b = append(b, byte(c.Kind))
	b = binary.AppendUvarint(b, uint64(c.Key))
	b = binary.AppendUvarint(b, uint64(c.Session))
	b = binary.AppendUvarint(b, uint64(c.Run))
	b = binary.AppendUvarint(b, uint64(c.Node))
	if c.Kind.hasAttempt() {
		b = binary.AppendUvarint(b, uint64(c.Attempt))
	}
	return b
}

// Parse verifies s and returns its claims; want is the kind the caller's
// field expects. Checks run in order: format (TOKEN_INVALID_FORMAT), key
// (TOKEN_UNKNOWN_KEY), signature (TOKEN_BAD_SIGNATURE), then kind
// (TOKEN_WRONG_KIND), so a wrong-kind report is only made about an authentic
// token. All expected failures are *engine.Error.
func (r *Ring) Parse(s string, want Kind) (Claims, error) {
	if !want.valid() {
		return Claims{}, fmt.Errorf("token: parse: invalid kind %d", uint8(want))
	}
	kind, raw, n, reason := decode(s)
	if reason != "" {
		return Claims{}, formatError(want, reason)
	}
	payload, got := raw[:n-tagLen], raw[n-tagLen:n]
	c, reason := decodePayload(kind, payload)
	if reason != "" {
		return Claims{}, formatError(want, reason)
	}
	if err := r.verify(c, payload, got); err != nil {
		return Claims{}, err
	}
	if kind != want {
		return Claims{}, wrongKind(want, kind)
	}
	return c, nil
}

// verify checks the tag in constant time.
func (r *Ring) verify(c Claims, payload, got []byte) error {
	k := r.keys[c.Key]
	if k == nil {
		return engine.Errorf(engine.CodeTokenUnknownKey,
			"the %s was signed with key %d, which this WorkRail daemon does not have "+
				"(its keys.json was replaced, or the token comes from another WorkRail installation); "+
				"start a new run, or rehydrate from a newer token of this session",
			c.Kind.field(), c.Key).With("keyId", uint32(c.Key))
	}
	m := k.get()
	defer k.put(m)
	copy(m.buf[:], payload)
	if !hmac.Equal(m.tag(c.Kind, m.buf[:len(payload)]), got) {
		return engine.Errorf(engine.CodeTokenBadSignature,
			"the %s failed its integrity check (it was changed or cut short); "+
				"copy the %s exactly as the last WorkRail response returned it",
			c.Kind.field(), c.Kind.field())
	}
	return nil
}

// decode splits off the prefix and base64-decodes the rest into a fixed
// buffer, returning the decoded length n (≥ minRaw) or a reason it failed.
func decode(s string) (kind Kind, raw [maxRaw]byte, n int, reason string) {
	if s == "" {
		return 0, raw, 0, "empty"
	}
	kind, body := splitPrefix(s)
	switch {
	case kind == 0:
		return 0, raw, 0, "unknown prefix; want st.v1., ack.v1. or chk.v1."
	case len(body) < minBody:
		return 0, raw, 0, "too short"
	case len(body) > maxBody:
		return 0, raw, 0, "too long"
	}
	// Copy to a stack buffer: []byte(body) would allocate.
	var src [maxBody]byte
	copy(src[:], body)
	n, err := b64.Decode(raw[:], src[:len(body)])
	// The decoder skips \r and \n; the length check rejects them.
	if err != nil || b64.EncodedLen(n) != len(body) {
		return 0, raw, 0, "not canonical unpadded base64url"
	}
	if n < minRaw {
		return 0, raw, 0, "too short"
	}
	return kind, raw, n, ""
}

func splitPrefix(s string) (Kind, string) {
	for k := State; k <= Checkpoint; k++ {
		p := kindInfo[k].prefix
		if len(s) >= len(p) && s[:len(p)] == p {
			return k, s[len(p):]
		}
	}
	return 0, ""
}

// decodePayload reads the payload of a token with the given prefix kind,
// accepting only the canonical encoding: the kind byte repeating the prefix,
// minimal in-range uvarints, non-zero ids, nothing left over.
func decodePayload(kind Kind, p []byte) (Claims, string) {
	c := Claims{Kind: kind}
	if Kind(p[0]) != kind {
		return c, "kind byte does not match the prefix"
	}
	var d decoder
	b := p[1:]
	c.Key = KeyID(d.uvarint(&b, "key id", math.MaxUint32, false))
	c.Session = engine.SessionID(d.uvarint(&b, "session", math.MaxUint64, false))
	c.Run = engine.RunID(d.uvarint(&b, "run", math.MaxUint32, false))
	c.Node = engine.NodeID(d.uvarint(&b, "node", math.MaxUint32, false))
	if kind.hasAttempt() {
		c.Attempt = engine.Attempt(d.uvarint(&b, "attempt", math.MaxUint32, true))
	}
	if d.reason == "" && len(b) != 0 {
		d.reason = "trailing bytes"
	}
	return c, d.reason
}

// decoder remembers the first failure while reading uvarints. The bytes are
// kept apart from it on purpose: escape analysis treats a struct as one
// value, and a failure reason escapes into the error, so a struct holding
// both would force the caller's stack buffer onto the heap.
type decoder struct{ reason string }

// uvarint reads one field from *b and advances it.
func (d *decoder) uvarint(b *[]byte, field string, max uint64, zeroOK bool) uint64 {
	if d.reason != "" {
		return 0
	}
	v, n := binary.Uvarint(*b)
	switch {
	case n <= 0:
		d.reason = field + " is truncated or overflows"
		return 0
	case n != uvarintLen(v):
		d.reason = field + " is not minimally encoded"
	case v > max:
		d.reason = field + " is out of range"
	case v == 0 && !zeroOK:
		d.reason = field + " is zero"
	}
	*b = (*b)[n:]
	return v
}

func uvarintLen(v uint64) int { return (bits.Len64(v|1) + 6) / 7 }

func formatError(want Kind, reason string) error {
	f := want.field()
	return engine.Errorf(engine.CodeTokenInvalidFormat,
		"the %s is not a valid WorkRail token (%s); copy the %s exactly as the last WorkRail response returned it",
		f, reason, f).With("expected", want.String()).With("reason", reason)
}

func wrongKind(want, got Kind) error {
	return engine.Errorf(engine.CodeTokenWrongKind,
		"the %s field holds a token of kind %s (prefix %s), not %s (prefix %s); "+
			"put each token from the last WorkRail response in its own field: the %s in %s, the %s in %s",
		want.field(), got, got.Prefix(), want, want.Prefix(), want.field(), want.field(), got.field(), got.field()).
		With("expected", want.String()).With("got", got.String())
}
