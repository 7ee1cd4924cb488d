package store_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute"
)

// The record of starts under a retry key stays bounded however many
// starts are made: the latest execute.StartsKept are found, and the
// file keeps at most a few hundred more.
func TestStartRecordsStayBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "workrail.db")
	s := mustOpen(t, path)
	id := seed(t, s, 1)
	const n = 3 * execute.StartsKept
	keyOf := func(i int) execute.StartKey { return execute.StartKey(engine.Sum(fmt.Append(nil, i))) }
	err := s.Update(id, func(tx execute.Tx) error {
		for i := range n {
			if err := tx.RecordStart(keyOf(i), execute.Started{Session: id, Run: 1}); err != nil {
				return err
			}
		}
		for i := n - execute.StartsKept; i < n; i++ {
			if _, ok, err := tx.StartedBy(keyOf(i)); !ok || err != nil {
				t.Fatalf("start %d of the latest %d not found (%v)", i, execute.StartsKept, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.View(func(tx *bbolt.Tx) error {
		if kept := tx.Bucket([]byte("starts")).Stats().KeyN; kept < execute.StartsKept || kept > execute.StartsKept+256 {
			t.Errorf("%d start records kept of %d starts; want the latest %d and at most 256 more", kept, n, execute.StartsKept)
		}
		return nil
	})
}
