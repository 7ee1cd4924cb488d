package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/run"
)

// A session that comes to reference a pending snapshot and pin after the
// sweep read the logs (its PutSnapshot and PinWorkflow find them stored,
// and write nothing) keeps them: collect's steps, with that write
// between reading the logs and releasing.
func TestCollectKeepsWhatAWriteReferencesMeanwhile(t *testing.T) {
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	s := OpenChecked(t, filepath.Join(t.TempDir(), "w.db"), Options{Now: func() time.Time { return now }})
	defer s.Close()
	create := func() {
		t.Helper()
		_, err := s.Create(func(tx execute.Tx) error {
			if _, err := tx.Append(0, 0, &event.SessionCreatedData{CreatedAt: "2026-03-01T00:00:00Z"}); err != nil {
				return err
			}
			c, err := compile.Seal(compile.Workflow{ID: "wr.x", Name: "x", Description: "x", Version: "1"})
			if err != nil {
				return err
			}
			if err := tx.PinWorkflow(c); err != nil {
				return err
			}
			rid, _ := tx.NewRunID()
			if _, err := tx.Append(rid, 0, &event.RunStartedData{WorkflowID: c.ID, WorkflowHash: c.Hash}); err != nil {
				return err
			}
			nid, _ := tx.NewNodeID()
			ref, err := tx.PutSnapshot(run.Snapshot{WorkflowHash: c.Hash, Position: run.Position{Kind: run.Complete}})
			if err != nil {
				return err
			}
			_, err = tx.Append(rid, nid, &event.NodeCreatedData{NodeKind: event.NodeStep, Snapshot: ref})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	create()
	now = now.Add(61 * 24 * time.Hour)
	plan, _, err := s.plan(60)
	if err != nil || len(plan.Stale) != 1 {
		t.Fatalf("plan = %+v, %v", plan, err)
	}
	var res SweepResult
	if err := s.deleteStale(plan.Stale, plan.Cutoff, &res); err != nil || len(res.Deleted) != 1 {
		t.Fatalf("deleteStale: %+v, %v", res, err)
	}
	pending, err := s.unreferenced()
	if err != nil || len(pending) != 2 {
		t.Fatalf("pending = %v, %v; want the snapshot and the pin", pending, err)
	}
	if err := s.commit.update(func(*bbolt.Tx) error { s.live.start(); return nil }); err != nil {
		t.Fatal(err)
	}
	named, deferred, err := s.mark(context.Background(), pending)
	if err != nil || deferred != "" || len(named) != 2 || named[pending[0].d] || named[pending[1].d] {
		t.Fatalf("mark = %v, %q, %v; want both pending and unnamed", named, deferred, err)
	}
	create()
	snapshots, workflows, err := s.release(pending, named)
	s.live.stop()
	if err != nil || snapshots+workflows != 0 {
		t.Fatalf("release collected %d snapshots, %d pins (%v); want none", snapshots, workflows, err)
	}
	reports, err := s.Doctor()
	if err != nil || len(reports) != 1 || !reports[0].OK() {
		t.Fatalf("doctor = %+v, %v", reports, err)
	}
	if again, _ := s.unreferenced(); len(again) != 0 {
		t.Fatalf("still pending: %v", again)
	}
}
