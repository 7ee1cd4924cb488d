package store_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/store"
)

// manySessions writes n sessions into a new file, one transaction each
// as a daemon does, and returns its path and each session's chain head.
// The first pins a large workflow and snapshot, as real ones are, so the
// snapshots and pinned workflows have pages of their own; the others
// have nodes nodes each.
func manySessions(tb testing.TB, n, nodes int) (string, map[engine.SessionID]engine.Digest) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "workrail.db")
	s := store.OpenChecked(tb, path, store.Options{})
	defer s.Close()
	heads := map[engine.SessionID]engine.Digest{}
	for i := range n {
		var id engine.SessionID
		if i == 0 {
			id = large(tb, s)
		} else {
			id = seed(tb, s, nodes)
		}
		d, err := s.Digest(id)
		if err != nil {
			tb.Fatal(err)
		}
		heads[id] = d
	}
	return path, heads
}

// large creates a session whose pinned workflow and snapshot are 2 KB.
func large(tb testing.TB, s *store.Store) engine.SessionID {
	tb.Helper()
	big := strings.Repeat("large ", 400)
	wf, err := compile.Seal(compile.Workflow{ID: "wr.large", Name: "large", Description: big, Version: "1"})
	if err != nil {
		tb.Fatal(err)
	}
	id, err := s.Create(func(tx execute.Tx) error {
		return executetest.RunOfNodes(tx, wf, 1, func(int) map[string]any { return map[string]any{"notes": big} })
	})
	if err != nil {
		tb.Fatal(err)
	}
	return id
}

// damaged copies the file at src and lets damage change the copy.
func damaged(t *testing.T, src string, damage func(f *os.File, size int64)) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "damaged.db")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	damage(f, int64(len(b)))
	return path
}

// scramble overwrites the header of page id (its id, type and counts).
func scramble(t *testing.T, f *os.File, pageSize int, id uint64) {
	t.Helper()
	if _, err := f.WriteAt([]byte(strings.Repeat("\xa5", 16)), int64(id)*int64(pageSize)); err != nil {
		t.Fatal(err)
	}
}

func salvage(t *testing.T, path string) (store.SalvageReport, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "salvaged.db")
	rep, err := store.Salvage(path, out, store.SalvageOptions{})
	if err != nil {
		t.Fatalf("salvage: %v", err)
	}
	return rep, out
}

func idRange(from, to int) []engine.SessionID {
	var out []engine.SessionID
	for n := from; n <= to; n++ {
		out = append(out, engine.SessionID(n))
	}
	return out
}

// nextID is the id the salvaged file hands out next.
func nextID(t *testing.T, out string) engine.SessionID {
	t.Helper()
	s := mustOpen(t, out)
	return seed(t, s, 0)
}

// Damage above the sessions' own pages (the root bucket's page, the
// branch page at the top of the sessions tree) used to cost every
// session; the page scan finds them all, byte for byte, and the report
// does not pretend to know more than it does.
func TestSalvageFindsSessionsUnderADamagedTree(t *testing.T) {
	const n = 425
	src, heads := manySessions(t, n, 3)
	pageSize, root, buckets := store.Pages(t, src)
	if store.PageFlags(t, src, buckets["sessions"]) != store.BranchPage {
		t.Fatalf("the sessions tree's top page %d is not a branch page; the test needs more sessions", buckets["sessions"])
	}
	for _, tc := range []struct {
		name  string
		page  uint64
		count store.Count
	}{
		{"root", root, store.CountAtLeast},
		{"sessions branch", buckets["sessions"], store.CountCounter},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := damaged(t, src, func(f *os.File, _ int64) { scramble(t, f, pageSize, tc.page) })
			rep, out := salvage(t, path)
			if !slices.Equal(rep.Salvaged, idRange(1, n)) || len(rep.Lost) != 0 || rep.Unreached != 0 {
				t.Fatalf("salvaged %d, lost %d, %d unreached; want all %d sessions", len(rep.Salvaged), len(rep.Lost), rep.Unreached, n)
			}
			if !rep.Scanned || rep.Count != tc.count || rep.Held() != n || rep.DamagedPages != 1 || len(rep.Structure) != 1 {
				t.Fatalf("report: scanned %v, count %s, held %d, %d damaged pages, structure %q", rep.Scanned, rep.Count, rep.Held(), rep.DamagedPages, rep.Structure)
			}
			checkSalvaged(t, tc.name, out, rep, heads)
			if id := nextID(t, out); id != n+1 {
				t.Fatalf("the salvaged file hands out %s next; want ses_%d", id, n+1)
			}
		})
	}
}

// ownPages lists, per session, the pages its records are on in the
// undamaged file at path (its bucket's page and those of its nested
// buckets, overflow included), and the pages the snapshots and pinned
// workflows are on. The sessions are small: each bucket is one leaf.
func ownPages(t *testing.T, path string) (map[engine.SessionID][]uint64, []uint64, int64) {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, PreLoadFreelist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	pages := map[engine.SessionID][]uint64{}
	var shared []uint64
	var used int64
	err = db.View(func(tx *bbolt.Tx) error {
		used = tx.Size()
		leaf := func(b *bbolt.Bucket) []uint64 {
			if b.Root() == 0 {
				return nil // inline in its parent's page
			}
			p, err := tx.Page(int(b.Root()))
			if err != nil || p.Type != "leaf" {
				t.Fatalf("bucket page %d is %+v (%v); want one leaf", b.Root(), p, err)
			}
			var out []uint64
			for i := 0; i <= p.OverflowCount; i++ {
				out = append(out, uint64(p.ID+i))
			}
			return out
		}
		shared = append(leaf(tx.Bucket([]byte("snapshots"))), leaf(tx.Bucket([]byte("workflows")))...)
		if len(shared) < 2 {
			t.Fatal("the snapshots or pinned workflows are inline in the root bucket's page; the test expects pages of their own")
		}
		return tx.Bucket([]byte("sessions")).ForEachBucket(func(k []byte) error {
			b := tx.Bucket([]byte("sessions")).Bucket(k)
			id := engine.SessionID(binary.BigEndian.Uint64(k))
			pages[id] = leaf(b)
			return b.ForEachBucket(func(name []byte) error {
				pages[id] = append(pages[id], leaf(b.Bucket(name))...)
				return nil
			})
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return pages, shared, used
}

// A file cut to 60 % of its length (a copy that stopped, a full disk)
// keeps exactly the sessions whose pages are all in what is left. The
// length is the pages in use: bbolt grows a file ahead of them.
func TestSalvageOfATruncatedFileKeepsTheSessionsWhosePagesAreLeft(t *testing.T) {
	const n = 300
	src, heads := manySessions(t, n, 3)
	pageSize, _, _ := store.Pages(t, src)
	pages, shared, used := ownPages(t, src)
	size := used * 6 / 10
	path := damaged(t, src, func(f *os.File, _ int64) {
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
	})
	left := uint64(size) / uint64(pageSize) // whole pages left
	for _, p := range shared {
		if p >= left {
			t.Fatalf("the snapshots' page %d was cut off (%d pages left); the test expects them kept", p, left)
		}
	}
	var want []engine.SessionID
	for id, ps := range pages {
		if slices.Max(ps) < left {
			want = append(want, id)
		}
	}
	slices.Sort(want)
	if len(want) == 0 || len(want) == n {
		t.Fatalf("%d of %d sessions are whole after the cut; the test needs some of each", len(want), n)
	}
	rep, out := salvage(t, path)
	if !slices.Equal(rep.Salvaged, want) {
		t.Fatalf("salvaged %v\nwant %v", rep.Salvaged, want)
	}
	if rep.Count != store.CountAtLeast || rep.Held() > n || rep.Held() < len(want)+len(rep.Lost) || rep.MissingPages == 0 {
		t.Fatalf("report: count %s, held %d of %d, %d lost, %d unreached, %d pages missing", rep.Count, rep.Held(), n, len(rep.Lost), rep.Unreached, rep.MissingPages)
	}
	for _, l := range rep.Lost {
		if len(pages[l.Session]) == 0 || slices.Max(pages[l.Session]) < left || !strings.HasPrefix(l.Reason, "its pages were found, but ") {
			t.Fatalf("%s lost: %s; its pages are %v, %d pages left", l.Session, l.Reason, pages[l.Session], left)
		}
	}
	checkSalvaged(t, "truncated", out, rep, heads)
}

// grow appends node_created events to session id's run.
func grow(t *testing.T, s *store.Store, id engine.SessionID, nodes int) {
	t.Helper()
	err := s.Update(id, func(tx execute.Tx) error {
		for i := range nodes {
			nid, _ := tx.NewNodeID()
			ref, err := tx.PutSnapshot(run.Snapshot{V: 100 + i, Position: run.Position{Kind: run.Complete}})
			if err != nil {
				return err
			}
			if _, err := tx.Append(1, nid, &event.NodeCreatedData{NodeKind: event.NodeStep, Snapshot: ref}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// bbolt is copy-on-write: after a session advances, freed pages still
// hold its older version. The scan copies the newest log, and refuses to
// roll a session back to an older one when the newest is damaged.
func TestSalvagePicksTheNewestVersionOfASession(t *testing.T) {
	path := filepath.Join(t.TempDir(), "workrail.db")
	s := mustOpen(t, path)
	first := seed(t, s, 3)
	for range 5 {
		seed(t, s, 3)
	}
	grow(t, s, first, 4)
	want, err := s.Digest(first)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	pageSize, root, _ := store.Pages(t, path)
	if n := store.ScannedHeads(t, path, first); n < 2 {
		t.Fatalf("the file holds %d versions of %s; the test needs an older one on a freed page", n, first)
	}
	var current uint64
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *bbolt.Tx) error {
		current = uint64(tx.Bucket([]byte("sessions")).Bucket(binary.BigEndian.AppendUint64(nil, uint64(first))).Root())
		return nil
	})
	db.Close()

	t.Run("newest intact", func(t *testing.T) {
		rep, out := salvage(t, damaged(t, path, func(f *os.File, _ int64) { scramble(t, f, pageSize, root) }))
		if !slices.Equal(rep.Salvaged, idRange(1, 6)) {
			t.Fatalf("salvaged %v, lost %v", rep.Salvaged, rep.Lost)
		}
		got := mustOpen(t, out)
		if d, err := got.Digest(first); err != nil || d != want {
			t.Fatalf("%s salvaged with head %s (%v); want the newest, %s", first, d, err, want)
		}
		if r, err := got.Verify(first); err != nil || !r.OK() || r.Health.LastGood != 11 {
			t.Fatalf("%s: %+v, %v; want 11 verified events", first, r, err)
		}
	})
	t.Run("newest damaged", func(t *testing.T) {
		rep, _ := salvage(t, damaged(t, path, func(f *os.File, _ int64) {
			scramble(t, f, pageSize, root)
			scramble(t, f, pageSize, current)
		}))
		if !slices.Equal(rep.Salvaged, idRange(2, 6)) || len(rep.Lost) != 1 || rep.Lost[0].Session != first ||
			!strings.Contains(rep.Lost[0].Reason, "only a version on freed pages") {
			t.Fatalf("salvaged %v, lost %v; want %s lost as only older versions were found", rep.Salvaged, rep.Lost, first)
		}
	})
}

// sessionPage is the page of session id's bucket in the file at path.
func sessionPage(t *testing.T, path string, id engine.SessionID) uint64 {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var page uint64
	db.View(func(tx *bbolt.Tx) error {
		page = uint64(tx.Bucket([]byte("sessions")).Bucket(binary.BigEndian.AppendUint64(nil, uint64(id))).Root())
		return nil
	})
	return page
}

// A session retention deleted has its pages freed, not erased: the scan
// never brings it back, and when the list of sessions is lost too it
// says the session may have been deleted.
func TestSalvageDoesNotBringBackADeletedSession(t *testing.T) {
	path := filepath.Join(t.TempDir(), "workrail.db")
	s := mustOpen(t, path)
	for range 6 {
		seed(t, s, 3)
	}
	s.Close()
	// Deleted as retention deletes a session's records, in one write.
	const gone = engine.SessionID(6)
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		return tx.Bucket([]byte("sessions")).DeleteBucket(binary.BigEndian.AppendUint64(nil, uint64(gone)))
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if store.ScannedHeads(t, path, gone) == 0 {
		t.Fatalf("the deleted %s's pages were written over; the test needs them", gone)
	}
	pageSize, root, _ := store.Pages(t, path)
	second := sessionPage(t, path, 2)

	t.Run("list intact", func(t *testing.T) {
		rep, _ := salvage(t, damaged(t, path, func(f *os.File, _ int64) { scramble(t, f, pageSize, second) }))
		if !slices.Equal(rep.Salvaged, []engine.SessionID{1, 3, 4, 5}) || len(rep.Lost) != 1 || rep.Lost[0].Session != 2 || rep.Count != store.CountExact {
			t.Fatalf("salvaged %v, lost %v, count %s; want 1, 3 to 5 salvaged, 2 lost, the deleted one in neither", rep.Salvaged, rep.Lost, rep.Count)
		}
	})
	t.Run("root damaged", func(t *testing.T) {
		rep, _ := salvage(t, damaged(t, path, func(f *os.File, _ int64) { scramble(t, f, pageSize, root) }))
		if !slices.Equal(rep.Salvaged, idRange(1, 5)) || len(rep.Lost) != 1 || rep.Lost[0].Session != gone ||
			!strings.Contains(rep.Lost[0].Reason, "the session was deleted, or") {
			t.Fatalf("salvaged %v, lost %v; want 1 to 5 salvaged and %s not brought back", rep.Salvaged, rep.Lost, gone)
		}
	})
}
