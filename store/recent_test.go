package store_test

import (
	"path/filepath"
	"slices"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/store"
)

// recent lists the sessions written before below, latest first, at most
// n of them, and the cursor of the next page.
func recent(t *testing.T, s *store.Store, below execute.Write, n int) ([]engine.SessionID, execute.Write) {
	t.Helper()
	var ids []engine.SessionID
	var next execute.Write
	err := s.Recent(below, func(id engine.SessionID, w execute.Write, _ project.Overview, err error) bool {
		if err != nil {
			t.Fatalf("Recent: %s: %v", id, err)
		}
		if len(ids) == n {
			return false
		}
		ids, next = append(ids, id), w
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids, next
}

func appendNote(t *testing.T, s *store.Store, id engine.SessionID) {
	t.Helper()
	err := s.Update(id, func(tx execute.Tx) error {
		_, err := tx.Append(1, 1, &event.NodeOutputAppendedData{StepID: "s", NotesMarkdown: "more"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The session written last comes first, whatever its id; a write that
// appends nothing moves nothing; pages follow the cursor, and a session
// written while a reader pages moves above the page, never onto two.
func TestRecentOrdersByLastWrite(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "w.db"))
	a, b, c := seed(t, s, 2), seed(t, s, 2), seed(t, s, 2)
	if got, _ := recent(t, s, 0, 10); !slices.Equal(got, []engine.SessionID{c, b, a}) {
		t.Fatalf("fresh sessions listed %v; want newest first", got)
	}
	appendNote(t, s, a)
	if err := s.Update(b, func(execute.Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if got, _ := recent(t, s, 0, 10); !slices.Equal(got, []engine.SessionID{a, c, b}) {
		t.Fatalf("after writing %s: %v; want it first, and the empty write to move nothing", a, got)
	}
	first, cursor := recent(t, s, 0, 2)
	appendNote(t, s, b) // written while the reader is on page 1
	rest, _ := recent(t, s, cursor, 10)
	if !slices.Equal(first, []engine.SessionID{a, c}) || len(rest) != 0 {
		t.Fatalf("pages %v then %v; want [a c] then nothing (b moved above them)", first, rest)
	}
	if top, _ := recent(t, s, 0, 1); !slices.Equal(top, []engine.SessionID{b}) {
		t.Fatalf("the top is %v; want %s, written last", top, b)
	}
}

// writeOf is the write sequence Recent gives session id.
func writeOf(t *testing.T, s *store.Store, id engine.SessionID) execute.Write {
	t.Helper()
	var out execute.Write
	if err := s.Recent(0, func(got engine.SessionID, w execute.Write, _ project.Overview, _ error) bool {
		if got == id {
			out = w
		}
		return out == 0
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// A session written again while it is the last written keeps its number
// (and its place); written after another, it takes a higher one than
// every session.
func TestRewritingTheLastSessionKeepsItsNumber(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "w.db"))
	a, b := seed(t, s, 2), seed(t, s, 2)
	wb := writeOf(t, s, b)
	appendNote(t, s, b)
	appendNote(t, s, b)
	if got := writeOf(t, s, b); got != wb {
		t.Fatalf("the last session written again moved from %d to %d", wb, got)
	}
	appendNote(t, s, a)
	if wa := writeOf(t, s, a); wa <= wb {
		t.Fatalf("%s written after %s got %d, not above %d", a, b, wa, wb)
	}
	appendNote(t, s, b)
	if got, _ := recent(t, s, 0, 10); !slices.Equal(got, []engine.SessionID{b, a}) || writeOf(t, s, b) <= writeOf(t, s, a) {
		t.Fatalf("after writing %s again: %v; want it first", b, got)
	}
}

// A file of schema 5 has no write sequence: opening it numbers its
// sessions by their last write's time, then their ids, and deletes take
// a session out of it.
func TestRecentIsFilledOnUpgradeAndForgetsDeleted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	s := store.OpenChecked(t, path, store.Options{})
	a, b, c := seed(t, s, 2), seed(t, s, 2), seed(t, s, 2)
	s.Close()
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		for _, name := range []string{"recent", "written"} {
			if err := tx.DeleteBucket([]byte(name)); err != nil {
				return err
			}
		}
		act := tx.Bucket([]byte("activity"))
		for id, at := range map[engine.SessionID]uint64{a: 300, b: 100, c: 200} {
			if err := act.Put(be(uint64(id)), be(at)); err != nil {
				return err
			}
		}
		return tx.Bucket([]byte("meta")).Put([]byte("schema"), be(5))
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	s = mustOpen(t, path)
	if got, _ := recent(t, s, 0, 10); !slices.Equal(got, []engine.SessionID{a, c, b}) {
		t.Fatalf("after the upgrade: %v; want by last write's time", got)
	}
	d, err := s.Replace(c, func(_ execute.ReadTx, tx execute.Tx) error {
		_, err := tx.Append(0, 0, &event.SessionCreatedData{CreatedAt: "2026-01-01T00:00:00Z"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := recent(t, s, 0, 10); !slices.Equal(got, []engine.SessionID{d, a, b}) {
		t.Fatalf("after replacing %s by %s: %v", c, d, got)
	}
}

func be(n uint64) []byte {
	return []byte{byte(n >> 56), byte(n >> 48), byte(n >> 40), byte(n >> 32), byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
}
