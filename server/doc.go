// Package server is the daemon: it owns the store for its lifetime, carries
// out the MCP tools (Executor), serves MCP on the home folder's unix socket
// and, on loopback TCP, the Console and an authenticated /mcp endpoint.
// It imports engine, store and console; nothing imports it but cmd.
package server
