package engine

import (
	"errors"
	"fmt"
)

// Code is the closed set of error codes WorkRail reports. Every expected
// failure, at every edge (MCP tool results, CLI --json, Console), carries one.
type Code string

// The closed set of codes. Add a code here, with its retry policy in
// retryOf, before using it anywhere.
const (
	CodeInvalidInput Code = "INVALID_INPUT"
	CodeUnknownKey   Code = "UNKNOWN_KEY"
	// CodePayloadTooLarge: a call's arguments, or what it would answer
	// (a prompt rendered with the run's context, a tool answer), are
	// over their limit; nothing over it was built.
	CodePayloadTooLarge    Code = "PAYLOAD_TOO_LARGE"
	CodeWorkflowNotFound   Code = "WORKFLOW_NOT_FOUND"
	CodePinnedMissing      Code = "PINNED_WORKFLOW_MISSING"
	CodeTokenInvalidFormat Code = "TOKEN_INVALID_FORMAT"
	CodeTokenBadSignature  Code = "TOKEN_BAD_SIGNATURE"
	CodeTokenUnknownKey    Code = "TOKEN_UNKNOWN_KEY"
	CodeTokenWrongKind     Code = "TOKEN_WRONG_KIND"
	CodeTokenScopeMismatch Code = "TOKEN_SCOPE_MISMATCH"
	CodeTokenUnknownNode   Code = "TOKEN_UNKNOWN_NODE"
	CodeSessionCorrupt     Code = "SESSION_CORRUPT"
	// CodeSessionReplaced: the call names a session that `workrail scrub`
	// replaced by a copy with its secrets replaced by markers, and
	// deleted. Nothing was recorded; the error's nextCall re-reads the
	// same step in the copy.
	CodeSessionReplaced Code = "SESSION_REPLACED"
	// CodeStorageUnwritable: the disk holding the database is full or
	// read-only; nothing was recorded, and the call succeeds once space
	// (or write access) returns.
	CodeStorageUnwritable Code = "STORAGE_UNWRITABLE"
	// CodeDaemonUnavailable is answered by the stdio shim when it cannot
	// reach or start the daemon.
	CodeDaemonUnavailable Code = "DAEMON_UNAVAILABLE"
	// CodeBundleInvalid: a session bundle given to import fails
	// verification (malformed, another format version, a digest, the
	// event chain or a reference does not hold). Its details name what is
	// wrong; nothing was written, and the same bytes fail again.
	CodeBundleInvalid Code = "BUNDLE_INVALID"
	// CodeCancelled: the call's client cancelled it (notifications/cancelled)
	// or went away before anything it would write was recorded; nothing
	// changed, and the same call may be sent again.
	CodeCancelled Code = "CANCELLED"
	CodeInternal  Code = "INTERNAL"
)

// Codes lists every code, in a fixed order (used by tests and schemas).
func Codes() []Code {
	return []Code{
		CodeInvalidInput, CodeUnknownKey, CodePayloadTooLarge, CodeWorkflowNotFound,
		CodePinnedMissing, CodeTokenInvalidFormat, CodeTokenBadSignature,
		CodeTokenUnknownKey, CodeTokenWrongKind, CodeTokenScopeMismatch, CodeTokenUnknownNode,
		CodeSessionCorrupt, CodeSessionReplaced, CodeStorageUnwritable, CodeDaemonUnavailable, CodeBundleInvalid, CodeCancelled, CodeInternal,
	}
}

// RetryKind is the closed union of retry policies.
type RetryKind string

// The retry kinds.
const (
	NotRetryable         RetryKind = "not_retryable"
	RetryableImmediately RetryKind = "retryable_immediately"
	RetryableAfterMs     RetryKind = "retryable_after_ms"
)

// Retry tells the caller whether and when the same call may succeed.
type Retry struct {
	Kind    RetryKind `json:"kind"`
	AfterMs int       `json:"afterMs,omitempty"`
}

// Suggestion is a did-you-mean hint for a bad input path.
type Suggestion struct {
	Path       string `json:"path"`
	DidYouMean string `json:"didYouMean,omitempty"`
	Note       string `json:"note,omitempty"`
}

// Error is an expected failure as data. It is the one error envelope.
type Error struct {
	Code        Code           `json:"code"`
	Message     string         `json:"message"`
	Retry       Retry          `json:"retry"`
	Details     map[string]any `json:"details,omitempty"`
	Suggestions []Suggestion   `json:"suggestions,omitempty"`
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Errorf builds an Error with the code's standard retry policy.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Retry: retryOf(code)}
}

// With returns e with one detail added.
func (e *Error) With(key string, value any) *Error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[key] = value
	return e
}

// AsError classifies err: an *Error is returned as is; anything else is an
// internal error whose message hides the cause (which the caller logs).
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Errorf(CodeInternal, "internal error; the daemon log has the details")
}

func retryOf(code Code) Retry {
	switch code {
	case CodeDaemonUnavailable:
		return Retry{Kind: RetryableAfterMs, AfterMs: 1000}
	case CodeStorageUnwritable:
		return Retry{Kind: RetryableAfterMs, AfterMs: 10000}
	case CodeInternal, CodeCancelled:
		return Retry{Kind: RetryableImmediately}
	default:
		return Retry{Kind: NotRetryable}
	}
}

// ErrNotFound is wrapped by every lookup of a record that does not exist:
// a session, node, run, event, snapshot or recorded attempt.
var ErrNotFound = errors.New("not found")
