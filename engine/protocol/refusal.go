package protocol

import "github.com/workrail/workrail/engine"

// Refused is why a request was refused before any tool ran: the codes of
// the envelope a transport (the daemon's guard, the shim) may answer with
// itself, so that neither names the engine's codes.
type Refused int

// The refusals.
const (
	RefusedInvalid  Refused = iota // INVALID_INPUT: the request as sent is not one WorkRail takes
	RefusedTooLarge                // PAYLOAD_TOO_LARGE
	RefusedInternal                // INTERNAL: the MCP library failed
	RefusedBusy                    // DAEMON_UNAVAILABLE: no room now; the same request may succeed in a while
)

// Refuse is the envelope of a refusal of kind k.
func Refuse(k Refused, format string, args ...any) *engine.Error {
	code := map[Refused]engine.Code{RefusedInvalid: engine.CodeInvalidInput, RefusedTooLarge: engine.CodePayloadTooLarge, RefusedInternal: engine.CodeInternal,
		RefusedBusy: engine.CodeDaemonUnavailable}[k]
	return engine.Errorf(code, format, args...)
}

// IsServerFault reports whether e is the server's failure rather than a
// problem with what was asked: a JSON-RPC error carrying it takes the
// internal-error code.
func IsServerFault(e *engine.Error) bool {
	switch e.Code {
	case engine.CodeInternal, engine.CodeSessionCorrupt, engine.CodeStorageUnwritable, engine.CodeDaemonUnavailable:
		return true
	}
	return false
}

// IsCancelled reports whether e answers a call its client cancelled:
// nothing failed, so it is not logged as an error.
func IsCancelled(e *engine.Error) bool { return e != nil && e.Code == engine.CodeCancelled }
