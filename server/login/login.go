// Package login keeps the Console's logins. Redeeming a one-time login
// link starts a login: a random id the browser holds in its cookie, of
// which the daemon keeps only the SHA-256, with when the login was made
// and when it was last used, in logins.json in the home folder (0600), so
// a restart keeps the logins that have not expired. A login ends when it
// is unused for IdleTimeout, MaxAge after it was made, when its browser
// logs out, or when every login is ended (`workrail console
// --logout-all`, `workrail keys rotate`). "Login", not "session": in
// WorkRail a session is an agent's run log.
//
// A running daemon holds logins.lock from Open to Close, so a command
// that ends every login with no daemon running (EndAllIn) never races a
// daemon starting up with the logins it read before. It imports nothing
// of the project but server/home.
package login

import (
	"cmp"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/workrail/workrail/server/home"
)

// The lifetimes of a login (DESIGN §8, README).
const (
	// IdleTimeout ends a login nobody used for that long. An open Console
	// tab asks for changes every few seconds while it is visible, which
	// is use; a hidden tab does not.
	IdleTimeout = 8 * time.Hour
	// MaxAge ends a login that long after it was made, however much it
	// is used.
	MaxAge = 24 * time.Hour
	// FreshFor is how long after it was made a login may change what an
	// agent will run (save or fork a workflow, import, restart); after
	// that those writes ask for a new login.
	FreshFor = 15 * time.Minute
)

// maxLogins bounds the logins kept: past it, the one used least recently
// ends. A person has a browser or two; each login needs a link only the
// owner can mint.
const maxLogins = 64

// saveEvery bounds how far the file's last-use times lag behind the
// daemon's: a daemon killed without shutting down forgets at most that
// much use, so its logins may end that much early, never late.
const saveEvery = 5 * time.Minute

// idLen is the length of an id: 32 random bytes in base64url.
const idLen = 43

const (
	fileName = "logins.json"
	lockName = "logins.lock"
)

// ErrInUse means a running daemon holds the logins: ask it to end them.
var ErrInUse = errors.New("login: a running daemon holds the logins")

// Login is a live login, as a request's cookie opens it.
type Login struct {
	// At is when its link was redeemed.
	At time.Time
}

// Fresh says whether the login was made less than FreshFor before now.
func (l Login) Fresh(now time.Time) bool { return now.Sub(l.At) < FreshFor }

// digest is the SHA-256 of an id: all that is kept of it.
type digest [sha256.Size]byte

type record struct {
	at, used time.Time
}

func (r record) expired(now time.Time) bool {
	return now.Sub(r.used) >= IdleTimeout || now.Sub(r.at) >= MaxAge
}

// Logins are a daemon's live logins.
type Logins struct {
	path   string
	now    func() time.Time
	logf   func(string, ...any)
	unlock func()

	mu    sync.Mutex
	live  map[digest]*record
	saved time.Time // when the file was last written
}

// Open takes the home's logins for a daemon: it holds logins.lock until
// Close and reads the logins that have not expired. A file it cannot use
// (damaged, or one other users could have written) is logged and set
// aside: every login starts over, and the next write replaces it.
func Open(h home.Dir, now func() time.Time, logf func(string, ...any)) (*Logins, error) {
	unlock, err := h.Lock(lockName, 10*time.Second)
	if err != nil {
		return nil, fmt.Errorf("login: %w", err)
	}
	l := &Logins{path: h.Path(fileName), now: now, logf: logf, unlock: unlock, live: map[digest]*record{}}
	t := now()
	l.saved = t
	entries, err := readFile(l.path)
	if err != nil {
		logf("login: %v; every Console login starts over", err)
	}
	for _, e := range entries {
		if r := (record{at: e.At, used: e.Used}); !r.expired(t) {
			l.live[e.digest] = &r
		}
	}
	return l, nil
}

// Start begins a login and returns its id, the cookie's value. An error
// says the file could not be written: the login works until the daemon
// stops.
func (l *Logins) Start() (string, error) {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand, Go 1.24+)
	id := base64.RawURLEncoding.EncodeToString(b)
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.sweep(now)
	if len(l.live) >= maxLogins {
		l.dropLeastUsed()
	}
	l.live[sha256.Sum256([]byte(id))] = &record{at: now, used: now}
	return id, l.save(now)
}

// Check finds the live login id names and marks it used.
func (l *Logins) Check(id string) (Login, bool) {
	if len(id) != idLen {
		return Login{}, false
	}
	d := digest(sha256.Sum256([]byte(id)))
	l.mu.Lock()
	defer l.mu.Unlock()
	r, ok := l.live[d]
	if !ok {
		return Login{}, false
	}
	now := l.now()
	if r.expired(now) {
		delete(l.live, d) // the file forgets it at the next save
		return Login{}, false
	}
	r.used = now
	if now.Sub(l.saved) >= saveEvery {
		if err := l.save(now); err != nil {
			l.logf("login: %v; the Console's logins are kept in memory", err)
		}
	}
	return Login{At: r.at}, true
}

// End ends the login id names, if there is one.
func (l *Logins) End(id string) error {
	d := digest(sha256.Sum256([]byte(id)))
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.live[d]; !ok {
		return nil
	}
	delete(l.live, d)
	return l.saveEnded(l.now())
}

// EndAll ends every login and says how many were live.
func (l *Logins) EndAll() (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.sweep(now)
	n := len(l.live)
	clear(l.live)
	return n, l.saveEnded(now)
}

// Close writes the last-use times and lets the file go. Closing again
// only writes them again.
func (l *Logins) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.unlock != nil {
		defer l.unlock()
		l.unlock = nil
	}
	return l.save(l.now())
}

// EndAllIn ends every login of a home whose daemon is not running, and
// says how many had not expired. ErrInUse means a daemon holds them
// (it may be starting): ask it instead.
func EndAllIn(h home.Dir, now time.Time) (int, error) {
	unlock, err := h.Lock(lockName, 0)
	if err != nil {
		return 0, ErrInUse
	}
	defer unlock()
	entries, _ := readFile(h.Path(fileName)) // a file that cannot be read is removed all the same
	n := 0
	for _, e := range entries {
		if !(record{at: e.At, used: e.Used}).expired(now) {
			n++
		}
	}
	if err := removeFile(h.Path(fileName)); err != nil {
		return n, err
	}
	return n, nil
}

// sweep forgets the logins that have expired.
func (l *Logins) sweep(now time.Time) {
	for d, r := range l.live {
		if r.expired(now) {
			delete(l.live, d)
		}
	}
}

func (l *Logins) dropLeastUsed() {
	var oldest digest
	var used time.Time
	for d, r := range l.live {
		if used.IsZero() || r.used.Before(used) {
			oldest, used = d, r.used
		}
	}
	delete(l.live, oldest)
}

// save writes the live logins to the file.
func (l *Logins) save(now time.Time) error {
	l.saved = now
	l.sweep(now)
	entries := make([]entry, 0, len(l.live))
	for d, r := range l.live {
		entries = append(entries, entry{digest: d, At: r.at, Used: r.used})
	}
	slices.SortFunc(entries, func(a, b entry) int {
		return cmp.Or(a.At.Compare(b.At), slices.Compare(a.digest[:], b.digest[:]))
	})
	return writeFile(l.path, entries)
}

// saveEnded writes the file after logins ended. If it cannot be written,
// it is removed, so a restart brings back no ended login (it ends every
// login instead); an error says neither could be done.
func (l *Logins) saveEnded(now time.Time) error {
	err := l.save(now)
	if err == nil {
		return nil
	}
	if rerr := removeFile(l.path); rerr != nil {
		return fmt.Errorf("%w; ended logins come back if the daemon restarts: remove %s by hand", errors.Join(err, rerr), l.path)
	}
	l.logf("login: %v; removed %s instead, so every login ends when the daemon restarts", err, l.path)
	return nil
}

// hexDigest is how the file writes a digest.
func hexDigest(d digest) string { return hex.EncodeToString(d[:]) }
