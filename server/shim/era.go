package shim

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
)

// From protocol version 2026-07-28 a message carries its protocol version
// in its own _meta, and over HTTP the transport wants it said again in
// headers: Mcp-Protocol-Version equal to it, Mcp-Method naming the method
// and, for tools/call, prompts/get and resources/read, Mcp-Name naming the
// tool, prompt or resource (SEP-2243). stdio has no headers, so a client
// speaking that version over stdio sends none; the shim, which turns each
// stdio line into an HTTP request, sets them as an HTTP client of that
// version would, from the message itself. Messages of earlier versions
// carry no such _meta and get no such headers, as before.

// protocolVersionKey is where a 2026-07-28 message names its version.
var protocolVersionKey = []byte(`"` + mcp.MetaKeyProtocolVersion + `"`)

// eraHeaders sets on h the headers the daemon's HTTP transport wants of
// msg when msg declares protocol version 2026-07-28 or later, and nothing
// otherwise.
func eraHeaders(h http.Header, msg []byte) {
	if !bytes.Contains(msg, protocolVersionKey) {
		return // spares every earlier message the decoding
	}
	var m struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(msg, &m) != nil || m.Method == "" {
		return // the daemon says what is wrong with it
	}
	var p struct {
		Meta *mcp.Meta `json:"_meta"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return
	}
	v := p.Meta.ProtocolVersion()
	if !mcp.IsModernProtocol(v) {
		return
	}
	h.Set(mcp.HeaderProtocolVersion, v)
	for k, val := range mcp.StandardHeaders(v, mcp.MCPMethod(m.Method), m.Params) {
		h.Set(k, val)
	}
}
