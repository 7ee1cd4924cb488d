package store

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/store/pagefile"
	"github.com/workrail/workrail/store/storetest"
)

// The check OpenChecked runs when a test ends finds nothing on a whole
// file, a session's log changed behind the store's back, and a page
// whose header was overwritten.
func TestCheckAtCleanupFindsDamage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	s := OpenUnchecked(t, path, Options{}, "it damages the file to see the check find it")
	for range 3 {
		if _, err := s.Create(func(tx execute.Tx) error { return fillSession(tx, 3) }); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	if f := append(FileFindings(path), SessionFindings(path)...); len(f) != 0 {
		t.Fatalf("a whole file: %q; want no findings", f)
	}
	err := storetest.Update(path, func(tx storetest.Tx) error {
		ev := tx.Events(2)
		v := bytes.Clone(ev.Get(storetest.EventKey(2)))
		v[len(v)/2] ^= 0x01
		return ev.Put(storetest.EventKey(2), v)
	})
	if err != nil {
		t.Fatal(err)
	}
	if f := SessionFindings(path); len(f) != 1 || !strings.HasPrefix(f[0], "session 2: corrupt_tail") {
		t.Fatalf("an event changed: %q; want session 2's corrupt tail", f)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := pagefile.ReadMeta(b)
	if err != nil {
		t.Fatal(err)
	}
	copy(b[int(m.Root)*m.PageSize:], bytes.Repeat([]byte{0xa5}, 16))
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if f := FileFindings(path); len(f) == 0 {
		t.Fatal("the root page's header overwritten: no findings")
	}
}
