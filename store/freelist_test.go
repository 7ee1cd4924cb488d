package store

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/store/pagefile"
)

// freelistDB writes a database whose free list is not empty (sessions
// written, then more commits that free the pages they replace) and
// returns its path, its page size and the free list's page id.
func freelistDB(t *testing.T) (string, int, uint64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "free.db")
	s := OpenUnchecked(t, path, Options{}, "the cases damage its free list on purpose")
	for range 20 {
		if _, err := s.Create(func(tx execute.Tx) error { return fillSession(tx, 5) }); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := pagefile.ReadMeta(b)
	if err != nil {
		t.Fatal(err)
	}
	if m.Freelist == pagefile.NoFreelist {
		t.Fatal("the meta page names no free list: the free list is not synced")
	}
	return path, m.PageSize, m.Freelist
}

// patch rewrites the file at path with edit applied to its bytes.
func patch(t *testing.T, path string, edit func([]byte)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edit(b)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A free list that names a page in use, or is not a free list at all, is
// damage: bbolt would hand that page to the next write and overwrite
// live records. The check refuses the file before bbolt trusts it.
func TestFreelistThatWouldReuseALivePageIsDamage(t *testing.T) {
	cases := []struct {
		name string
		edit func(b []byte, pageSize int, id uint64)
		want string
	}{
		{"a page in use listed as free", func(b []byte, ps int, id uint64) {
			hdr := b[int(id)*ps:]
			binary.LittleEndian.PutUint16(hdr[10:], 1)
			binary.LittleEndian.PutUint64(hdr[pagefile.HeaderSize:], rootPage(t, b))
		}, "is listed as free but"},
		{"a page past the end listed as free", func(b []byte, ps int, id uint64) {
			hdr := b[int(id)*ps:]
			binary.LittleEndian.PutUint16(hdr[10:], 1)
			binary.LittleEndian.PutUint64(hdr[pagefile.HeaderSize:], 1<<40)
		}, "is listed as free but"},
		{"a count that does not fit", func(b []byte, ps int, id uint64) {
			binary.LittleEndian.PutUint16(b[int(id)*ps+10:], 0xFFFE)
		}, "do not fit"},
		{"not a free list page", func(b []byte, ps int, id uint64) {
			binary.LittleEndian.PutUint16(b[int(id)*ps+8:], pagefile.LeafPage)
		}, "does not describe a free list"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path, ps, id := freelistDB(t)
			if err := checkStructure(path, time.Second); err != nil {
				t.Fatalf("pristine file: %v", err)
			}
			patch(t, path, func(b []byte) { c.edit(b, ps, id) })
			err := checkStructure(path, time.Second)
			var d *DamagedError
			if !errors.As(err, &d) {
				t.Fatalf("check = %v; want a DamagedError", err)
			}
			if !strings.Contains(strings.Join(d.Problems, "\n"), c.want) {
				t.Fatalf("problems %q; want one saying %q", d.Problems, c.want)
			}
			if _, err := Open(path, Options{}); !errors.As(err, &d) {
				t.Fatalf("Open = %v; want a DamagedError", err)
			}
		})
	}
}

// rootPage is the page holding the root bucket's tree: always in use.
func rootPage(t *testing.T, b []byte) uint64 {
	t.Helper()
	m, err := pagefile.ReadMeta(b)
	if err != nil {
		t.Fatal(err)
	}
	return m.Root
}
