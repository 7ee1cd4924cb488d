package bundle

import (
	"fmt"

	"github.com/workrail/workrail/engine"
)

// Problem is the closed set of ways a bundle fails verification; every
// BUNDLE_INVALID error names one in its details ("problem").
type Problem string

// Problems, in the order verification meets them.
const (
	// Malformed: not JSON (truncated, garbage, trailing data).
	Malformed Problem = "malformed"
	// NotABundle: JSON, but its "format" is not Format.
	NotABundle Problem = "not_a_bundle"
	// UnsupportedVersion: a bundleSchemaVersion this build does not read.
	UnsupportedVersion Problem = "unsupported_version"
	// SchemaViolation: an unknown field, a missing one, or a value of the
	// wrong type.
	SchemaViolation Problem = "schema_violation"
	// DigestMismatch: a part does not match its manifest digest.
	DigestMismatch Problem = "digest_mismatch"
	// InvalidEvent: an event is not one WorkRail writes.
	InvalidEvent Problem = "invalid_event"
	// EventOrder: events are not numbered 1..n in order, or name another
	// session.
	EventOrder Problem = "event_order"
	// ChainMismatch: the digest chain over the events does not end at the
	// manifest's chain head.
	ChainMismatch Problem = "chain_mismatch"
	// MissingReference: an event names a snapshot or pinned workflow the
	// bundle does not hold.
	MissingReference Problem = "missing_reference"
	// ReferenceMismatch: a snapshot or workflow does not match its address,
	// or does not read as one.
	ReferenceMismatch Problem = "reference_mismatch"
	// Unreferenced: the bundle holds a snapshot or workflow no event names.
	Unreferenced Problem = "unreferenced"
	// InvalidHistory: the events verify but do not make a session WorkRail
	// could have written (ids out of sequence, an edge to a node that has
	// a parent, a reference to an event that is not there).
	InvalidHistory Problem = "invalid_history"
	// DerivedMismatch: a readable part differs from the refold of the
	// events.
	DerivedMismatch Problem = "derived_mismatch"
	// NotRedacted: the bundle says everything is redacted (RedactAll),
	// but an event or snapshot holds what a redaction masks.
	NotRedacted Problem = "not_redacted"
)

// Problems lists every problem, in verification order.
func Problems() []Problem {
	return []Problem{Malformed, NotABundle, UnsupportedVersion, SchemaViolation, DigestMismatch, InvalidEvent,
		EventOrder, ChainMismatch, MissingReference, ReferenceMismatch, Unreferenced, InvalidHistory, DerivedMismatch, NotRedacted}
}

// invalid is the BUNDLE_INVALID error for problem p.
func invalid(p Problem, format string, args ...any) *engine.Error {
	msg := fmt.Sprintf(format, args...)
	return engine.Errorf(engine.CodeBundleInvalid,
		"the bundle cannot be imported: %s. Nothing was imported. Export the session again from the WorkRail it came from.", msg).
		With("problem", string(p))
}
