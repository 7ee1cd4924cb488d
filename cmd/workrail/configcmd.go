package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/workrail/workrail/cmd/workrail/daemon"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/server/config"
	"github.com/workrail/workrail/server/home"
)

const configUsage = `Usage: workrail config [--json] [show | get KEY | set KEY VALUE | unset KEY | schema]

Show or change config.json, the desired configuration, in the home folder.
  show             every key: desired (the file), applied (the running daemon), and
                   whether a change needs a restart (the default)
  get KEY          the desired value of KEY, as JSON
  set KEY VALUE    check, then write config.json atomically; VALUE is JSON (30, true,
                   ["/abs/folder"]) or plain text for a string
  unset KEY        remove KEY from config.json: it takes its default again
  schema           print config.json's JSON Schema

Runtime-safe keys (retention, Console presentation) apply to a running daemon at
once; the others need ` + "`workrail restart`" + `, then a reload of your IDE's MCP server.
`

func runConfig(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("config", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print results as JSON (failures as the error envelope)")
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, configUsage+"\nFlags:\n  -json\n    \tprint results as JSON (failures as the error envelope)\n")
		return 0
	} else if err != nil {
		fmt.Fprintf(stderr, "workrail config: %v\n\n%s", err, configUsage)
		return 2
	}
	verb, rest := "show", fs.Args()
	if len(rest) > 0 {
		verb, rest = rest[0], rest[1:]
	}
	want := map[string]int{"show": 0, "get": 1, "set": 2, "unset": 1, "schema": 0}
	n, ok := want[verb]
	if !ok || len(rest) != n {
		msg := fmt.Sprintf("workrail config: %q takes %d argument(s)", verb, n)
		if !ok {
			msg = fmt.Sprintf("workrail config: unknown action %q", verb)
			if s := engine.Closest(verb, []string{"show", "get", "set", "unset", "schema"}); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
		}
		fmt.Fprintf(stderr, "%s\n\n%s", msg, configUsage)
		return 2
	}
	h, err := home.Resolve()
	if err != nil {
		return printFailure(*asJSON, "config", err, stdout, stderr)
	}
	c := configCmd{h: h, path: h.Path("config.json"), asJSON: *asJSON, stdout: stdout}
	switch verb {
	case "get":
		err = c.get(rest[0])
	case "set":
		err = c.write(func(b []byte) ([]byte, config.Config, *engine.Error) { return config.Set(b, rest[0], rest[1]) }, rest[0])
	case "unset":
		err = c.write(func(b []byte) ([]byte, config.Config, *engine.Error) { return config.Unset(b, rest[0]) }, rest[0])
	case "schema":
		_, err = stdout.Write(config.Schema)
	default:
		err = c.show()
	}
	if err != nil {
		return printFailure(*asJSON, "config", err, stdout, stderr)
	}
	return 0
}

type configCmd struct {
	h      home.Dir
	path   string
	asJSON bool
	stdout io.Writer
}

// desired reads config.json; a file the schema refuses is its error.
func (c configCmd) desired() (config.Config, []byte, error) {
	b, err := os.ReadFile(c.path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return config.Config{}, nil, err
	}
	cfg, e := config.Parse(b)
	if e != nil {
		return cfg, b, e
	}
	return cfg, b, nil
}

func (c configCmd) get(key string) error {
	k, e := config.Lookup(key)
	if e != nil {
		return e
	}
	cfg, _, err := c.desired()
	if err != nil {
		return err
	}
	fmt.Fprintln(c.stdout, k.Value(cfg))
	return nil
}

// write changes config.json with edit, checked before anything is
// written, then says when the change takes effect.
func (c configCmd) write(edit func([]byte) ([]byte, config.Config, *engine.Error), key string) error {
	b, err := os.ReadFile(c.path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	out, cfg, e := edit(b)
	if e != nil {
		return e
	}
	if err := home.WriteFileAtomic(c.path, out, 0o600); err != nil {
		return err
	}
	k, _ := config.Lookup(key) // edit checked it
	effect := "It applies when the daemon starts."
	var st daemon.Status
	if askDaemon(c.h, "GET", "/api/status", &st) == nil && st.Report != nil {
		effect = "The running daemon applied it."
		if k.Class == config.RestartRequired && slices.Contains(st.PendingRestart, key) {
			effect = "It needs a restart: run `workrail restart`, then reload your IDE's MCP server."
		}
	}
	if c.asJSON {
		printJSON(c.stdout, map[string]any{"key": key, "value": json.RawMessage(k.Value(cfg)), "class": k.Class, "effect": effect})
		return nil
	}
	fmt.Fprintf(c.stdout, "%s = %s in %s.\n%s\n", key, k.Value(cfg), c.path, effect)
	return nil
}

// show prints every key, desired against what the running daemon applies.
func (c configCmd) show() error {
	desired, _, err := c.desired()
	var problem *engine.Error
	if errors.As(err, &problem) {
		err = nil
	}
	if err != nil {
		return err
	}
	// A running daemon reads the same file: its table is desired (as it
	// reads now) against what it applies.
	var st daemon.Status
	running := askDaemon(c.h, "GET", "/api/status", &st) == nil && st.Report != nil
	entries, hash := config.Compare(desired, desired), ""
	if running {
		entries, hash = st.Config, st.AppliedConfigHash
	}
	if c.asJSON {
		out := map[string]any{"path": c.path, "running": running, "keys": entries}
		if running {
			out["appliedConfigHash"] = hash
		}
		if problem != nil {
			out["problem"] = problem
		}
		printJSON(c.stdout, out)
		return nil
	}
	w := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "KEY\tDESIRED\tAPPLIED\tA CHANGE IS")
	for _, e := range entries {
		applied := e.Applied
		if !running {
			applied = "(not running)"
		}
		mark := ""
		if running && e.Differs {
			mark = "  ← differs"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s%s\n", e.Key, e.Desired, applied, strings.ReplaceAll(string(e.Class), "_", "-"), mark)
	}
	w.Flush()
	fmt.Fprintf(c.stdout, "\nconfig.json: %s\n", c.path)
	if problem != nil {
		shown := "the defaults"
		if running {
			shown = "what is applied"
		}
		fmt.Fprintf(c.stdout, "It has a problem, so the desired column shows %s: %s\n", shown, problem.Message)
	}
	if running {
		fmt.Fprintf(c.stdout, "appliedConfigHash: %s\n", hash)
		if len(st.PendingRestart) > 0 {
			fmt.Fprintln(c.stdout, "Restart needed: run `workrail restart`, then reload your IDE's MCP server.")
		}
	}
	return nil
}
