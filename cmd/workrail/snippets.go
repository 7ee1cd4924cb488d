package main

import (
	"fmt"

	"github.com/workrail/workrail/console"
)

// snippets are the ways to register the binary at exe in an IDE: printed
// by the daemon at start and shown by the Console until the first
// session.
func snippets(exe string) []console.Snippet {
	return []console.Snippet{
		{Client: "Claude Code", Text: fmt.Sprintf("claude mcp add workrail -- %s mcp", exe)},
		{Client: "Cursor", Where: "~/.cursor/mcp.json",
			Text: fmt.Sprintf(`{"mcpServers": {"workrail": {"command": %q, "args": ["mcp"]}}}`, exe)},
		{Client: "VS Code", Where: ".vscode/mcp.json",
			Text: fmt.Sprintf(`{"servers": {"workrail": {"type": "stdio", "command": %q, "args": ["mcp"]}}}`, exe)},
	}
}
