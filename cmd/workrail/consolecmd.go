package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"time"

	"github.com/workrail/workrail/server"
	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/server/login"
)

// runConsole is `workrail console`: it asks the daemon, over the socket
// only this user can reach, for a one-time login link and opens it in the
// browser, or prints it (--print, or when no browser opens). A daemon that
// is not running is started, as `workrail restart` does. --logout-all
// ends every Console login instead.
func runConsole(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("console", flag.ContinueOnError)
	printOnly := fs.Bool("print", false, "print the link instead of opening it")
	logoutAll := fs.Bool("logout-all", false, "end every Console login (every browser must log in again), and open nothing")
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "workrail console: unexpected argument %q\n\n", fs.Arg(0))
		commandUsage(fs, stderr)
		return 2
	}
	h, err := home.Resolve()
	if err != nil {
		fmt.Fprintln(stderr, "workrail console:", err)
		return 1
	}
	if *logoutAll {
		n, err := endLogins(h)
		if err != nil {
			fmt.Fprintln(stderr, "workrail console:", err)
			return 1
		}
		fmt.Fprintln(stdout, endedText(n))
		return 0
	}
	link, err := loginLink(h)
	if err != nil {
		fmt.Fprintln(stderr, "workrail console:", err)
		return 1
	}
	if !*printOnly {
		opener, err := openBrowser(link.URL)
		if err == nil {
			fmt.Fprintf(stdout, "Opened the Console in your browser (%s).\n", opener)
			return 0
		}
		fmt.Fprintf(stderr, "workrail console: no browser opened (%v); open the link yourself.\n", err)
	}
	fmt.Fprintf(stdout, "Open this link in your browser to log in to the Console (it works once, for 10 minutes):\n\n  %s\n", link.URL)
	return 0
}

// loginLink asks the home's daemon for a login link, starting the daemon
// when none runs.
func loginLink(h home.Dir) (server.LoginLink, error) {
	var link server.LoginLink
	err := askDaemon(h, "POST", "/api/login-link", &link)
	if !errors.Is(err, errNotRunning) {
		return link, err
	}
	if _, err := startDetached(h); err != nil {
		return link, fmt.Errorf("start the daemon: %w", err)
	}
	if !waitFor(func() bool { err = askDaemon(h, "POST", "/api/login-link", &link); return err == nil }) {
		return link, fmt.Errorf("the daemon did not come up within %s (%v); see %s", lifecycleTimeout, err, h.DaemonLog())
	}
	return link, nil
}

// openBrowser hands url to the desktop's opener and names it. An opener
// still running after a few seconds has handed it on (some wait for the
// browser); one that fails, or none at all, is an error.
func openBrowser(url string) (string, error) {
	opener := "xdg-open"
	if runtime.GOOS == "darwin" {
		opener = "open"
	}
	cmd := exec.Command(opener, url)
	if err := cmd.Start(); err != nil {
		return "", err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			return "", fmt.Errorf("%s: %w", opener, err)
		}
	case <-time.After(5 * time.Second):
	}
	return opener, nil
}

// endLogins ends every Console login of home h and says how many were
// live: the running daemon's, over its socket; with none running, those
// in the home's logins.json. A daemon that is starting holds the file
// before it answers on the socket, so it is asked again until it does.
func endLogins(h home.Dir) (int, error) {
	var n int
	var err error
	done := func() bool {
		var out server.LoggedOut
		if err = askDaemon(h, "POST", "/api/logout-all", &out); !errors.Is(err, errNotRunning) {
			n = out.Ended
			return true
		}
		n, err = login.EndAllIn(h, time.Now())
		return !errors.Is(err, login.ErrInUse)
	}
	if !waitFor(done) {
		return 0, fmt.Errorf("a daemon holds %s but does not answer on %s; stop it, then try again", h.Path("logins.lock"), h.Socket())
	}
	return n, err
}

// endedText says how many logins ended.
func endedText(n int) string {
	switch n {
	case 0:
		return "No Console login was live."
	case 1:
		return "Ended 1 Console login: log in again with `workrail console`."
	}
	return fmt.Sprintf("Ended %d Console logins: log in again with `workrail console`.", n)
}
