package store_test

import (
	"encoding/binary"
	"errors"
	"reflect"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/store"
)

// walked is what one Overviews walk passed to fn.
type walked struct {
	ids       []engine.SessionID
	overviews map[engine.SessionID]project.Overview
	errs      map[engine.SessionID]error
}

func walk(t *testing.T, s *store.Store, before engine.SessionID) walked {
	t.Helper()
	w := walked{overviews: map[engine.SessionID]project.Overview{}, errs: map[engine.SessionID]error{}}
	err := s.Overviews(before, func(id engine.SessionID, o project.Overview, err error) bool {
		w.ids = append(w.ids, id)
		if err != nil {
			w.errs[id] = err
		} else {
			w.overviews[id] = o
		}
		return true
	})
	if err != nil {
		t.Fatalf("Overviews = %v", err)
	}
	return w
}

// olderFile makes the database at path look written by schema 1: no
// session has an overview, and the meta bucket says 1.
func olderFile(t *testing.T, path string, also func(tx *bbolt.Tx) error) {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bbolt.Tx) error {
		sessions := tx.Bucket([]byte("sessions"))
		err := sessions.ForEachBucket(func(k []byte) error { return sessions.Bucket(k).Delete([]byte("overview")) })
		if err != nil {
			return err
		}
		if err := also(tx); err != nil {
			return err
		}
		return tx.Bucket([]byte("meta")).Put([]byte("schema"), binary.BigEndian.AppendUint64(nil, 1))
	})
	if err != nil {
		t.Fatal(err)
	}
}

func schemaOf(t *testing.T, path string) uint64 {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v uint64
	db.View(func(tx *bbolt.Tx) error {
		v = binary.BigEndian.Uint64(tx.Bucket([]byte("meta")).Get([]byte("schema")))
		return nil
	})
	return v
}

// Opening a file of the previous schema folds an overview for every
// session whose log verifies, once; a session whose log does not is left
// without one, and reading it says so.
func TestOpenAddsOverviewsToAnOlderFile(t *testing.T) {
	store.UncheckedSessions(t, "it damages a session's log to see it left without an overview")
	r := newRig(t, executetest.Long(t, 5))
	for range 3 {
		executetest.Drive(t, r.x, "wr.long", "")
	}
	s := r.step(t, r.x.Start, map[string]any{"workflowId": "wr.long"})
	r.step(t, r.x.Continue, s.NextCall.Arguments)
	empty, err := r.store.Create(func(execute.Tx) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := r.store.SessionIDs()
	before := walk(t, r.store, 0)
	if len(before.errs) > 0 || len(before.ids) != 5 {
		t.Fatalf("fresh file: walked %v, errors %v", before.ids, before.errs)
	}
	broken := ids[1]
	r.store.Close()
	olderFile(t, r.path, func(tx *bbolt.Tx) error {
		ev := sessionBucket(tx, broken).Bucket([]byte("events"))
		k := binary.BigEndian.AppendUint64(nil, 4)
		v := append([]byte(nil), ev.Get(k)...)
		v[10] ^= 0x20
		return ev.Put(k, v)
	})

	// Read-only (doctor on an older file): nothing is written, and the
	// missing overviews are no index problem there.
	ro := store.OpenChecked(t, r.path, store.Options{ReadOnly: true})
	reports, err := ro.Doctor()
	if err != nil || len(reports) != 5 {
		t.Fatalf("read-only Doctor = %v, %v", reports, err)
	}
	for _, rep := range reports {
		if rep.Session != broken && !rep.OK() {
			t.Fatalf("read-only doctor on a schema 1 file: %+v, %v", rep, err)
		}
	}
	if _, err := ro.Overview(ids[0]); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("read-only Overview of a schema 1 file = %v; want engine.ErrNotFound", err)
	}
	ro.Close()

	r.open(t)
	after := walk(t, r.store, 0)
	if !reflect.DeepEqual(after.ids, before.ids) {
		t.Fatalf("walked %v after the upgrade, %v before", after.ids, before.ids)
	}
	for _, id := range ids {
		switch o, err := r.store.Overview(id); {
		case id == broken:
			if !errors.Is(err, engine.ErrNotFound) || !errors.Is(after.errs[id], engine.ErrNotFound) {
				t.Fatalf("session %s, whose log does not verify: Overview = %+v, %v; walked with %v", id, o, err, after.errs[id])
			}
		case err != nil || !reflect.DeepEqual(o, before.overviews[id]) || !reflect.DeepEqual(after.overviews[id], o):
			t.Fatalf("session %s: upgraded overview %+v, %v\nwant %+v", id, o, err, before.overviews[id])
		case id == empty && !reflect.DeepEqual(o, project.Overview{}):
			t.Fatalf("empty session: overview %+v", o)
		}
	}
	if rep, err := r.store.Doctor(); err != nil || len(rep) != 5 {
		t.Fatalf("Doctor = %v, %v", rep, err)
	} else {
		for _, rep := range rep {
			if rep.Session != broken && !rep.OK() {
				t.Fatalf("after the upgrade: %+v", rep)
			}
		}
	}
	r.store.Close()
	if got := schemaOf(t, r.path); got != store.SchemaVersion || store.SchemaVersion != 6 {
		t.Fatalf("schema %d after the upgrade; want %d", got, store.SchemaVersion)
	}
}

// A walk passes a session whose overview cannot be read with its error,
// and goes on to the older ones.
func TestOverviewsPassDamagedSessionsAndGoOn(t *testing.T) {
	store.UncheckedSessions(t, "it damages sessions' overviews to see the walk pass them")
	r := newRig(t, executetest.Long(t, 3))
	for range 4 {
		executetest.Drive(t, r.x, "wr.long", "")
	}
	ids, _ := r.store.SessionIDs()
	r.store.Close()
	damaged := map[engine.SessionID]string{ids[2]: "garbled", ids[1]: "stale"}
	db, err := bbolt.Open(r.path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		if err := sessionBucket(tx, ids[2]).Put([]byte("overview"), []byte(`{"title":"x","runs":[`)); err != nil {
			return err
		}
		return sessionBucket(tx, ids[1]).Put([]byte("overview"), []byte(`{"title":"x","last":3}`))
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	r.open(t)
	w := walk(t, r.store, 0)
	if want := []engine.SessionID{ids[3], ids[2], ids[1], ids[0]}; !reflect.DeepEqual(w.ids, want) {
		t.Fatalf("walked %v; want %v", w.ids, want)
	}
	for _, id := range ids {
		_, err := r.store.Overview(id)
		if (damaged[id] != "") != (w.errs[id] != nil) || (err != nil) != (w.errs[id] != nil) {
			t.Fatalf("session %s (%s): walked with error %v, Overview error %v", id, damaged[id], w.errs[id], err)
		}
		if o := w.overviews[id]; damaged[id] == "" && (o.Title != "Did s0." || o.Status() != project.Complete) {
			t.Fatalf("session %s: overview %+v", id, o)
		}
	}
}
