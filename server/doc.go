// Package server is the daemon's transport: MCP over streamable HTTP on
// the home folder's unix socket (for shims) and, on loopback TCP behind
// the bearer token, /mcp; the Console and its static assets; the owner
// check, Host and Origin checks and the guard; the notification stream;
// the command line's /api routes; daemon.json and the listeners'
// lifecycle. Its MCP handlers decide nothing: they hand raw arguments to
// the use cases and encode the results. What it serves is handed in by
// cmd as the small interfaces it declares (Tools, Library, API); of the
// engine it imports only the protocol, and the JSON-RPC framing it shares
// with the shim is server/jsonrpc.
//
// The folders under it are the adapters the daemon's wiring uses, each
// named for what it adapts (home, config, logfile, login, sources,
// gitrepo, gitsource, giturl, secrets, budget), the shim, and jsonrpc.
package server
