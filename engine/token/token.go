// Package token owns minting and verifying the opaque tokens WorkRail hands
// to agents: state tokens (st.v1.), ack tokens (ack.v1.) and checkpoint
// tokens (chk.v1.).
//
// A token is prefix + base64url(payload || tag). The payload is a kind byte
// followed by uvarints for the key id, session, run, node and (ack and
// checkpoint only) attempt; the tag is HMAC-SHA256(secret, prefix || payload)
// truncated to 128 bits. Parsing rejects every non-canonical encoding, so a
// claims value signed with one key has exactly one valid string: re-minting
// recorded claims reproduces the token the agent holds, byte for byte.
//
// The package is pure (no file I/O, clock or randomness) and imports only the
// standard library and package engine; the key ring on disk lives in package
// server.
package token

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/workrail/workrail/engine"
)

// Kind says what a token authorizes. Its value is also the payload's first
// byte, so the constants must never be renumbered.
type Kind uint8

// The token kinds. The zero Kind is invalid.
const (
	// State tokens name a node the agent is at (the stateToken field).
	State Kind = iota + 1
	// Ack tokens authorize completing one attempt from a node (ackToken).
	Ack
	// Checkpoint tokens authorize recording a checkpoint (checkpointToken).
	Checkpoint
)

// kindInfo holds each kind's wire prefix, short name and the request field
// agents pass it in (used to phrase errors).
var kindInfo = [...]struct {
	prefix string
	raw    []byte // prefix as bytes, so hashing it does not allocate
	name   string
	field  string
}{
	State:      {"st.v1.", []byte("st.v1."), "st", "stateToken"},
	Ack:        {"ack.v1.", []byte("ack.v1."), "ack", "ackToken"},
	Checkpoint: {"chk.v1.", []byte("chk.v1."), "chk", "checkpointToken"},
}

func (k Kind) valid() bool { return k >= State && k <= Checkpoint }

// Prefix returns the token prefix for k ("st.v1.", "ack.v1.", "chk.v1."),
// or "" for an invalid kind.
func (k Kind) Prefix() string {
	if !k.valid() {
		return ""
	}
	return kindInfo[k].prefix
}

// String returns the short name ("st", "ack", "chk") used in error details.
func (k Kind) String() string {
	if !k.valid() {
		return "Kind(" + strconv.Itoa(int(k)) + ")"
	}
	return kindInfo[k].name
}

// field is the request field that carries tokens of kind k.
func (k Kind) field() string {
	if !k.valid() {
		return "token"
	}
	return kindInfo[k].field
}

// hasAttempt reports whether tokens of kind k encode an attempt number.
func (k Kind) hasAttempt() bool { return k != State }

// Claims is what a token asserts. Session, Run and Node are never zero.
type Claims struct {
	Kind    Kind
	Key     KeyID
	Session engine.SessionID
	Run     engine.RunID
	Node    engine.NodeID
	// Attempt is meaningful for Ack and Checkpoint only; for State it must
	// be 0 and is not encoded.
	Attempt engine.Attempt
}

// validate rejects claims no token can carry. Minting such claims is a
// programmer error, so the errors are plain.
func (c Claims) validate() error {
	switch {
	case !c.Kind.valid():
		return fmt.Errorf("token: mint: invalid kind %d", uint8(c.Kind))
	case c.Session == 0 || c.Run == 0 || c.Node == 0:
		return fmt.Errorf("token: mint: zero id in %s claims (session %d, run %d, node %d)",
			c.Kind, c.Session, c.Run, c.Node)
	case !c.Kind.hasAttempt() && c.Attempt != 0:
		return fmt.Errorf("token: mint: state claims carry attempt %d; want 0", c.Attempt)
	}
	return nil
}

// CheckScope checks that an ack or checkpoint token belongs to the same step
// as the state token it is sent with: same session, run and node. Both claims
// must come from Parse.
func CheckScope(state, other Claims) error {
	var diff []string
	if state.Session != other.Session {
		diff = append(diff, "session")
	}
	if state.Run != other.Run {
		diff = append(diff, "run")
	}
	if state.Node != other.Node {
		diff = append(diff, "node")
	}
	if diff == nil {
		return nil
	}
	f := other.Kind.field()
	return engine.Errorf(engine.CodeTokenScopeMismatch,
		"the %s belongs to a different step than the stateToken (different %s); "+
			"send the %s that came with that same stateToken in one WorkRail response",
		f, strings.Join(diff, ", "), f).With("mismatch", diff)
}
