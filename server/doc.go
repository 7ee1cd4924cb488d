// Package server is the daemon's transport: MCP over streamable HTTP on
// the home folder's unix socket (for shims) and, on loopback TCP behind
// the bearer token, /mcp; the Console and its static assets; Host and
// Origin checks; daemon.json and the listeners' lifecycle. Its MCP
// handlers decode nothing and decide nothing: they hand raw arguments to
// the use cases and encode the results. What it serves is handed in by
// cmd; of the engine it imports only the protocol, and of the store only
// the doctor's report type, which the status answer carries.
package server
