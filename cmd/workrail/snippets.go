package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/workrail/workrail/console"
	"github.com/workrail/workrail/server/home"
)

// snippets are the ways to register the binary at exe in an IDE: printed
// by the daemon at start and shown by the Console until the first
// session. A home that is not the default is passed in WORKRAIL_HOME:
// without it the IDE's shim would start a second daemon on the default
// home.
func snippets(exe string, h home.Dir) []console.Snippet {
	claudeEnv, env := "", ""
	if !h.IsDefault() {
		claudeEnv = " -e WORKRAIL_HOME=" + shellQuote(string(h))
		env = fmt.Sprintf(`, "env": {"WORKRAIL_HOME": %s}`, jsonString(string(h)))
	}
	return []console.Snippet{
		{Client: "Claude Code", Text: fmt.Sprintf("claude mcp add workrail%s -- %s mcp", claudeEnv, shellQuote(exe))},
		{Client: "Cursor", Where: "~/.cursor/mcp.json",
			Text: fmt.Sprintf(`{"mcpServers": {"workrail": {"command": %s, "args": ["mcp"]%s}}}`, jsonString(exe), env)},
		{Client: "VS Code", Where: ".vscode/mcp.json",
			Text: fmt.Sprintf(`{"servers": {"workrail": {"type": "stdio", "command": %s, "args": ["mcp"]%s}}}`, jsonString(exe), env)},
	}
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:=,@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// jsonString is s as a JSON string literal.
func jsonString(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}
