package store_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/store"
)

// mustOpen opens a store on path whose file is checked when the test
// ends (store.OpenChecked).
func mustOpen(tb testing.TB, path string) *store.Store {
	tb.Helper()
	return store.OpenChecked(tb, path, store.Options{})
}

// seed creates a session with n events: a run and a chain of nodes.
func seed(tb testing.TB, s *store.Store, nodes int) engine.SessionID {
	tb.Helper()
	id, err := s.Create(func(tx execute.Tx) error {
		if _, err := tx.Append(0, 0, &event.SessionCreatedData{CreatedAt: "2026-01-01T00:00:00Z"}); err != nil {
			return err
		}
		wf, err := compile.Seal(compile.Workflow{ID: "wr.x", Name: "x", Description: "x", Version: "1"})
		if err != nil {
			return err
		}
		if err := tx.PinWorkflow(wf); err != nil {
			return err
		}
		rid, _ := tx.NewRunID()
		if _, err := tx.Append(rid, 0, &event.RunStartedData{WorkflowID: "wr.x", WorkflowHash: wf.Hash}); err != nil {
			return err
		}
		var prev engine.NodeID
		for i := 0; i < nodes; i++ {
			nid, _ := tx.NewNodeID()
			ref, err := tx.PutSnapshot(run.Snapshot{V: i, WorkflowHash: wf.Hash, Position: run.Position{Kind: run.Complete}})
			if err != nil {
				return err
			}
			if _, err := tx.Append(rid, nid, &event.NodeCreatedData{NodeKind: event.NodeStep, Snapshot: ref}); err != nil {
				return err
			}
			if prev != 0 {
				if _, err := tx.Append(rid, nid, &event.EdgeCreatedData{EdgeKind: event.EdgeAckedStep, From: prev, To: nid}); err != nil {
					return err
				}
			}
			prev = nid
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return id
}

func TestAppendBuildsIndexesAndVerifies(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "w.db"))
	id := seed(t, s, 3)
	r, err := s.Verify(id)
	if err != nil || !r.OK() || r.Health.LastGood != 7 {
		t.Fatalf("Verify = %+v, %v; want healthy with 7 events", r, err)
	}
	err = s.View(id, func(tx execute.ReadTx) error {
		n2, err := tx.Node(2)
		if err != nil {
			return err
		}
		if n2.Parent != 1 || len(n2.Children) != 1 || n2.Children[0] != 3 {
			t.Errorf("node 2 index = %+v; want parent 1, children [3]", n2)
		}
		r, err := tx.Run(1)
		if err != nil {
			return err
		}
		if r.Root != 1 || r.WorkflowID != "wr.x" {
			t.Errorf("run index = %+v", r)
		}
		if snap, err := tx.Snapshot(n2.Snapshot); err != nil || snap.V != 1 {
			t.Errorf("snapshot = %v, %v", snap, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestSessionIDsAreDistinctAndOrdered(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "w.db"))
	a, b := seed(t, s, 1), seed(t, s, 1)
	ids, err := s.SessionIDs()
	if err != nil || len(ids) != 2 || ids[0] != a || ids[1] != b || a == b {
		t.Fatalf("SessionIDs = %v, %v; created %v, %v", ids, err, a, b)
	}
}

func TestSecondOpenFailsFast(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	mustOpen(t, path)
	_, err := store.Open(path, store.Options{LockTimeout: 50e6})
	if !errors.Is(err, store.ErrLocked) {
		t.Fatalf("second Open = %v; want ErrLocked", err)
	}
}

// damage changes the stored bytes of one session through bbolt directly, as
// a failing disk would.
func damage(t *testing.T, path string, id engine.SessionID, f func(session *bbolt.Bucket) error) {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bbolt.Tx) error {
		return f(tx.Bucket([]byte("sessions")).Bucket(binary.BigEndian.AppendUint64(nil, uint64(id))))
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestCorruptionIsDetectedAtTheFirstBadEvent(t *testing.T) {
	key := func(i uint64) []byte { return binary.BigEndian.AppendUint64(nil, i) }
	cases := []struct {
		name     string
		mutate   func(b *bbolt.Bucket) error
		firstBad engine.EventIndex
	}{
		{"flipped byte in event 4", func(b *bbolt.Bucket) error {
			ev := b.Bucket([]byte("events"))
			v := append([]byte(nil), ev.Get(key(4))...)
			v[len(v)/2] ^= 0x01
			return ev.Put(key(4), v)
		}, 4},
		{"flipped byte in digest 2", func(b *bbolt.Bucket) error {
			ch := b.Bucket([]byte("chain"))
			v := append([]byte(nil), ch.Get(key(2))...)
			v[0] ^= 0x80
			return ch.Put(key(2), v)
		}, 2},
		{"event 3 deleted", func(b *bbolt.Bucket) error { return b.Bucket([]byte("events")).Delete(key(3)) }, 3},
		{"event 6 rewritten with a valid digest but wrong chain", func(b *bbolt.Bucket) error {
			ev := b.Bucket([]byte("events"))
			return ev.Put(key(6), ev.Get(key(5)))
		}, 6},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			store.UncheckedSessions(t, "each case damages the session's log")
			path := filepath.Join(t.TempDir(), "w.db")
			s := store.OpenChecked(t, path, store.Options{})
			id := seed(t, s, 3)
			s.Close()
			damage(t, path, id, c.mutate)
			s = mustOpen(t, path)
			h, err := s.Health(id)
			if err != nil {
				t.Fatal(err)
			}
			if h.Status != execute.CorruptTail || h.FirstBad != c.firstBad || h.LastGood != c.firstBad-1 {
				t.Fatalf("Health = %+v; want corrupt_tail at %d", h, c.firstBad)
			}
			evs, _, err := s.Events(id)
			if err != nil || engine.EventIndex(len(evs)) != c.firstBad-1 {
				t.Fatalf("Events returned %d events, %v; want the %d good ones", len(evs), err, c.firstBad-1)
			}
			if err := s.RebuildIndexes(id); err == nil {
				t.Fatal("indexes were rebuilt from a damaged log")
			}
		})
	}
}

func TestDoctorChecksSnapshotsAndPins(t *testing.T) {
	store.UncheckedSessions(t, "it deletes a snapshot a session references to see doctor notice")
	path := filepath.Join(t.TempDir(), "w.db")
	s := store.OpenChecked(t, path, store.Options{})
	id := seed(t, s, 2)
	s.Close()
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Update(func(tx *bbolt.Tx) error {
		c := tx.Bucket([]byte("snapshots")).Cursor()
		k, v := c.First()
		v = append([]byte(nil), v...)
		v[2] ^= 1
		return tx.Bucket([]byte("snapshots")).Put(append([]byte(nil), k...), v)
	})
	db.Close()
	s = mustOpen(t, path)
	reports, err := s.Doctor()
	if err != nil {
		t.Fatal(err)
	}
	// The chain itself is intact; doctor still finds the node whose
	// snapshot no longer matches its address.
	h := reports[0].Health
	if len(reports) != 1 || reports[0].Session != id || h.Status != execute.CorruptTail || (h.FirstBad != 3 && h.FirstBad != 4) {
		t.Fatalf("Doctor = %+v; want one corrupt_tail report at a node_created event", reports)
	}
	if cached, _ := s.Health(id); cached.Status != execute.Healthy {
		t.Fatalf("the chain-only Health = %+v; want healthy (snapshots are checked when read)", cached)
	}
}

func TestReadOnlyOpenSeesData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	s := store.OpenChecked(t, path, store.Options{})
	seed(t, s, 1)
	s.Close()
	ro := store.OpenChecked(t, path, store.Options{ReadOnly: true})
	defer ro.Close()
	reports, err := ro.Doctor()
	if err != nil || len(reports) != 1 {
		t.Fatalf("read-only Doctor = %v, %v", reports, err)
	}
}

func TestPanickingWriteFailsOnlyItself(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "w.db"))
	id := seed(t, s, 1)
	err := s.Update(id, func(tx execute.Tx) error {
		if _, err := tx.Append(0, 0, &event.SessionCreatedData{CreatedAt: "x"}); err != nil {
			return err
		}
		panic("bug")
	})
	if err == nil {
		t.Fatal("a panicking write reported success")
	}
	if r, _ := s.Verify(id); !r.OK() || r.Health.LastGood != 3 {
		t.Fatalf("after the panic: %+v; want the 3 original events, nothing half-written", r)
	}
	seed(t, s, 1) // the writer still works
}

func TestDoctorFindsDamagedIndexes(t *testing.T) {
	key := func(parts ...uint32) []byte {
		var b []byte
		for _, p := range parts {
			b = binary.BigEndian.AppendUint32(b, p)
		}
		return b
	}
	cases := []struct {
		name   string
		mutate func(b *bbolt.Bucket) error
		want   string
	}{
		{"node record edited", func(b *bbolt.Bucket) error {
			return b.Bucket([]byte("nodes")).Put(key(2), []byte(`{"id":2}`))
		}, "nodes index"},
		{"attempt entry dropped", func(b *bbolt.Bucket) error {
			return b.Bucket([]byte("attempts")).Put(key(1, 7), binary.BigEndian.AppendUint64(nil, 3))
		}, "attempts index"},
		{"run removed", func(b *bbolt.Bucket) error { return b.Bucket([]byte("runs")).Delete(key(1)) }, "runs index"},
		{"overview removed", func(b *bbolt.Bucket) error { return b.Delete([]byte("overview")) }, "overview index: missing"},
		{"overview garbled", func(b *bbolt.Bucket) error {
			v := append([]byte(nil), b.Get([]byte("overview"))...)
			return b.Put([]byte("overview"), v[:len(v)/2])
		}, "overview index: differs"},
		{"overview edited", func(b *bbolt.Bucket) error {
			v := strings.Replace(string(b.Get([]byte("overview"))), `"status":"complete"`, `"status":"blocked"`, 1)
			return b.Put([]byte("overview"), []byte(v))
		}, "overview index: differs"},
		{"resume record removed", func(b *bbolt.Bucket) error { return b.Delete([]byte("resume")) }, "resume index: missing"},
		{"resume record edited", func(b *bbolt.Bucket) error {
			v := strings.Replace(string(b.Get([]byte("resume"))), `"tip":"node_3"`, `"tip":"node_2"`, 1)
			return b.Put([]byte("resume"), []byte(v))
		}, "resume index: differs"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "w.db")
			s := store.OpenChecked(t, path, store.Options{})
			id := seed(t, s, 3)
			if r, _ := s.Doctor(); len(r) != 1 || !r[0].OK() {
				t.Fatalf("fresh session not OK: %+v", r)
			}
			overview, err := s.Overview(id)
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			damage(t, path, id, c.mutate)
			s = mustOpen(t, path)
			r, err := s.Doctor()
			if err != nil || len(r) != 1 || r[0].OK() || !strings.Contains(r[0].IndexProblem, c.want) {
				t.Fatalf("Doctor = %+v, %v; want an index problem in %q", r, err, c.want)
			}
			if r[0].Health.Status != execute.Healthy {
				t.Fatalf("the log itself is intact, health %+v", r[0].Health)
			}
			// The daemon's first touch rebuilds them from the log and
			// logs what differed; the session is healthy.
			s.Close()
			var logged []string
			s = store.OpenChecked(t, path, store.Options{Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }})
			h, err := s.Health(id)
			if err != nil || h.Status != execute.Healthy || h.LastGood != r[0].Health.LastGood {
				t.Fatalf("Health = %+v, %v; want healthy, repaired", h, err)
			}
			if len(logged) != 1 || !strings.Contains(logged[0], c.want) || !strings.Contains(logged[0], "rebuilt from the log") {
				t.Fatalf("logged %q; want one line naming %q", logged, c.want)
			}
			if r, _ := s.Doctor(); !r[0].OK() {
				t.Fatalf("after the first touch: %+v", r[0])
			}
			// doctor --rebuild-indexes does the same, and finds nothing left.
			if err := s.RebuildIndexes(id); err != nil {
				t.Fatal(err)
			}
			if r, _ := s.Doctor(); !r[0].OK() {
				t.Fatalf("after RebuildIndexes: %+v", r[0])
			}
			if o, err := s.Overview(id); err != nil || !reflect.DeepEqual(o, overview) {
				t.Fatalf("overview after RebuildIndexes = %+v, %v; want %+v", o, err, overview)
			}
		})
	}
}
