package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/workrail/workrail/server"
	"github.com/workrail/workrail/server/home"
)

func runDaemon(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("daemon", flag.ContinueOnError)
	port := fs.Int("port", defaultPort(), "TCP port of the Console and HTTP MCP endpoint on 127.0.0.1 (0 picks a free one; env WORKRAIL_PORT)")
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
	d, st, err := startDaemon(h, *port, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "workrail:", err)
		return 1
	}
	defer st.Close()
	banner(stdout, h, d)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	code := 0
	select {
	case s := <-sig:
		fmt.Fprintf(stderr, "workrail: %s: shutting down\n", s)
	case err := <-d.Errs():
		fmt.Fprintln(stderr, "workrail: listener stopped:", err)
		code = 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := d.Shutdown(ctx); err != nil {
		fmt.Fprintln(stderr, "workrail: shutdown:", err)
		return 1
	}
	return code
}

func defaultPort() int {
	if p, err := strconv.Atoi(os.Getenv("WORKRAIL_PORT")); err == nil {
		return p
	}
	return server.DefaultPort
}

// banner prints where the Console is and how to register WorkRail in an IDE.
func banner(w io.Writer, h home.Dir, d *server.Daemon) {
	exe := executable()
	fmt.Fprintf(w, "WorkRail %s is running.\n\n", version)
	fmt.Fprintf(w, "  Console:  %s/\n  Home:     %s\n\n", d.URL(), h)
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
