package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/workrail/workrail/cmd/workrail/daemon"
	"github.com/workrail/workrail/server"
	"github.com/workrail/workrail/server/config"
	"github.com/workrail/workrail/server/home"
)

func runDaemon(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("daemon", flag.ContinueOnError)
	port := fs.Int("port", config.DefaultPort, "TCP port of the Console and HTTP MCP endpoint on 127.0.0.1 (0 picks a free one; "+
		"else WORKRAIL_PORT, else \"port\" in config.json)")
	anyPort := fs.Bool("any-port", false, "if the port is taken, take a free one (the shim passes this)")
	verbose := fs.Bool("verbose", false, "also write the log (a line per tool call, and every error) to stderr")
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "workrail daemon: unexpected argument %q\n\n", fs.Arg(0))
		commandUsage(fs, stderr)
		return 2
	}
	h, err := home.Resolve()
	if err != nil {
		fmt.Fprintln(stderr, "workrail:", err)
		return 1
	}
	daemon.KeepHeapFloor(daemon.HeapFloor)
	listen := choosePort(fs, *port)
	d, err := daemon.New(daemon.Config{Home: h, Port: daemon.Port{Port: listen.port, Given: listen.given}, AnyPort: *anyPort,
		Version: version, Snippets: snippets(executable(), h), Log: daemon.NewLog(h, *verbose, stderr)})
	if err != nil {
		fmt.Fprintln(stderr, "workrail:", err)
		return 1
	}
	banner(stdout, h, d.Server())
	ctx, signalled := context.WithCancelCause(context.Background())
	sig, served := make(chan os.Signal, 1), make(chan struct{})
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer func() { signal.Stop(sig); close(served) }()
	go func() {
		select {
		case s := <-sig:
			signalled(fmt.Errorf("%s", s)) // the cause names the signal
		case <-served:
		}
	}()
	code, restart := 0, false
	switch a, err := d.Run(ctx); {
	case err != nil:
		fmt.Fprintln(stderr, "workrail:", err)
		code = 1
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "workrail: %s: shutting down\n", context.Cause(ctx))
	default:
		fmt.Fprintf(stderr, "workrail: asked to %s\n", a)
		restart = a == server.ActionRestart
	}
	closing, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := d.Close(closing); err != nil {
		fmt.Fprintln(stderr, "workrail: shutdown:", err)
		return 1
	}
	if restart {
		return restartInPlace(listen, d.Server().Port(), stderr)
	}
	return code
}

// portChoice is the port a daemon listens on, and whether the command line
// or the environment chose it (else config.json does), and which.
type portChoice struct {
	port  int
	given bool
	flag  bool // --port chose it, not WORKRAIL_PORT
}

// choosePort reads --port, then WORKRAIL_PORT; neither leaves the port to
// config.json.
func choosePort(fs *flag.FlagSet, port int) portChoice {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "port" })
	if given {
		return portChoice{port: port, given: true, flag: true}
	}
	if p, err := strconv.Atoi(os.Getenv("WORKRAIL_PORT")); err == nil {
		return portChoice{port: p, given: true}
	}
	return portChoice{}
}

// restartInPlace runs this program again in this process, with the same
// arguments and environment: same pid, so whatever started the daemon (a
// shim, a terminal) keeps it. The store and listeners are closed, and Go
// opens every file close-on-exec, so the new daemon finds them free. A
// port chosen by --port or WORKRAIL_PORT (0 included) is kept, so open
// Console pages find the daemon again: where it was chosen, the bound
// port replaces it, so restarts never add arguments. One config.json chose
// is read anew.
func restartInPlace(listen portChoice, bound int, stderr io.Writer) int {
	fmt.Fprintln(stderr, "workrail: restarting")
	args, env := os.Args, os.Environ()
	switch {
	case listen.flag:
		args = withPort(args, bound)
	case listen.given:
		env = withEnvPort(env, bound)
	}
	err := syscall.Exec(executable(), args, env)
	fmt.Fprintln(stderr, "workrail: restart:", err) // Exec returns only on failure
	return 1
}

// withPort is a daemon's command line args with its --port replaced by
// port: every restart would otherwise add one more. A daemon takes no
// positional arguments, so each argument after the command is a flag or
// a flag's value.
func withPort(args []string, port int) []string {
	out := []string{args[0]}
	for i := 1; i < len(args); i++ {
		name, _, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !strings.HasPrefix(args[i], "-") || name != "port" {
			out = append(out, args[i])
			continue
		}
		if !hasValue {
			i++ // the value is the next argument
		}
	}
	return append(out, "--port", strconv.Itoa(port))
}

// withEnvPort is env with WORKRAIL_PORT set to port, once.
func withEnvPort(env []string, port int) []string {
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "WORKRAIL_PORT=") })
	return append(out, "WORKRAIL_PORT="+strconv.Itoa(port))
}

// banner prints where the Console is and how to register WorkRail in an IDE.
func banner(w io.Writer, h home.Dir, d *server.Daemon) {
	exe := executable()
	fmt.Fprintf(w, "WorkRail %s is running.\n\n", version)
	fmt.Fprintf(w, "  Console:  %s/\n  Log in:   %s\n            (works once, for 10 minutes; `workrail console` opens a fresh one)\n  Home:     %s\n\n", d.URL(), d.LoginURL(), h)
	fmt.Fprintf(w, "Register it in your IDE (it launches `workrail mcp`, which talks to this daemon):\n\n")
	for _, s := range snippets(exe, h) {
		where := ""
		if s.Where != "" {
			where = " (" + s.Where + ")"
		}
		fmt.Fprintf(w, "  %s%s:\n    %s\n\n", s.Client, where, s.Text)
	}
	fmt.Fprintf(w, "  HTTP MCP clients: %s/mcp with header \"Authorization: Bearer <%s>\"\n", d.URL(), h.Path("auth.token"))
	if strings.Contains(exe, "go-build") {
		fmt.Fprintf(w, "\n  (This binary came from `go run` and will vanish; for IDE use run `go install ./cmd/workrail` and use $(go env GOPATH)/bin/workrail.)\n")
	}
	fmt.Fprintln(w, "\nStop with Ctrl-C.")
}

func executable() string {
	exe, err := os.Executable()
	if err != nil {
		return "workrail"
	}
	if abs, err := filepath.EvalSymlinks(exe); err == nil {
		return abs
	}
	return exe
}
