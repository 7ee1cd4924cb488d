// Package server is the daemon's transport: MCP over streamable HTTP on
// the home folder's unix socket (for shims) and, on loopback TCP behind
// the bearer token, /mcp; the Console and its static assets; Host and
// Origin checks; daemon.json and the listeners' lifecycle. Its MCP
// handlers decode nothing and decide nothing: they hand raw arguments to
// the use cases and encode the results. What it serves is handed in by
// cmd; it imports no part of the engine but the protocol.
package server
