package login

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/workrail/workrail/server/home"
)

// clock is a settable clock for a test.
type clock struct{ t time.Time }

func (c *clock) now() time.Time      { return c.t }
func (c *clock) add(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *clock               { return &clock{t: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)} }

func mustOpen(t *testing.T, h home.Dir, c *clock) *Logins {
	t.Helper()
	l, err := Open(h, c.now, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func mustStart(t *testing.T, l *Logins) string {
	t.Helper()
	id, err := l.Start()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// A login ends when it goes unused for IdleTimeout, and MaxAge after it
// was made however much it is used; until then each use keeps it.
func TestExpiry(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []time.Duration // uses, each after the previous one
		live  bool            // after the last
	}{
		{"just made", []time.Duration{0}, true},
		{"used just before the idle timeout", []time.Duration{IdleTimeout - time.Second}, true},
		{"unused for the idle timeout", []time.Duration{IdleTimeout}, false},
		{"unused for a day", []time.Duration{MaxAge + time.Hour}, false},
		{"used every hour for most of a day", hourly(23), true},
		{"used every hour for a day", hourly(24), false},
		{"used every hour past its max age", hourly(30), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClock()
			l := mustOpen(t, home.Dir(t.TempDir()), c)
			id := mustStart(t, l)
			live := true
			for _, d := range tc.steps {
				c.add(d)
				_, live = l.Check(id)
			}
			if live != tc.live {
				t.Fatalf("live = %v; want %v", live, tc.live)
			}
		})
	}
}

func hourly(n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Hour
	}
	return out
}

// A login is fresh for FreshFor after it was made, whatever its use.
func TestFresh(t *testing.T) {
	c := newClock()
	l := mustOpen(t, home.Dir(t.TempDir()), c)
	id := mustStart(t, l)
	for _, tc := range []struct {
		after time.Duration
		fresh bool
	}{{0, true}, {FreshFor - time.Second, true}, {FreshFor, false}, {time.Hour, false}} {
		at := newClock().t.Add(tc.after)
		c.t = at
		got, ok := l.Check(id)
		if !ok || got.Fresh(at) != tc.fresh {
			t.Errorf("%s after the login: live %v, fresh %v; want fresh %v", tc.after, ok, got.Fresh(at), tc.fresh)
		}
	}
}

// Ids are random and unguessable; the file keeps only their SHA-256,
// private to this user, and a wrong, shortened or empty id opens nothing.
func TestIDsAreKeptHashed(t *testing.T) {
	c := newClock()
	h := home.Dir(t.TempDir())
	l := mustOpen(t, h, c)
	a, b := mustStart(t, l), mustStart(t, l)
	if a == b || len(a) != idLen {
		t.Fatalf("ids %q and %q: want two different %d-character ids", a, b, idLen)
	}
	raw, err := os.ReadFile(h.Path(fileName))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), a) || strings.Contains(string(raw), b) {
		t.Errorf("logins.json holds an id:\n%s", raw)
	}
	if fi, _ := os.Stat(h.Path(fileName)); fi.Mode().Perm() != 0o600 {
		t.Errorf("logins.json mode %v; want 0600", fi.Mode().Perm())
	}
	var f file
	if err := json.Unmarshal(raw, &f); err != nil || len(f.Logins) != 2 {
		t.Fatalf("logins.json = %v (%v); want two logins:\n%s", f, err, raw)
	}
	for _, id := range []string{"", a[:idLen-1], strings.Repeat("A", idLen), hexDigest(f.Logins[0].digest)} {
		if _, ok := l.Check(id); ok {
			t.Errorf("Check(%q) opened a login", id)
		}
	}
}

// Logging out ends that login only; EndAll ends every one and counts them.
func TestEnd(t *testing.T) {
	c := newClock()
	l := mustOpen(t, home.Dir(t.TempDir()), c)
	a, b, old := mustStart(t, l), mustStart(t, l), mustStart(t, l)
	c.add(IdleTimeout - time.Minute)
	l.Check(a)
	l.Check(b)
	if err := l.End(a); err != nil {
		t.Fatal(err)
	}
	if _, ok := l.Check(a); ok {
		t.Error("a login still opens after End")
	}
	if _, ok := l.Check(b); !ok {
		t.Error("End ended another login")
	}
	c.add(2 * time.Minute) // old has expired: it is not counted
	n, err := l.EndAll()
	if err != nil || n != 1 {
		t.Fatalf("EndAll = %d, %v; want 1 (one live, one expired)", n, err)
	}
	if _, ok := l.Check(b); ok {
		t.Error("a login still opens after EndAll")
	}
	if _, ok := l.Check(old); ok {
		t.Error("an expired login opens")
	}
}

// A daemon started again reads the logins that have not expired, with
// their use as of the last save; ended and expired ones stay ended.
func TestRestartKeepsLiveLogins(t *testing.T) {
	c := newClock()
	h := home.Dir(t.TempDir())
	l := mustOpen(t, h, c)
	kept, ended, idle := mustStart(t, l), mustStart(t, l), mustStart(t, l)
	if err := l.End(ended); err != nil {
		t.Fatal(err)
	}
	c.add(IdleTimeout - time.Hour)
	l.Check(kept)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	c.add(2 * time.Hour) // idle has gone unused for IdleTimeout + 1h; kept for 2h
	l = mustOpen(t, h, c)
	defer l.Close()
	for id, want := range map[string]bool{kept: true, ended: false, idle: false} {
		if _, ok := l.Check(id); ok != want {
			t.Errorf("after a restart, login %s opens: %v; want %v", id[:6], ok, want)
		}
	}
}

// A daemon killed without Close has saved its logins' use at most
// saveEvery ago: they end that much early at worst, never late.
func TestUseIsSavedWhileRunning(t *testing.T) {
	c := newClock()
	h := home.Dir(t.TempDir())
	l := mustOpen(t, h, c)
	id := mustStart(t, l)
	c.add(IdleTimeout - time.Minute)
	l.Check(id) // more than saveEvery since the last save: written
	l.unlock()  // killed: no Close
	c.add(IdleTimeout - time.Minute)
	l = mustOpen(t, h, c)
	defer l.Close()
	if _, ok := l.Check(id); !ok {
		t.Fatal("a login used before the kill was forgotten")
	}
}

// A file other users could have written, or one that does not parse,
// is set aside: every login starts over, and the next write replaces it.
func TestUnusableFile(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode os.FileMode
		text string
	}{
		{"writable by others", 0o622, ""},
		{"readable by others", 0o644, ""},
		{"damaged", 0o600, `{"version":1,"logins":[{"sha256":"zz"`},
		{"a newer version", 0o600, `{"version":2,"logins":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClock()
			h := home.Dir(t.TempDir())
			l := mustOpen(t, h, c)
			id := mustStart(t, l)
			l.Close()
			path := h.Path(fileName)
			if tc.text != "" {
				os.WriteFile(path, []byte(tc.text), 0o600)
			}
			os.Chmod(path, tc.mode)
			var logged []string
			l, err := Open(h, c.now, func(f string, a ...any) { logged = append(logged, f) })
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if _, ok := l.Check(id); ok || len(logged) != 1 {
				t.Fatalf("login opens: %v, logged %q; want closed and one line", ok, logged)
			}
			mustStart(t, l)
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
				t.Errorf("the file was not replaced: mode %v", fi.Mode().Perm())
			}
		})
	}
}

// With no daemon running, EndAllIn removes the file and counts the live
// logins; while a daemon holds them it says so and leaves them.
func TestEndAllIn(t *testing.T) {
	c := newClock()
	h := home.Dir(t.TempDir())
	l := mustOpen(t, h, c)
	id := mustStart(t, l)
	mustStart(t, l)
	if _, err := EndAllIn(h, c.t); !errors.Is(err, ErrInUse) {
		t.Fatalf("EndAllIn while a daemon holds the logins = %v; want ErrInUse", err)
	}
	l.Close()
	if n, err := EndAllIn(h, c.t); err != nil || n != 2 {
		t.Fatalf("EndAllIn = %d, %v; want 2", n, err)
	}
	l = mustOpen(t, h, c)
	defer l.Close()
	if _, ok := l.Check(id); ok {
		t.Error("a login ended by EndAllIn opens")
	}
	if n, err := EndAllIn(home.Dir(t.TempDir()), c.t); err != nil || n != 0 {
		t.Errorf("EndAllIn of a home without logins = %d, %v", n, err)
	}
}

// Past maxLogins, the login used least recently gives way.
func TestAtMostMaxLogins(t *testing.T) {
	c := newClock()
	l := mustOpen(t, home.Dir(t.TempDir()), c)
	defer l.Close()
	first := mustStart(t, l)
	ids := []string{first}
	for range maxLogins - 1 {
		c.add(time.Second)
		ids = append(ids, mustStart(t, l))
	}
	c.add(time.Second)
	l.Check(first) // used last: kept
	mustStart(t, l)
	if _, ok := l.Check(first); !ok {
		t.Error("the login used last gave way")
	}
	if _, ok := l.Check(ids[1]); ok {
		t.Error("the login used least recently is still live")
	}
	if len(l.live) != maxLogins {
		t.Errorf("%d logins; want %d", len(l.live), maxLogins)
	}
}
