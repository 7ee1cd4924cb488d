package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// SessionID identifies one session (a workstream) in the store. The store
// assigns them in order; the text form is "ses_<n>".
type SessionID uint64

// RunID identifies one workflow run inside a session; "run_<n>".
type RunID uint32

// NodeID identifies one node (a durable snapshot) inside a session; "node_<n>".
type NodeID uint32

// EventIndex is the monotonic position of an event in its session's log,
// starting at 1. It is the only ordering source for projections.
type EventIndex uint64

// Write is a session's place in its store's write sequence: every write
// that appends to a session takes the next number, so the session with the
// highest was written last. It orders by recent activity without a clock;
// 0 is a session never numbered (a file from before the sequence, read
// without upgrading it).
type Write uint64

// Attempt numbers the ack attempts made from one node, starting at 0.
type Attempt uint32

// WorkflowID is a workflow's declared id, e.g. "wr.hello".
type WorkflowID string

// EventID names one event: "evt_<session>_<index>".
type EventID string

// NewEventID returns the id of the event at index i of session s.
func NewEventID(s SessionID, i EventIndex) EventID {
	return EventID(fmt.Sprintf("evt_%d_%d", uint64(s), uint64(i)))
}

// Digest is a SHA-256 content address, written "sha256:<hex>".
type Digest [32]byte

// WorkflowHash is the digest of a compiled workflow's canonical JSON.
type WorkflowHash Digest

// SnapshotRef is the digest of a node snapshot's canonical JSON.
type SnapshotRef Digest

// Sum returns the SHA-256 digest of b.
func Sum(b []byte) Digest { return sha256.Sum256(b) }

func (d Digest) String() string { return "sha256:" + hex.EncodeToString(d[:]) }

// MarshalText writes "sha256:<hex>".
func (d Digest) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads "sha256:<hex>".
func (d *Digest) UnmarshalText(b []byte) error {
	s, ok := strings.CutPrefix(string(b), "sha256:")
	if !ok || hex.DecodedLen(len(s)) != len(d) {
		return fmt.Errorf("digest %q: want sha256:<64 hex digits>", b)
	}
	_, err := hex.Decode(d[:], []byte(s))
	return err
}

func (h WorkflowHash) String() string                { return Digest(h).String() }
func (h WorkflowHash) MarshalText() ([]byte, error)  { return Digest(h).MarshalText() }
func (h *WorkflowHash) UnmarshalText(b []byte) error { return (*Digest)(h).UnmarshalText(b) }
func (r SnapshotRef) String() string                 { return Digest(r).String() }
func (r SnapshotRef) MarshalText() ([]byte, error)   { return Digest(r).MarshalText() }
func (r *SnapshotRef) UnmarshalText(b []byte) error  { return (*Digest)(r).UnmarshalText(b) }
func (w Write) String() string                       { return strconv.FormatUint(uint64(w), 10) }
func (s SessionID) String() string                   { return "ses_" + strconv.FormatUint(uint64(s), 10) }
func (s SessionID) MarshalText() ([]byte, error)     { return []byte(s.String()), nil }
func (s *SessionID) UnmarshalText(b []byte) error    { return parseID(b, "ses_", 64, (*uint64)(s)) }
func (r RunID) String() string                       { return "run_" + strconv.FormatUint(uint64(r), 10) }
func (r RunID) MarshalText() ([]byte, error)         { return []byte(r.String()), nil }
func (r *RunID) UnmarshalText(b []byte) error        { return parseID32(b, "run_", (*uint32)(r)) }
func (n NodeID) String() string                      { return "node_" + strconv.FormatUint(uint64(n), 10) }
func (n NodeID) MarshalText() ([]byte, error)        { return []byte(n.String()), nil }
func (n *NodeID) UnmarshalText(b []byte) error       { return parseID32(b, "node_", (*uint32)(n)) }

func parseID(b []byte, prefix string, bits int, dst *uint64) error {
	s, ok := strings.CutPrefix(string(b), prefix)
	if !ok {
		return fmt.Errorf("id %q: want %s<number>", b, prefix)
	}
	n, err := strconv.ParseUint(s, 10, bits)
	if err != nil || n == 0 {
		return fmt.Errorf("id %q: want %s<number ≥ 1>", b, prefix)
	}
	*dst = n
	return nil
}

func parseID32(b []byte, prefix string, dst *uint32) error {
	var n uint64
	if err := parseID(b, prefix, 32, &n); err != nil {
		return err
	}
	*dst = uint32(n)
	return nil
}
