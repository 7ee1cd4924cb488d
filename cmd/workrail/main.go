// Command workrail is WorkRail's one binary: the daemon (default), the
// stdio MCP shim IDEs launch, and small CLI tools. It only parses flags and
// wires packages together.
package main

import (
	"fmt"
	"io"
	"os"
)

// version is set at release time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

const usage = `workrail: keeps AI coding agents on rails.

Usage:
  workrail [daemon] [--port N]
      run the daemon (Console + MCP) in the foreground
  workrail mcp
      stdio MCP server for your IDE (starts the daemon if needed)
  workrail validate [--json] [--bundled] FILE…
      check workflow files; exit 0 only if all are valid
  workrail doctor [--json] [--rebuild-indexes | --salvage NEW.db]
      verify every stored session; exit 0 only if all are healthy; with
      the daemon stopped, rebuild damaged indexes or copy every intact
      session of a damaged file into a new one
  workrail keys rotate
      sign new tokens with a fresh key (old tokens keep working)
  workrail version

Data lives in $WORKRAIL_HOME (default $XDG_DATA_HOME/workrail or ~/.local/share/workrail).
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	cmd := "daemon"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "daemon":
		return runDaemon(args, stdout, stderr)
	case "mcp":
		return runShim(args, stderr)
	case "validate":
		return runValidate(args, stdout, stderr)
	case "doctor":
		return runDoctor(args, stdout, stderr)
	case "keys":
		return runKeys(args, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "workrail", version)
		return 0
	case "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "workrail: unknown command %q\n\n%s", cmd, usage)
	return 2
}
