package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
)

// A session that comes to reference a pending snapshot and pin after the
// sweep read the logs (its PutSnapshot and PinWorkflow find them stored,
// and write nothing) keeps them: collect's steps, with that write
// between reading the logs and releasing.
func TestCollectKeepsWhatAWriteReferencesMeanwhile(t *testing.T) {
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	s := OpenChecked(t, filepath.Join(t.TempDir(), "w.db"), Options{Now: func() time.Time { return now }})
	defer s.Close()
	c, err := compile.Seal(compile.Workflow{ID: "wr.x", Name: "x", Description: "x", Version: "1"})
	if err != nil {
		t.Fatal(err)
	}
	create := func() {
		t.Helper()
		_, err := s.Create(func(tx execute.Tx) error {
			return executetest.RunOfNodes(tx, c, 1, func(int) map[string]any { return nil })
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
