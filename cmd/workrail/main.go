// Command workrail is WorkRail's one binary: the daemon (default), the
// stdio MCP shim IDEs launch, and small CLI tools. It only parses flags and
// wires packages together.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/workrail/workrail/engine"
)

// version is set at release time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

// command is one subcommand: how it is called, what it does, and its run
// function (stdout, stderr; the exit code it returns).
type command struct {
	name, synopsis, about string
	run                   func(args []string, stdout, stderr io.Writer) int
}

// commands lists every subcommand, in the order the usage shows them.
// It is a function, not a variable, because help refers to it.
func commands() []command {
	return []command{
		{"daemon", "workrail [daemon] [--port N]", "run the daemon (Console + MCP) in the foreground", runDaemon},
		{"console", "workrail console [--print | --logout-all]", "open the Console in your browser with a one-time login link (starts the daemon if none runs), or end every Console login", runConsole},
		{"mcp", "workrail mcp", "stdio MCP server for your IDE (starts the daemon if needed)", runShim},
		{"validate", "workrail validate [--json] [--bundled] FILE…|FOLDER… | validate --catalog [--json]", "check workflow files (either format; the files given are one set, routine calls resolving among them and the bundled ones); exit 0 only if all are valid; or print the builtins catalog", runValidate},
		{"doctor", "workrail doctor [--json] [--rebuild-indexes | --salvage NEW.db | --secrets]",
			"verify every stored session; exit 0 only if all are healthy; with the daemon stopped, rebuild damaged indexes or copy every intact session of a damaged file into a new one",
			runDoctor},
		{"status", "workrail status [--json]", "is the daemon running? its URL, pid, version, uptime, appliedConfigHash, sessions, pending restart (exit 3 when not running)", runStatus},
		{"stop", "workrail stop [--json]", "stop the daemon (an IDE's next WorkRail call starts it again)", runStop},
		{"restart", "workrail restart [--json]", "restart the daemon in place, reading config.json afresh (starts it if none runs)", runRestart},
		{"config", "workrail config [show | get KEY | set KEY VALUE | unset KEY | schema]", "show or change config.json: desired vs applied, restart-required or runtime-safe", runConfig},
		{"sources", "workrail sources [sync] [--json]", "list where workflows come from, each repository with its commit, last fetch and error; sync fetches the repositories now (exit 1 when one failed)", runSources},
		{"sessions", "workrail sessions [--json]", "list the sessions, newest first: id, status, workflow, last activity, title", runSessions},
		{"export", "workrail export SESSION [-o FILE] [--redact-notes | --redact] [--markdown] | export --schema",
			"write a session as one bundle file (gzip when FILE ends in .json.gz) to move or share it, or as Markdown for a pull request", runExport},
		{"import", "workrail import FILE [--dry-run] [--json]", "verify a bundle (.json or .json.gz) and add it as a new session", runImport},
		{"scrub", "workrail scrub SESSION [--json]", "replace a session holding secrets (see doctor --secrets) by a copy with each secret replaced by a marker, and delete the original", runScrub},
		{"compact", "workrail compact [--json]", "with the daemon stopped, rewrite the database without its free space, verify every session, and report bytes before and after", runCompact},
		{"keys", "workrail keys rotate", "sign new tokens with a fresh key (old tokens keep working) and end every Console login", runKeys},
		{"version", "workrail version", "print the version", runVersion},
		{"help", "workrail help [COMMAND]", "print this help, or one command's", runHelp},
	}
}

const environment = `Environment:
  WORKRAIL_HOME  where data lives (default $XDG_DATA_HOME/workrail or ~/.local/share/workrail);
                 set it in your IDE's MCP config too when it is not the default
  WORKRAIL_PORT  TCP port of the Console and HTTP MCP endpoint (default 7421; 0 picks a free one)
`

func usage() string {
	var b strings.Builder
	b.WriteString("workrail: keeps AI coding agents on rails.\n\nUsage:\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %s\n      %s\n", c.synopsis, c.about)
	}
	b.WriteString("\nRun `workrail COMMAND --help` for a command's flags.\n\n" + environment)
	return b.String()
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	name := "daemon"
	if len(args) > 0 {
		switch args[0] {
		case "-h", "-help", "--help":
			fmt.Fprint(stdout, usage())
			return 0
		case "-version", "--version":
			return runVersion(nil, stdout, stderr)
		}
		if args[0] != "" && args[0][0] != '-' {
			name, args = args[0], args[1:]
		}
	}
	if c, ok := find(name); ok {
		return c.run(args, stdout, stderr)
	}
	msg := fmt.Sprintf("workrail: unknown command %q", name)
	if s := engine.Closest(name, names()); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	fmt.Fprintf(stderr, "%s\n\n%s", msg, usage())
	return 2
}

func find(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func names() []string {
	var out []string
	for _, c := range commands() {
		out = append(out, c.name)
	}
	return out
}

// parseFlags parses a command's flags. -h or --help prints the command's
// usage and flags to stdout; a bad flag prints them to stderr. done says
// the caller should return code now.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (code int, done bool) {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		commandUsage(fs, stdout)
		return 0, true
	case err != nil:
		fmt.Fprintf(stderr, "workrail %s: %v%s\n\n", fs.Name(), err, flagSuggestion(fs, err))
		commandUsage(fs, stderr)
		return 2, true
	}
	return 0, false
}

// flagSuggestion names the flag an undefined one most likely misspells
// ("" when none is close).
func flagSuggestion(fs *flag.FlagSet, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !ok {
		return ""
	}
	var known []string
	fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
	if s := engine.Closest(strings.TrimLeft(name, "-"), known); s != "" {
		return fmt.Sprintf("; did you mean --%s?", s)
	}
	return ""
}

// commandUsage prints one command's synopsis, what it does and its flags.
func commandUsage(fs *flag.FlagSet, w io.Writer) {
	c, _ := find(fs.Name())
	fmt.Fprintf(w, "Usage: %s\n\n%s.\n", c.synopsis, upperFirst(c.about))
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprint(w, "\nFlags:\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// noFlags is the flag set of a command that takes none: it still answers
// --help.
func noFlags(name string, args []string, stdout, stderr io.Writer) (rest []string, code int, done bool) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	code, done = parseFlags(fs, args, stdout, stderr)
	return fs.Args(), code, done
}

func runVersion(args []string, stdout, stderr io.Writer) int {
	if _, code, done := noFlags("version", args, stdout, stderr); done {
		return code
	}
	fmt.Fprintln(stdout, "workrail", version)
	return 0
}

func runHelp(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stdout, usage())
		return 0
	}
	if _, ok := find(args[0]); !ok {
		return run(args[:1], stdout, stderr) // the unknown-command answer
	}
	return run([]string{args[0], "--help"}, stdout, stderr)
}
