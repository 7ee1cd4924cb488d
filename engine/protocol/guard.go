package protocol

import "github.com/workrail/workrail/engine"

// CheckArguments applies the boundary checks every tool shares to a tool
// call's raw arguments: their size, and that each value can be stored as
// sent. The daemon runs it before the MCP library decodes the call, which
// would refuse a number outside float64 with a bare protocol error
// instead of this envelope and its pointer.
func CheckArguments(raw []byte) *engine.Error {
	if len(raw) > MaxArgumentsBytes {
		return engine.Errorf(engine.CodePayloadTooLarge, "the arguments are %d bytes; the limit is %d.", len(raw), MaxArgumentsBytes)
	}
	return checkStorable(raw)
}
