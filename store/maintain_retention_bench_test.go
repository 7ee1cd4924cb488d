package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/run"
)

// BenchmarkSweep measures the hourly sweep of a store of 10,000 sessions
// (runs of 10 nodes with notes, snapshots of their own, pinned to one of
// five workflows): "stale" deletes the 1,000 last written 61 days ago and
// collects their 10,000 snapshots (each iteration writes them again,
// untimed), "nothing-stale" is the common hour, "plan" the dry run a
// status shows.
func BenchmarkSweep(b *testing.B) {
	const sessions, stale, nodes = 10_000, 1_000, 10
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	s, err := Open(filepath.Join(b.TempDir(), "sweep.db"), Options{Now: func() time.Time { return now }})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var pins []compile.Compiled
	for i := range 5 {
		c, err := compile.Seal(compile.Workflow{ID: engine.WorkflowID("wr.w" + string(rune('a'+i))), Name: "w", Description: "w", Version: "1"})
		if err != nil {
			b.Fatal(err)
		}
		pins = append(pins, c)
	}
	// Setup writes without fsync; the sweeps measured sync as the daemon does.
	create := func(n int) {
		s.db.NoSync = true
		defer func() { s.db.NoSync = false }()
		for i := range n {
			if _, err := s.Create(func(tx execute.Tx) error { return benchSession(tx, pins[i%len(pins)], nodes) }); err != nil {
				b.Fatal(err)
			}
		}
	}
	now = t0.Add(50 * 24 * time.Hour)
	create(sessions - stale)
	sweepAt := t0.Add(61 * 24 * time.Hour)
	ctx := context.Background()

	b.Run("stale", func(b *testing.B) {
		for range b.N {
			b.StopTimer()
			now = t0
			create(stale)
			now = sweepAt
			b.StartTimer()
			res, err := s.Sweep(ctx, 60)
			if err != nil || len(res.Deleted) != stale || res.Snapshots != stale*nodes {
				b.Fatalf("sweep = %d deleted, %d snapshots, %q, %v", len(res.Deleted), res.Snapshots, res.Deferred, err)
			}
		}
	})
	b.Run("nothing-stale", func(b *testing.B) {
		now = sweepAt
		for b.Loop() {
			if res, err := s.Sweep(ctx, 60); err != nil || len(res.Deleted) != 0 {
				b.Fatalf("sweep = %+v, %v", res, err)
			}
		}
	})
	planned := false // -count runs each sub-benchmark again, not this setup
	b.Run("plan", func(b *testing.B) {
		if !planned {
			now = t0
			create(stale)
			planned = true
		}
		now = sweepAt
		for b.Loop() {
			if p, err := s.SweepPlan(60); err != nil || len(p.Stale) != stale {
				b.Fatalf("plan = %d stale, %v", len(p.Stale), err)
			}
		}
	})
}

// benchSession writes a run of n nodes with notes, pinned to c, whose
// snapshots are the session's own.
func benchSession(tx execute.Tx, c compile.Compiled, n int) error {
	r, err := executetest.StartRun(tx, c)
	if err != nil {
		return err
	}
	return fillRun(tx, r, n, func(i int) run.Snapshot {
		return run.Snapshot{V: i, WorkflowHash: c.Hash, Position: run.Position{Kind: run.Complete}, Context: map[string]any{"session": int(tx.Session())}}
	})
}
