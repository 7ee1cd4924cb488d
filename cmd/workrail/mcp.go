package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
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
	logger := shimLogger(h, stderr)
	// A write to a closed stdout or stderr fails with EPIPE instead of
	// killing the shim: the shim then ends quietly (a closed stdout means
	// the IDE has gone), and a log line nobody reads is no reason to die.
	signal.Ignore(syscall.SIGPIPE)
	wd, _ := os.Getwd() // none: the daemon observes nothing for this IDE
	s := shim.New(shim.Config{Home: h, Version: version, StartDaemon: func() (<-chan struct{}, error) { return startDetached(h) }, Log: logger, Workdir: wd}, os.Stdout)
	if err := s.Run(context.Background(), os.Stdin); err != nil {
		logger.Print(err)
		return 1
	}
	return 0
}

// startDetached launches `workrail daemon --any-port` in its own session,
// logging to the home folder: a port another program holds must not keep
// the IDE's daemon from starting (shims find it by its socket, and
// daemon.json records the Console's URL). The channel closes if the daemon
// exits; waiting on it also reaps it, so a dead daemon never lingers as a
// zombie that looks alive.
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
	// The banner it gets holds a login link: only this user may read it,
	// whatever mode an older file had.
	if err := logf.Chmod(0o600); err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, "daemon", "--any-port")
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
