package store_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/store"
)

// Compacting after a sweep gives the space back; every session comes
// through with the same log, health and retention clock, and ids go on
// where they were.
func TestCompactShrinksAndKeepsEverySession(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	c := &clock{t: t0}
	s := openAt(t, path, c)
	for i := range 150 {
		session(t, s, "wr.old", string(rune('a'+i%26))+string(rune('a'+i/26)), 6)
	}
	c.set(t0.Add(50 * day))
	var kept []engine.SessionID
	for range 10 {
		kept = append(kept, session(t, s, "wr.new", "new", 4))
	}
	c.set(t0.Add(61 * day))
	if res := mustSweep(t, s, 60); len(res.Deleted) != 150 {
		t.Fatalf("sweep deleted %d sessions; want 150", len(res.Deleted))
	}
	digests := map[engine.SessionID]engine.Digest{}
	for _, id := range kept {
		digests[id], _ = s.Digest(id)
	}
	s.Close()

	res, err := store.Compact(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if res.BytesAfter >= res.BytesBefore || res.BytesAfter != fi.Size() || res.Sessions != 10 || res.Path != path {
		t.Fatalf("Compact = %+v (file now %d bytes); want it smaller, 10 sessions", res, fi.Size())
	}
	if left, _ := filepath.Glob(path + ".compact-*"); len(left) != 0 {
		t.Fatalf("left behind: %v", left)
	}
	s = openAt(t, path, c)
	mustHealthy(t, s)
	if got, _ := s.SessionIDs(); !reflect.DeepEqual(got, kept) {
		t.Fatalf("sessions after compacting: %v; want %v", got, kept)
	}
	for id, d := range digests {
		if got, _ := s.Digest(id); got != d {
			t.Fatalf("%s ends on %s after compacting, %s before", id, got, d)
		}
	}
	if err := extend(s, kept[0]); err != nil {
		t.Fatal(err)
	}
	if next := session(t, s, "wr.new", "new", 1); next != 161 {
		t.Fatalf("the next session is %s; want ses_161", next)
	}
	c.set(t0.Add(111 * day))
	if plan, _ := s.SweepPlan(60); len(plan.Stale) != 9 || plan.Unclocked != 0 {
		t.Fatalf("plan after compacting = %+v; want the 9 sessions unwritten since day 50", plan)
	}
}

// A damaged session is copied as it is: compacting neither repairs nor
// drops it, and doctor says the same of it before and after.
func TestCompactCopiesADamagedSessionAsItIs(t *testing.T) {
	store.UncheckedSessions(t, "it damages session 2's log to see compact copy it as it is")
	path := filepath.Join(t.TempDir(), "w.db")
	s := mustOpen(t, path)
	good, bad := seed(t, s, 3), seed(t, s, 3)
	s.Close()
	damage(t, path, bad, func(b *bbolt.Bucket) error {
		ev := b.Bucket([]byte("events"))
		k := binary.BigEndian.AppendUint64(nil, 4)
		v := append([]byte(nil), ev.Get(k)...)
		v[len(v)/2] ^= 1
		return ev.Put(k, v)
	})
	s = mustOpen(t, path)
	before, _ := s.Doctor()
	s.Close()
	if _, err := store.Compact(path, time.Second); err != nil {
		t.Fatal(err)
	}
	s = mustOpen(t, path)
	after, _ := s.Doctor()
	if !reflect.DeepEqual(after, before) || after[0].Session != good || !after[0].OK() || after[1].Health.Status != execute.CorruptTail {
		t.Fatalf("doctor after compacting: %+v; before: %+v", after, before)
	}
}

// While another process holds the file, Compact refuses and changes
// nothing.
func TestCompactRefusesALockedFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "w.db")
	s := mustOpen(t, path)
	seed(t, s, 2)
	before, _ := os.ReadFile(path)
	if _, err := store.Compact(path, 50*time.Millisecond); !errors.Is(err, store.ErrLocked) {
		t.Fatalf("Compact of a locked file = %v; want ErrLocked", err)
	}
	after, _ := os.ReadFile(path)
	ents, _ := os.ReadDir(dir)
	if !bytes.Equal(before, after) || len(ents) != 1 {
		t.Fatalf("a refused Compact changed something: file equal %v, %d entries in its folder", bytes.Equal(before, after), len(ents))
	}
}
