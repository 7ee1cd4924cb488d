package store

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

var errRollBack = errors.New("roll back")

// BenchmarkProjectionUpdate measures what keeping the projection adds to
// one advance: folding the advance's events (advance_recorded, the new
// node, its edge and notes) into the stored projection records of a run
// 500 steps long and writing the records that changed, in the write
// transaction, which is then rolled back (no fsync: that is the
// advance's, BenchmarkAdvance). Compare with BenchmarkAdvance: the issue
// holds it to 5% of an advance.
func BenchmarkProjectionUpdate(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "w.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	x := execute.New(s, executetest.Ring(b), executetest.Long(b, 600), workflow.Preferences{}, executetest.Clock, b.Logf)
	res := x.Start(context.Background(), []byte(`{"workflowId":"wr.long"}`))
	var advances [][]event.Event
	for i := 0; i < 500; i++ {
		st := res.(protocol.StepResult)
		args := st.NextCall.Arguments
		args.Output = &protocol.Output{NotesMarkdown: "Did it."}
		raw, _ := json.Marshal(args)
		evs, _, _ := s.Events(st.Session.SessionID)
		before := len(evs)
		res = x.Continue(context.Background(), raw)
		evs, _, _ = s.Events(st.Session.SessionID)
		advances = append(advances, evs[before:])
	}
	id := engine.SessionID(1)
	// An advance puts its new node's snapshot in the same transaction,
	// so the fold finds where it stands without reading it back.
	put := map[engine.SnapshotRef]run.Position{}
	must(b, s.View(id, func(tx execute.ReadTx) error {
		for _, evs := range advances {
			for _, e := range evs {
				if d, ok := e.Data.(*event.NodeCreatedData); ok {
					snap, err := tx.Snapshot(d.Snapshot)
					if err != nil {
						return err
					}
					put[d.Snapshot] = snap.Position
				}
			}
		}
		return nil
	}))
	b.Run("fold", func(b *testing.B) { foldAdvances(b, s, id, advances, put, true) })
	// The same transaction without the fold: what the figure above
	// holds besides it.
	b.Run("transaction", func(b *testing.B) { foldAdvances(b, s, id, advances, put, false) })
}

func foldAdvances(b *testing.B, s *Store, id engine.SessionID, advances [][]event.Event, put map[engine.SnapshotRef]run.Position, fold bool) {
	for i := 0; b.Loop(); i++ {
		evs := advances[len(advances)-1-i%50]
		err := s.db.Update(func(btx *bbolt.Tx) error {
			t := newTx(btx, btx.Bucket(bucketSessions).Bucket(sessionKey(id)), id)
			o, err := overviewIndex.read(t, t.Head())
			if err != nil {
				return err
			}
			t.ov, t.put = &o, put
			if !fold {
				return errRollBack
			}
			for _, e := range evs {
				if err := t.addLineage(e); err != nil {
					return err
				}
			}
			if err := t.flushLineage(); err != nil {
				return err
			}
			return errRollBack
		})
		if !errors.Is(err, errRollBack) {
			b.Fatal(err)
		}
	}
}

func must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}
