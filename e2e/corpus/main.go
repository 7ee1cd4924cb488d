// Command corpus writes the upgrade corpus: for each earlier store schema,
// a database and a session bundle made by the workrail of the commit that
// wrote that schema, used as a user would (its daemon, started by its
// `workrail mcp` shim, driven with raw JSON-RPC lines over stdio). The
// store's tests open every database with the current build, verify it,
// continue its runs, export and import it (store/upgrade_test.go).
//
// For each NAME=COMMIT it checks the commit out into a temporary worktree,
// builds its binary, drives a few runs on a temporary home (a bundled
// workflow advanced with notes, a fork from an earlier token, a
// checkpoint where that version had one, a second session whose last
// attempt was blocked), exports a
// bundle where that version had export, stops the daemon, compacts where
// that version had compact, and writes under -out/NAME: workrail.db.gz,
// keys.json (the test key ring the recorded tokens were signed with),
// bundle.json.gz (when exported) and corpus.json (what the tests
// continue). Run from the repository's root; store/testdata/upgrade/make.sh
// names the commits:
//
//	go run ./e2e/corpus -out store/testdata/upgrade schema-1=72644cd schema-4=68b5267
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

func main() {
	out := flag.String("out", "store/testdata/upgrade", "the corpus `DIR`")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: corpus [-out DIR] NAME=COMMIT…")
		os.Exit(2)
	}
	for _, arg := range flag.Args() {
		name, commit, ok := strings.Cut(arg, "=")
		if !ok {
			fmt.Fprintf(os.Stderr, "corpus: %q is not NAME=COMMIT\n", arg)
			os.Exit(2)
		}
		if err := make1(name, commit, filepath.Join(*out, name)); err != nil {
			fmt.Fprintf(os.Stderr, "corpus: %s (%s): %v\n", name, commit, err)
			os.Exit(1)
		}
		fmt.Printf("%s: written from %s\n", name, commit)
	}
}

// Corpus is what corpus.json says of one database: enough for a test to
// continue each recorded session with the key ring next to it.
type Corpus struct {
	Commit   string    `json:"commit"`
	Schema   int       `json:"schema"`
	Sessions []Session `json:"sessions"`
	// Bundle names the session exported to bundle.json.gz ("" when that
	// version had no export).
	Bundle string `json:"bundle,omitempty"`
}

// Session is one recorded session: the arguments of its last nextCall
// (its tip, to advance) and the advance already made from it (to
// replay).
type Session struct {
	ID       string          `json:"sessionId"`
	Workflow string          `json:"workflowId"`
	Next     json.RawMessage `json:"next"`
	Advanced json.RawMessage `json:"advanced"`
}

func make1(name, commit, dir string) error {
	tmp, err := os.MkdirTemp("", "workrail-corpus-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	tree := filepath.Join(tmp, "tree")
	if err := run("", "git", "worktree", "add", "--detach", tree, commit); err != nil {
		return err
	}
	defer run("", "git", "worktree", "remove", "--force", tree)
	full, err := output(tree, "git", "rev-parse", "HEAD")
	if err != nil {
		return err
	}
	exe := filepath.Join(tmp, "workrail")
	if err := run(tree, "go", "build", "-o", exe, "./cmd/workrail"); err != nil {
		return err
	}
	home := filepath.Join(tmp, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		return err
	}
	c := Corpus{Commit: strings.TrimSpace(full), Schema: schemaOf(tree)}
	if err := drive(exe, home, &c); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if c.Schema >= 3 { // export came with schema 3
		c.Bundle = c.Sessions[0].ID
		if err := workrail(exe, home, "export", c.Bundle, "-o", filepath.Join(dir, "bundle.json.gz")); err != nil {
			return err
		}
	}
	stop(exe, home)
	if c.Schema >= 2 { // compact came with schema 2
		if err := workrail(exe, home, "compact"); err != nil {
			return err
		}
	}
	if err := gzipFile(filepath.Join(home, "workrail.db"), filepath.Join(dir, "workrail.db.gz")); err != nil {
		return err
	}
	keys, err := os.ReadFile(filepath.Join(home, "keys.json"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "keys.json"), keys, 0o644); err != nil {
		return err
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "corpus.json"), append(b, '\n'), 0o644)
}

// schemaOf reads the schema version the checked-out store writes.
func schemaOf(tree string) int {
	b, _ := os.ReadFile(filepath.Join(tree, "store", "store.go"))
	for line := range strings.Lines(string(b)) {
		var v int
		if _, err := fmt.Sscanf(strings.TrimSpace(line), "const SchemaVersion = %d", &v); err == nil {
			return v
		}
	}
	return 0
}

// drive records two sessions through the shim: wr.hello advanced with
// notes, forked from its first step's token and checkpointed where the
// version has checkpoint_workflow, and wr.bug_investigation advanced
// once, then blocked (its evidence step needs the user's answer, which
// the recorded attempt does not carry).
func drive(exe, home string, c *Corpus) error {
	sh, err := startShim(exe, home)
	if err != nil {
		return err
	}
	defer sh.close()
	tools, err := sh.call("tools/list", map[string]any{})
	if err != nil {
		return err
	}
	first, err := sh.tool("start_workflow", map[string]any{"workflowId": "wr.hello"})
	if err != nil {
		return err
	}
	step, err := sh.advance(first, "# Greeting the repository\nSaid hello to a repository whose first notes are long enough to be cut by any title rule shorter than eighty runes.")
	if err != nil {
		return err
	}
	// A rewound chat: the first step's token again, advanced another way.
	again, err := sh.tool("continue_workflow", map[string]any{"stateToken": first["stateToken"]})
	if err != nil {
		return err
	}
	if _, err := sh.advance(again, "A second look from the start: a fork of the first step."); err != nil {
		return err
	}
	if strings.Contains(string(tools), `"checkpoint_workflow"`) {
		if _, err := sh.tool("checkpoint_workflow", map[string]any{"stateToken": step["stateToken"], "checkpointToken": step["checkpointToken"],
			"output": map[string]any{"notesMarkdown": "Checkpoint: halfway through."}}); err != nil {
			return err
		}
	}
	if err := c.record(sh, step, "wr.hello", "Looked around: nothing surprising."); err != nil {
		return err
	}
	bug, err := sh.tool("start_workflow", map[string]any{"workflowId": "wr.bug_investigation"})
	if err != nil {
		return err
	}
	bug, err = sh.advance(bug, "Triage: the login page times out after an upgrade.")
	if err != nil {
		return err
	}
	return c.record(sh, bug, "wr.bug_investigation", "Evidence: the server log shows a lock wait.")
}

// record advances step with notes and keeps the session: the advance
// made (to replay) and the step it led to (to advance).
func (c *Corpus) record(sh *shim, step map[string]any, wf, notes string) error {
	args := nextArgs(step, notes)
	next, err := sh.tool("continue_workflow", args)
	if err != nil {
		return err
	}
	advanced, _ := json.Marshal(args)
	following, _ := json.Marshal(nextArgs(next, ""))
	session, _ := next["session"].(map[string]any)
	id, _ := session["sessionId"].(string)
	c.Sessions = append(c.Sessions, Session{ID: id, Workflow: wf, Next: following, Advanced: advanced})
	return nil
}

// nextArgs are step's nextCall arguments, with notes when not empty.
func nextArgs(step map[string]any, notes string) map[string]any {
	nc, _ := step["nextCall"].(map[string]any)
	args, _ := nc["arguments"].(map[string]any)
	out := map[string]any{}
	for k, v := range args {
		out[k] = v
	}
	if notes != "" {
		out["output"] = map[string]any{"notesMarkdown": notes}
	}
	return out
}

// shim is a `workrail mcp` process spoken to in JSON-RPC lines.
type shim struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

func startShim(exe, home string) (*shim, error) {
	cmd := exec.Command(exe, "mcp")
	cmd.Env = env(home)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	sh := &shim{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	if _, err := sh.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "corpus", "version": "1"}}); err != nil {
		sh.close()
		return nil, err
	}
	fmt.Fprintln(sh.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return sh, nil
}

func (sh *shim) close() {
	sh.in.Close()
	sh.cmd.Wait()
}

// call sends one request and returns its result.
func (sh *shim) call(method string, params any) (json.RawMessage, error) {
	sh.id++
	line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": sh.id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	if _, err := sh.in.Write(append(line, '\n')); err != nil {
		return nil, err
	}
	for {
		b, err := sh.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		var resp struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(b, &resp); err != nil {
			return nil, fmt.Errorf("%s: %w: %s", method, err, b)
		}
		if resp.ID == nil || *resp.ID != sh.id {
			continue // a notification
		}
		if resp.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, resp.Error)
		}
		return resp.Result, nil
	}
}

// tool calls a tool and returns its structured result, which must not be
// an error.
func (sh *shim) tool(name string, args map[string]any) (map[string]any, error) {
	raw, err := sh.call("tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return nil, err
	}
	var res struct {
		IsError    bool           `json:"isError"`
		Structured map[string]any `json:"structuredContent"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, err
	}
	if res.IsError || res.Structured == nil || res.Structured["kind"] == "error" {
		return nil, fmt.Errorf("%s answered: %s", name, raw)
	}
	return res.Structured, nil
}

// advance sends step's nextCall with notes.
func (sh *shim) advance(step map[string]any, notes string) (map[string]any, error) {
	return sh.tool("continue_workflow", nextArgs(step, notes))
}

func env(home string) []string {
	return append(os.Environ(), "WORKRAIL_HOME="+home)
}

func workrail(exe, home string, args ...string) error {
	cmd := exec.Command(exe, args...)
	cmd.Env = env(home)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("workrail %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// stop ends the home's daemon: `workrail stop` where the version had it,
// else SIGTERM to the pid daemon.json names. It waits for the file lock
// to be free.
func stop(exe, home string) {
	if workrail(exe, home, "stop") == nil {
		return
	}
	b, err := os.ReadFile(filepath.Join(home, "daemon.json"))
	if err != nil {
		return
	}
	var info struct {
		PID int `json:"pid"`
	}
	if json.Unmarshal(b, &info) != nil || info.PID == 0 {
		return
	}
	syscall.Kill(info.PID, syscall.SIGTERM)
	for i := 0; i < 100 && syscall.Kill(info.PID, 0) == nil; i++ {
		time.Sleep(100 * time.Millisecond)
	}
}

func gzipFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return err
	}
	zw.Write(b)
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(dst, buf.Bytes(), 0o644)
}

func run(dir, name string, args ...string) error {
	_, err := output(dir, name, args...)
	return err
}

func output(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", errors.Join(fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err), errors.New(stderr.String()))
	}
	return string(out), nil
}
