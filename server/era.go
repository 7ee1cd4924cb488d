package server

import (
	"encoding/json"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
)

// From protocol version 2026-07-28 there is no initialize handshake: each
// request names its version in _meta (and over HTTP in the
// Mcp-Protocol-Version header too), and each result says what it is
// (resultType), who answered (_meta's serverInfo) and, for lists and
// reads, how long it may be kept (ttlMs, cacheScope). The MCP library
// checks and stamps this for what it answers; the methods the daemon
// answers ahead of it (libraryMethods) check and stamp it here, the same
// way, and leave a request the library would refuse to the library.

// era is what a request says of its protocol version.
type era struct {
	modern bool // 2026-07-28 or later, named in _meta or the header
	valid  bool // modern, and served as the library serves it
}

// eraOf reads the version a request names in params._meta and header h,
// and whether the MCP library would serve it: the header present and
// equal to the _meta version, a version it knows, the client's
// capabilities declared, and Mcp-Method and Mcp-Name matching the body
// (mcp.ValidateStandardHeaders).
func eraOf(h http.Header, method string, params json.RawMessage) era {
	var p struct {
		Meta *mcp.Meta `json:"_meta"`
	}
	if len(params) > 0 {
		json.Unmarshal(params, &p) // a malformed body is the library's to refuse
	}
	v, hv := p.Meta.ProtocolVersion(), h.Get(mcp.HeaderProtocolVersion)
	if !mcp.IsModernProtocol(v) && !mcp.IsModernProtocol(hv) {
		return era{}
	}
	valid := v == hv && mcp.IsValidProtocolVersion(v) && h.Get(mcp.HeaderLastEventID) == "" &&
		p.Meta.ClientCapabilities() != nil && mcp.ValidateStandardHeaders(h.Get, v, mcp.MCPMethod(method), params) == nil
	return era{modern: true, valid: valid}
}

// cacheable are the methods whose 2026-07-28 results carry caching hints.
var cacheable = map[string]bool{
	"prompts/list": true, "resources/list": true, "resources/templates/list": true, "resources/read": true,
}

// stamp adds to res what 2026-07-28 requires of method's result, as the
// MCP library adds it to its own: resultType complete, the server in
// _meta and, on a list or a read, the library's default caching hints
// (ttlMs 0: ask again each time; cacheScope private).
func stamp(res map[string]any, method, version string) {
	res["resultType"] = mcp.ResultTypeComplete
	res["_meta"] = map[string]any{mcp.MetaKeyServerInfo: mcp.Implementation{Name: serverName, Version: version}}
	if cacheable[method] {
		res["ttlMs"], res["cacheScope"] = 0, mcp.CacheScopePrivate
	}
}

// serverName is the name the MCP server gives itself.
const serverName = "workrail"
