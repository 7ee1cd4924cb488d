package e2e

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// printedLink is a login link from `workrail console --print`.
func printedLink(t testing.TB, home string) string {
	t.Helper()
	out, code := cli(t, home, "console", "--print")
	link := strings.TrimSpace(out[strings.LastIndex(out, "\n  ")+1:])
	if code != 0 || !strings.Contains(link, "/login?token=") {
		t.Fatalf("console --print: exit %d:\n%s", code, out)
	}
	return link
}

// mustLogIn follows a fresh login link and returns the cookie it set.
func mustLogIn(t *testing.T, home string) *http.Cookie {
	t.Helper()
	c, code := logIn(t, printedLink(t, home))
	if c == nil {
		t.Fatalf("a login link = %d, no cookie", code)
	}
	return c
}

var csrfField = regexp.MustCompile(`name="csrf" value="([0-9a-f]{64})"`)

// postWithCookie posts form to u with the cookie c, as a browser posts a
// Console form: the status and body.
func postWithCookie(t *testing.T, u string, c *http.Cookie, form url.Values) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(c)
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A login cookie another local user got hold of (cookies are per host,
// not per port: a page can send the owner's browser to that user's
// server on 127.0.0.1, which then receives the cookie) opens the Console
// only while its login lives. Replayed from another client with nothing
// but the cookie, it reads the Console and may write; after the owner
// logs out, after `workrail keys rotate`, and after `workrail console
// --logout-all`, the same replays get 401. logins.json keeps no cookie.
func TestLeakedCookieReplay(t *testing.T) {
	home := newHome(t)
	base := startDaemon(t, home).info.URL
	planted := 0
	replay := func(t *testing.T, c *http.Cookie, csrf string) (read, write int) {
		t.Helper()
		stolen := &http.Cookie{Name: c.Name, Value: c.Value}
		read, _ = withCookie(t, base+"/workflows", stolen)
		planted++
		write, _ = postWithCookie(t, base+"/workflows/new", stolen, url.Values{"csrf": {csrf}, "name": {"planted_" + strconv.Itoa(planted)}})
		return read, write
	}
	var cookies []string
	for _, tc := range []struct {
		name string
		end  func(t *testing.T, c *http.Cookie, csrf string)
	}{
		{"the owner logs out", func(t *testing.T, c *http.Cookie, csrf string) {
			code, page := postWithCookie(t, base+"/logout", c, url.Values{"csrf": {csrf}})
			if code != http.StatusOK || !strings.Contains(page, "You are logged out") {
				t.Fatalf("Log out = %d:\n%s", code, page)
			}
		}},
		{"keys rotate", func(t *testing.T, _ *http.Cookie, _ string) {
			if out, code := cli(t, home, "keys", "rotate"); code != 0 || !strings.Contains(out, "Ended 1 Console login") {
				t.Fatalf("keys rotate: exit %d:\n%s", code, out)
			}
		}},
		{"console --logout-all", func(t *testing.T, _ *http.Cookie, _ string) {
			if out, code := cli(t, home, "console", "--logout-all"); code != 0 || !strings.Contains(out, "Ended 1 Console login") {
				t.Fatalf("console --logout-all: exit %d:\n%s", code, out)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mustLogIn(t, home)
			cookies = append(cookies, c.Value)
			code, page := withCookie(t, base+"/", c)
			m := csrfField.FindStringSubmatch(page)
			if code != http.StatusOK || m == nil || !strings.Contains(page, `data-testid="logout"`) {
				t.Fatalf("the Console with the cookie = %d, form token %v, or no Log out:\n%s", code, m != nil, page)
			}
			if read, write := replay(t, c, m[1]); read != http.StatusOK || write != http.StatusSeeOther {
				t.Fatalf("the replay before the login ended: read %d, write %d; want 200 and 303 (the test must see it work first)", read, write)
			}
			tc.end(t, c, m[1])
			if read, write := replay(t, c, m[1]); read != http.StatusUnauthorized || write != http.StatusUnauthorized {
				t.Fatalf("the replay after %s: read %d, write %d; want 401 both", tc.name, read, write)
			}
		})
	}
	b, err := os.ReadFile(filepath.Join(home, "logins.json"))
	fi, _ := os.Stat(filepath.Join(home, "logins.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("logins.json: %v, mode %v; want 0600", err, fi.Mode().Perm())
	}
	for _, c := range cookies {
		if strings.Contains(string(b), c) {
			t.Fatalf("logins.json holds a cookie's value:\n%s", b)
		}
	}
}

// Logins outlive the daemon: one killed with SIGKILL and started again
// keeps the login it made, while `workrail keys rotate` and `workrail
// console --logout-all` with no daemon running end the logins the next
// daemon would have kept.
func TestLoginsOutliveTheDaemonUntilEnded(t *testing.T) {
	home := newHome(t)
	// The cookie is named for the port: the daemon comes back on its own.
	port := strings.TrimPrefix(startDaemon(t, home).info.URL, "http://127.0.0.1:")
	for _, tc := range []struct {
		name  string
		args  []string // run with the daemon stopped; none keeps the login
		ended string   // what it says
		want  int
	}{
		{"a daemon started again", nil, "", http.StatusOK},
		// This login and the one kept above.
		{"keys rotate with no daemon", []string{"keys", "rotate"}, "Ended 2 Console logins", http.StatusUnauthorized},
		{"console --logout-all with no daemon", []string{"console", "--logout-all"}, "Ended 1 Console login", http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mustLogIn(t, home)
			stopDaemon(t, home)
			if tc.args != nil {
				code, out, errOut := command(t, home, tc.args...)
				if code != 0 || !strings.Contains(out, tc.ended) {
					t.Fatalf("%s: exit %d:\n%s%s", strings.Join(tc.args, " "), code, out, errOut)
				}
			}
			d, err := launchDaemon(home, "--port", port)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { d.terminate(t) })
			base := d.info.URL
			if code, body := withCookie(t, base+"/", c); code != tc.want {
				t.Fatalf("the cookie after %s = %d; want %d:\n%s", tc.name, code, tc.want, body)
			}
		})
	}
}
