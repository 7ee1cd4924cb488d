package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"syscall"

	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/server/shim"
)

// runShim is `workrail mcp`. Nothing but protocol bytes may reach stdout.
func runShim(args []string, stdout, stderr io.Writer) int {
	args, code, done := noFlags("mcp", args, stdout, stderr)
	if done {
		return code
	}
	if len(args) > 0 {
		fmt.Fprintf(stderr, "workrail mcp: takes no arguments (got %q); set WORKRAIL_HOME or WORKRAIL_PORT in the environment instead\n", args)
		return 2
	}
	h, err := home.Resolve()
	if err != nil {
		fmt.Fprintln(stderr, "workrail mcp:", err)
		return 1
	}
	logger := log.New(stderr, "workrail mcp: ", log.LstdFlags)
	s := shim.New(shim.Config{Home: h, StartDaemon: func() (<-chan struct{}, error) { return startDetached(h) }, Log: logger}, os.Stdout)
	if err := s.Run(context.Background(), os.Stdin); err != nil {
		logger.Print(err)
		return 1
	}
	return 0
}

// startDetached launches `workrail daemon` in its own session, logging to
// the home folder. The channel closes if the daemon exits; waiting on it
// also reaps it, so a dead daemon never lingers as a zombie that looks
// alive.
func startDetached(h home.Dir) (<-chan struct{}, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	logf, err := os.OpenFile(h.DaemonLog(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command(exe, "daemon")
	cmd.Env = append(os.Environ(), "WORKRAIL_HOME="+string(h))
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	return exited, nil
}
