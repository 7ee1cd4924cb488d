package store_test

import (
	"context"
	"encoding/binary"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/store"
)

const day = 24 * time.Hour

// t0 is when the tests' first sessions are written.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// clock is the store's clock, set by the test.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

func openAt(tb testing.TB, path string, c *clock) *store.Store {
	tb.Helper()
	return store.OpenChecked(tb, path, store.Options{Now: c.now})
}

// session creates a session running workflow wf through nodes nodes.
// Sessions of the same wf share its pin; of the same wf and label, their
// snapshots too.
func session(tb testing.TB, s *store.Store, wf, label string, nodes int) engine.SessionID {
	tb.Helper()
	c, err := compile.Seal(compile.Workflow{ID: engine.WorkflowID(wf), Name: wf, Description: wf, Version: "1"})
	if err != nil {
		tb.Fatal(err)
	}
	id, err := s.Create(func(tx execute.Tx) error {
		return executetest.RunOfNodes(tx, c, nodes, func(i int) map[string]any { return map[string]any{"label": label, "i": i} })
	})
	if err != nil {
		tb.Fatal(err)
	}
	return id
}

// extend writes to session id: one more node on its first run.
func extend(s *store.Store, id engine.SessionID) error {
	return s.Update(id, func(tx execute.Tx) error {
		r, err := tx.Run(1)
		if err != nil {
			return err
		}
		n, err := tx.Node(1)
		if err != nil {
			return err
		}
		next, err := tx.NewNodeID()
		if err != nil {
			return err
		}
		ref, err := tx.PutSnapshot(run.Snapshot{WorkflowHash: r.WorkflowHash, Position: run.Position{Kind: run.Complete}, Context: map[string]any{"extended": int(next)}})
		if err != nil {
			return err
		}
		if _, err := tx.Append(1, next, &event.NodeCreatedData{NodeKind: event.NodeStep, Snapshot: ref}); err != nil {
			return err
		}
		_, err = tx.Append(1, next, &event.EdgeCreatedData{EdgeKind: event.EdgeAckedStep, From: n.ID, To: next})
		return err
	})
}

// records counts the entries of the file's top-level buckets.
func records(tb testing.TB, path string) map[string]int {
	tb.Helper()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true})
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	out := map[string]int{}
	db.View(func(tx *bbolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bbolt.Bucket) error {
			out[string(name)] = b.Stats().KeyN
			return nil
		})
	})
	return out
}

func mustSweep(tb testing.TB, s *store.Store, days int) store.SweepResult {
	tb.Helper()
	res, err := s.Sweep(context.Background(), days)
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

func mustHealthy(tb testing.TB, s *store.Store) []store.Report {
	tb.Helper()
	reports, err := s.Doctor()
	if err != nil {
		tb.Fatal(err)
	}
	for _, r := range reports {
		if !r.OK() {
			tb.Fatalf("doctor: %+v", r)
		}
	}
	return reports
}

func ids(sessions []store.StaleSession) []engine.SessionID {
	out := []engine.SessionID{}
	for _, s := range sessions {
		out = append(out, s.Session)
	}
	return out
}

// A session nobody wrote to for the retention period goes, with the
// snapshots and pin only it referenced; a session written inside the
// period stays, with the pin and snapshots it shares with a deleted one.
func TestSweepDeletesStaleSessionsAndWhatOnlyTheyReference(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	c := &clock{t: t0}
	s := openAt(t, path, c)
	alone := session(t, s, "wr.alone", "alone", 3)
	shared := session(t, s, "wr.shared", "shared", 2)
	c.set(t0.Add(40 * day))
	live := session(t, s, "wr.shared", "shared", 2)
	s.Close()
	before := records(t, path)
	if before["snapshots"] != 5 || before["workflows"] != 2 {
		t.Fatalf("before the sweep: %v; want 5 snapshots, 2 pins", before)
	}

	c.set(t0.Add(61 * day))
	s = openAt(t, path, c)
	changes := s.Changes()
	plan, err := s.SweepPlan(60)
	if err != nil {
		t.Fatal(err)
	}
	want := []store.StaleSession{{Session: alone, LastActive: t0, Events: 7}, {Session: shared, LastActive: t0, Events: 5}}
	if !reflect.DeepEqual(plan.Stale, want) || !plan.Cutoff.Equal(t0.Add(day)) || plan.Unclocked != 0 {
		t.Fatalf("plan = %+v; want %+v, cutoff %s", plan, want, t0.Add(day))
	}
	if s.Changes() != changes {
		t.Fatal("the dry run wrote to the file")
	}

	res := mustSweep(t, s, 60)
	if !reflect.DeepEqual(res.Deleted, want) || len(res.Kept) != 0 || res.Snapshots != 3 || res.Workflows != 1 || res.Deferred != "" {
		t.Fatalf("sweep = %+v; want %v deleted, 3 snapshots and 1 pin collected", res, want)
	}
	if got, _ := s.SessionIDs(); !reflect.DeepEqual(got, []engine.SessionID{live}) {
		t.Fatalf("sessions after the sweep: %v; want [%s]", got, live)
	}
	if _, err := s.Overview(alone); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("Overview of a deleted session = %v; want ErrNotFound", err)
	}
	if err := extend(s, shared); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("writing to a deleted session = %v; want ErrNotFound", err)
	}
	mustHealthy(t, s)
	if again := mustSweep(t, s, 60); len(again.Deleted)+len(again.Kept)+again.Snapshots+again.Workflows != 0 {
		t.Fatalf("a second sweep did %+v", again)
	}
	if next := session(t, s, "wr.alone", "alone", 1); next != live+1 {
		t.Fatalf("the next session is %s; want %s (ids are never handed out again)", next, live+1)
	}
	s.Close()
	after := records(t, path)
	if after["snapshots"] != 3 || after["workflows"] != 2 || after["unreferenced"] != 0 || after["activity"] != 2 {
		t.Fatalf("after the sweep: %v; want 3 snapshots (live's 2, the new one's 1), 2 pins, nothing pending, 2 clocks", after)
	}
}

// Whether a session goes depends only on its last write: the boundary is
// kept, a write renews an old session, and the window is counted in
// whole calendar days from the sweep.
func TestSweepKeepsSessionsWrittenInsideTheWindow(t *testing.T) {
	for _, tc := range []struct {
		name    string
		written []time.Duration // after t0: created, then each write
		sweepAt time.Duration
		deleted bool
	}{
		{"written 59 days ago", []time.Duration{0}, 59 * day, false},
		{"written exactly 60 days ago", []time.Duration{0}, 60 * day, false},
		{"written 60 days and a second ago", []time.Duration{0}, 60*day + time.Second, true},
		{"created long ago, written 10 days ago", []time.Duration{0, 90 * day}, 100 * day, false},
		{"created long ago, written 70 days ago", []time.Duration{0, 30 * day}, 100 * day, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &clock{t: t0}
			s := openAt(t, filepath.Join(t.TempDir(), "w.db"), c)
			id := session(t, s, "wr.x", "x", 1)
			for _, at := range tc.written[1:] {
				c.set(t0.Add(at))
				if err := extend(s, id); err != nil {
					t.Fatal(err)
				}
			}
			c.set(t0.Add(tc.sweepAt))
			res := mustSweep(t, s, 60)
			if got := len(res.Deleted) == 1; got != tc.deleted {
				t.Fatalf("deleted %v; want %v: %+v", got, tc.deleted, res)
			}
			if _, err := s.Overview(id); errors.Is(err, engine.ErrNotFound) != tc.deleted {
				t.Fatalf("Overview after the sweep: %v", err)
			}
		})
	}
}

// Retention of 0 or less, or of more than a century, deletes nothing.
func TestSweepOffDeletesNothing(t *testing.T) {
	c := &clock{t: t0}
	s := openAt(t, filepath.Join(t.TempDir(), "w.db"), c)
	id := session(t, s, "wr.x", "x", 2)
	c.set(t0.Add(10000 * day))
	for _, days := range []int{0, -1, 100*366 + 1} {
		plan, err := s.SweepPlan(days)
		if err != nil || len(plan.Stale) != 0 || !plan.Cutoff.IsZero() {
			t.Fatalf("SweepPlan(%d) = %+v, %v; want nothing", days, plan, err)
		}
		if res := mustSweep(t, s, days); len(res.Deleted) != 0 || res.Clocked != 0 {
			t.Fatalf("Sweep(%d) = %+v; want nothing done", days, res)
		}
	}
	if _, err := s.Overview(id); err != nil {
		t.Fatal(err)
	}
}

// A session without a recorded write (an older file, or a salvaged one)
// counts as written when the first sweep sees it: nothing goes before a
// whole retention period has passed since.
func TestSweepStartsTheClockOfUnclockedSessions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	c := &clock{t: t0}
	s := openAt(t, path, c)
	id := session(t, s, "wr.x", "x", 2)
	s.Close()
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Update(func(tx *bbolt.Tx) error { return tx.DeleteBucket([]byte("activity")) })
	db.Close()

	upgrade := t0.Add(1000 * day)
	c.set(upgrade)
	s = openAt(t, path, c)
	if plan, err := s.SweepPlan(60); err != nil || len(plan.Stale) != 0 || plan.Unclocked != 1 {
		t.Fatalf("plan = %+v, %v; want one unclocked session and nothing stale", plan, err)
	}
	if res := mustSweep(t, s, 60); res.Clocked != 1 || len(res.Deleted) != 0 {
		t.Fatalf("first sweep = %+v; want its clock started", res)
	}
	c.set(upgrade.Add(60 * day))
	if res := mustSweep(t, s, 60); len(res.Deleted) != 0 || res.Clocked != 0 {
		t.Fatalf("sweep 60 days after the clock started = %+v; want nothing", res)
	}
	c.set(upgrade.Add(61 * day))
	if res := mustSweep(t, s, 60); !reflect.DeepEqual(ids(res.Deleted), []engine.SessionID{id}) {
		t.Fatalf("sweep 61 days after = %+v; want %s deleted", res, id)
	}
}

// A damaged stale session is never deleted, and keeps everything it
// references: doctor reports it exactly as before.
func TestSweepKeepsDamagedSessions(t *testing.T) {
	key := func(i uint64) []byte { return binary.BigEndian.AppendUint64(nil, i) }
	for _, tc := range []struct {
		name   string
		damage func(tx *bbolt.Tx, session *bbolt.Bucket) error
		pins   int // left after the sweep
	}{
		{"flipped byte in an event", func(_ *bbolt.Tx, b *bbolt.Bucket) error {
			ev := b.Bucket([]byte("events"))
			v := append([]byte(nil), ev.Get(key(3))...)
			v[len(v)/2] ^= 1
			return ev.Put(key(3), v)
		}, 1},
		{"node index edited", func(_ *bbolt.Tx, b *bbolt.Bucket) error {
			return b.Bucket([]byte("nodes")).Put(binary.BigEndian.AppendUint32(nil, 2), []byte(`{"id":2}`))
		}, 1},
		{"its snapshot missing", func(tx *bbolt.Tx, b *bbolt.Bucket) error {
			e, err := event.Decode(b.Bucket([]byte("events")).Get(key(3)))
			if err != nil {
				return err
			}
			ref := e.Data.(*event.NodeCreatedData).Snapshot
			return tx.Bucket([]byte("snapshots")).Delete(ref[:])
		}, 1},
		// Its references are unknown: nothing is collected.
		{"its events unreadable", func(_ *bbolt.Tx, b *bbolt.Bucket) error { return b.DeleteBucket([]byte("events")) }, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store.UncheckedSessions(t, "each case damages a session to see the sweep keep it")
			path := filepath.Join(t.TempDir(), "w.db")
			c := &clock{t: t0}
			s := openAt(t, path, c)
			bad := session(t, s, "wr.bad", "bad", 3)
			good := session(t, s, "wr.good", "good", 2)
			s.Close()
			db, err := bbolt.Open(path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Update(func(tx *bbolt.Tx) error {
				return tc.damage(tx, tx.Bucket([]byte("sessions")).Bucket(key(uint64(bad))))
			}); err != nil {
				t.Fatal(err)
			}
			db.Close()
			c.set(t0.Add(61 * day))
			s = openAt(t, path, c)
			before, _ := s.Verify(bad)
			res := mustSweep(t, s, 60)
			if !reflect.DeepEqual(ids(res.Deleted), []engine.SessionID{good}) || len(res.Kept) != 1 ||
				res.Kept[0].Session != bad || res.Kept[0].Reason != store.KeptDamaged || res.Kept[0].Detail == "" {
				t.Fatalf("sweep = %+v; want %s deleted, %s kept as damaged", res, good, bad)
			}
			if after, _ := s.Verify(bad); !reflect.DeepEqual(after, before) {
				t.Fatalf("the damaged session verifies as %+v after the sweep, %+v before", after, before)
			}
			s.Close()
			if got := records(t, path); got["workflows"] != tc.pins {
				t.Fatalf("after the sweep: %v; want %d pins: the damaged session's kept", got, tc.pins)
			}
		})
	}
}

// A remaining session whose log cannot be read might reference anything:
// the sweep still deletes stale sessions, but collects nothing, and says
// why; what is pending waits for a later sweep.
func TestSweepDefersCollectingWhenASessionIsUnreadable(t *testing.T) {
	store.UncheckedSessions(t, "it makes a session unreadable to see the sweep wait")
	path := filepath.Join(t.TempDir(), "w.db")
	c := &clock{t: t0}
	s := openAt(t, path, c)
	stale := session(t, s, "wr.stale", "stale", 2)
	c.set(t0.Add(50 * day))
	broken := session(t, s, "wr.broken", "broken", 1)
	s.Close()
	damage(t, path, broken, func(b *bbolt.Bucket) error { return b.DeleteBucket([]byte("events")) })
	c.set(t0.Add(61 * day))
	s = openAt(t, path, c)
	res := mustSweep(t, s, 60)
	if !reflect.DeepEqual(ids(res.Deleted), []engine.SessionID{stale}) || res.Snapshots+res.Workflows != 0 ||
		!strings.Contains(res.Deferred, broken.String()) {
		t.Fatalf("sweep = %+v; want %s deleted and collecting deferred naming %s", res, stale, broken)
	}
	s.Close()
	if got := records(t, path); got["unreferenced"] != 3 || got["snapshots"] != 3 || got["workflows"] != 2 {
		t.Fatalf("after the sweep: %v; want the stale session's 3 records pending, nothing collected", got)
	}
}

// Writers never lose to a sweep: every write that succeeds lands in a
// session that is still there afterwards, and verifies.
func TestSweepSparesSessionsWrittenWhileItRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	c := &clock{t: t0}
	s := openAt(t, path, c)
	var all []engine.SessionID
	for i := range 60 {
		all = append(all, session(t, s, "wr.x", string(rune('a'+i%26)), 2))
	}
	c.set(t0.Add(61 * day))
	wrote := make([]bool, len(all))
	var wg sync.WaitGroup
	for i, id := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch err := extend(s, id); {
			case err == nil:
				wrote[i] = true
			case !errors.Is(err, engine.ErrNotFound):
				t.Error(err)
			}
		}()
	}
	res := mustSweep(t, s, 60)
	wg.Wait()
	gone := map[engine.SessionID]bool{}
	for _, d := range res.Deleted {
		gone[d.Session] = true
	}
	for i, id := range all {
		if wrote[i] == gone[id] {
			t.Errorf("%s: write succeeded %v, deleted %v", id, wrote[i], gone[id])
		}
	}
	mustHealthy(t, s)
}
