package pagefile_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workrail/workrail/store/pagefile"
	"go.etcd.io/bbolt"
)

// written is a real bbolt file: bucket "a" with 2,000 entries (pages of
// its own) and a nested bucket "n" small enough to be inline, and bucket
// "s" whose sequence is 7. It returns the path and bucket a's root page.
func written(t *testing.T) (string, uint64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.db")
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	var root uint64
	err = db.Update(func(tx *bbolt.Tx) error {
		a, _ := tx.CreateBucket([]byte("a"))
		for i := range 2000 {
			if err := a.Put(fmt.Appendf(nil, "k%05d", i), bytes.Repeat([]byte{byte(i)}, 40)); err != nil {
				return err
			}
		}
		n, _ := a.CreateBucket([]byte("n"))
		n.Put([]byte("x"), []byte("y"))
		s, _ := tx.CreateBucket([]byte("s"))
		return s.SetSequence(7)
	})
	if err == nil {
		err = db.View(func(tx *bbolt.Tx) error { root = uint64(tx.Bucket([]byte("a")).Root()); return nil })
	}
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	return path, root
}

// A whole file reads back as bbolt wrote it, with no problems.
func TestReadWholeFile(t *testing.T) {
	path, _ := written(t)
	root, problems, err := pagefile.Read(path, true)
	if err != nil || len(problems) != 0 {
		t.Fatalf("Read = %v, %q; want no problems", err, problems)
	}
	a := root.Buckets["a"]
	if a == nil || len(a.Entries) != 2000 || !bytes.Equal(a.Entries["k01999"], bytes.Repeat([]byte{byte(1999 % 256)}, 40)) {
		t.Fatalf("bucket a: %d entries", len(a.Entries))
	}
	if n := a.Buckets["n"]; n == nil || string(n.Entries["x"]) != "y" || root.Buckets["s"].Seq != 7 || root.Damaged() {
		t.Fatalf("nested bucket or sequence not read: %+v", root.Buckets["s"])
	}
}

// Damage is reported where it is, never followed; a file with no valid
// meta page is not a database at all.
func TestReadReportsDamage(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(b []byte, root uint64)
		want string
	}{
		{"a page's header scrambled", func(b []byte, root uint64) { copy(b[root*4096:], bytes.Repeat([]byte{0xa5}, 16)) }, "header names page"},
		{"a page of an unknown type", func(b []byte, root uint64) { b[root*4096+8] ^= 0x40 }, "unexpected page type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, root := written(t)
			edit(t, path, func(b []byte) { tc.edit(b, root) })
			got, problems, err := pagefile.Read(path, true)
			if err != nil || !strings.Contains(strings.Join(problems, "\n"), fmt.Sprintf("page %d: %s", root, tc.want)) || !got.Buckets["a"].Damaged() {
				t.Fatalf("Read = %v, %q; want bucket a damaged at page %d: %s", err, problems, root, tc.want)
			}
		})
	}
	path, _ := written(t)
	edit(t, path, func(b []byte) { b[16] ^= 0xff; b[4096+16] ^= 0xff })
	if _, _, err := pagefile.Read(path, false); !errors.Is(err, pagefile.ErrNotBolt) {
		t.Fatalf("both meta pages broken: %v; want ErrNotBolt", err)
	}
}

// A scan hands every leaf page to its visitor, whatever the tree says:
// with bucket a's root scrambled, its leaves are still found.
func TestScanFindsLeavesBelowDamage(t *testing.T) {
	path, root := written(t)
	edit(t, path, func(b []byte) { copy(b[root*4096:], bytes.Repeat([]byte{0xa5}, 16)) })
	keys := 0
	sum, err := pagefile.Scan(path, func(p []byte, inUse bool) bool {
		els, ok := pagefile.Elements(p)
		for _, el := range els {
			if bytes.HasPrefix(el.Key, []byte("k")) && inUse {
				keys++
			}
		}
		return ok
	})
	if err != nil || keys != 2000 || sum.Damaged != 1 || sum.Missing != 0 {
		t.Fatalf("Scan = %+v, %v, %d keys; want 2000 keys and the one damaged page", sum, err, keys)
	}
}

func edit(t *testing.T, path string, f func([]byte)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f(b)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
