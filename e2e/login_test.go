package e2e

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// noRedirects is a client that shows a login's redirect instead of
// following it.
var noRedirects = &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

var loginLine = regexp.MustCompile(`Log in:\s+(http://\S+/login\?token=\S+)`)

// logIn follows a login link and returns the login cookie it set, or
// nil with the status when it set none.
func logIn(t testing.TB, link string) (*http.Cookie, int) {
	t.Helper()
	resp, err := noRedirects.Get(link)
	if err != nil {
		t.Fatalf("GET %s: %v", link, err)
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if strings.HasPrefix(c.Name, "workrail_console_") && resp.StatusCode == http.StatusSeeOther && resp.Header.Get("Location") == "/" {
			return c, resp.StatusCode
		}
	}
	return nil, resp.StatusCode
}

// withCookie is GET u with the login cookie c: the status and body.
func withCookie(t *testing.T, u string, c *http.Cookie) (int, string) {
	t.Helper()
	code, _, body := get(t, u, "", "Cookie", c.Name+"="+c.Value)
	return code, body
}

func cmdline(t *testing.T, pid int) []string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}

// The daemon prints a login link; `workrail console --print` makes more.
// Each sets the login cookie once. The cookie outlives restarts (an open
// page keeps working), codes do not, and restarting twice leaves the
// daemon's command line as it was (it used to grow a --port each time).
func TestConsoleLoginAndRestart(t *testing.T) {
	home := newHome(t)
	d := startDaemon(t, home)
	base := d.info.URL
	var banner string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := loginLine.FindStringSubmatch(d.stdout.String()); m != nil {
			banner = m[1]
			break
		}
	}
	if !strings.HasPrefix(banner, base+"/login?token=") {
		t.Fatalf("the banner has no login link for %s:\n%s", base, d.stdout)
	}
	cookie, code := logIn(t, banner)
	if cookie == nil {
		t.Fatalf("the banner's link = %d, no login cookie", code)
	}
	if !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode || cookie.Path != "/" {
		t.Errorf("login cookie %+v: want HttpOnly, SameSite=Strict, Path=/", cookie)
	}
	if code, body := withCookie(t, base+"/", cookie); code != http.StatusOK || !strings.Contains(body, `name="csrf"`) && !strings.Contains(body, "X-CSRF-Token") {
		t.Fatalf("GET / with the cookie = %d; want the Console page with its form token", code)
	}
	if again, code := logIn(t, banner); again != nil || code != http.StatusUnauthorized {
		t.Fatalf("the banner's link a second time = %d, cookie %v; want 401 and none", code, again)
	}

	out, code := cli(t, home, "console", "--print")
	link := strings.TrimSpace(out[strings.LastIndex(out, "\n  ")+1:])
	if code != 0 || !strings.HasPrefix(link, base+"/login?token=") {
		t.Fatalf("console --print: exit %d:\n%s", code, out)
	}

	before := cmdline(t, d.info.PID)
	for i := range 2 {
		previous := statusOf(t, home, 0).StartedAt
		if out, code := cli(t, home, "restart"); code != 0 {
			t.Fatalf("restart %d: exit %d:\n%s", i+1, code, out)
		}
		if s := statusOf(t, home, 0); s.PID != d.info.PID || mustInfo(t, home).URL != base || s.StartedAt == previous {
			t.Fatalf("after restart %d: %+v at %s; want pid %d at %s, started again", i+1, s, mustInfo(t, home).URL, d.info.PID, base)
		}
		after := cmdline(t, d.info.PID)
		if len(after) != len(before) || !slices.Contains(after, "--port") {
			t.Fatalf("after restart %d the command line is %q; before it was %q", i+1, after, before)
		}
		if code, _ := withCookie(t, base+"/", cookie); code != http.StatusOK {
			t.Fatalf("after restart %d the login cookie gets %d; want the Console", i+1, code)
		}
	}
	if c, code := logIn(t, link); c != nil || code != http.StatusUnauthorized {
		t.Errorf("a link made before the restart = %d, cookie %v; want 401 (codes live in the daemon's memory)", code, c)
	}
}

// A daemon a shim starts writes its banner, login link included, to
// logs/daemon.log: that file is the owner's only, even when an older
// one was readable by others.
func TestShimStartedDaemonLogIsPrivate(t *testing.T) {
	home := newHome(t)
	log := filepath.Join(home, "logs", "daemon.log")
	if err := os.MkdirAll(filepath.Dir(log), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(log, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(log, 0o644)
	startShim(t, home)
	fi, err := os.Stat(log)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("daemon.log: %v, mode %v; want 0600", err, fi.Mode().Perm())
	}
	var m []string
	for deadline := time.Now().Add(5 * time.Second); m == nil && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(log)
		m = loginLine.FindStringSubmatch(string(b))
	}
	if m == nil {
		t.Fatal("daemon.log has no login link")
	}
	if c, code := logIn(t, m[1]); c == nil {
		t.Fatalf("the link in daemon.log = %d, no cookie", code)
	}
}

// `workrail console` starts a daemon when none runs, like restart; with
// no browser to open it prints the link, and says why on stderr.
func TestConsoleCommandStartsTheDaemonAndPrintsWithoutABrowser(t *testing.T) {
	home := newHome(t)
	cmd := exec.Command(bin, "console")
	cmd.Env = append(procEnv(home), "PATH=/nonexistent")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("workrail console: %v\n%s%s", err, out.String(), stderr.String())
	}
	if !strings.Contains(stderr.String(), "no browser opened") {
		t.Errorf("stderr does not say why it printed the link: %q", stderr.String())
	}
	base := mustInfo(t, home).URL
	link := strings.TrimSpace(out.String()[strings.LastIndex(out.String(), "\n  ")+1:])
	if !strings.HasPrefix(link, base+"/login?token=") {
		t.Fatalf("workrail console printed %q; want a login link for %s", out.String(), base)
	}
	if c, code := logIn(t, link); c == nil {
		t.Fatalf("the printed link = %d, no cookie", code)
	}
}

// A daemon whose port WORKRAIL_PORT chose keeps it over restarts through
// its environment: its arguments stay as they were, and the variable is
// set once, to the port it bound.
func TestRestartKeepsAPortTheEnvironmentChose(t *testing.T) {
	home := newHome(t)
	d, err := launchCommand(home, "daemon") // procEnv sets WORKRAIL_PORT=0
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.terminate(t) })
	for i := range 2 {
		previous := statusOf(t, home, 0).StartedAt
		if out, code := cli(t, home, "restart"); code != 0 {
			t.Fatalf("restart %d: exit %d:\n%s", i+1, code, out)
		}
		if s := statusOf(t, home, 0); s.PID != d.info.PID || mustInfo(t, home).URL != d.info.URL || s.StartedAt == previous {
			t.Fatalf("after restart %d: %+v at %s; want pid %d at %s, started again", i+1, s, mustInfo(t, home).URL, d.info.PID, d.info.URL)
		}
		if args := cmdline(t, d.info.PID); !slices.Equal(args, []string{bin, "daemon"}) {
			t.Fatalf("after restart %d the command line is %q", i+1, args)
		}
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", d.info.PID))
		if err != nil {
			t.Fatal(err)
		}
		var ports []string
		for _, kv := range strings.Split(string(env), "\x00") {
			if v, ok := strings.CutPrefix(kv, "WORKRAIL_PORT="); ok {
				ports = append(ports, v)
			}
		}
		if want := strings.TrimPrefix(d.info.URL, "http://127.0.0.1:"); !slices.Equal(ports, []string{want}) {
			t.Fatalf("after restart %d WORKRAIL_PORT is %q; want once, %s", i+1, ports, want)
		}
	}
}
