package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/store"
)

// The use cases over a real bbolt file with fsync, as the daemon runs
// them, without the network.

func advanceArgs(tb testing.TB, s protocol.StepResult) []byte {
	a := s.NextCall.Arguments
	a.Output = nil
	b, err := json.Marshal(a)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// BenchmarkAdvance measures one continue_workflow advance (tokens, store,
// engine, fsync) and the database growth per step.
func BenchmarkAdvance(b *testing.B) {
	r := newRig(b, executetest.Long(b, b.N+1))
	s := r.step(b, r.x.Start, map[string]any{"workflowId": "wr.long"})
	args := advanceArgs(b, s)
	before, _ := r.store.Stats()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res := r.x.Continue(context.Background(), args)
		step, ok := res.(protocol.StepResult)
		if !ok {
			b.Fatalf("advance %d: %s", i, res.RenderedText())
		}
		args = advanceArgs(b, step)
	}
	b.StopTimer()
	after, _ := r.store.Stats()
	used := (after.FileBytes - after.FreeBytes) - (before.FileBytes - before.FreeBytes)
	b.ReportMetric(float64(used)/float64(b.N), "dbB/step")
}

// BenchmarkAdvanceOverFloor measures, interleaved on one file so the
// disk's load weighs on both alike, one commit floor (BenchmarkCommitFloor's
// transaction through bbolt alone) and one advance with notes through the
// use case, and reports their medians and the ratio the engine is held
// to: advance ≤ 1.6× floor; and the mean CPU time of each (this process's,
// from getrusage), which a busy disk does not inflate.
func BenchmarkAdvanceOverFloor(b *testing.B) {
	r := newRig(b, executetest.Long(b, 12))
	floor := store.FloorCommit(r.store)
	next := func(s protocol.StepResult) []byte {
		a := s.NextCall.Arguments
		a.Output = &protocol.Output{NotesMarkdown: "Read the three files and noted what each exports."}
		raw, err := json.Marshal(a)
		if err != nil {
			b.Fatal(err)
		}
		return raw
	}
	var args []byte
	var floors, advances []time.Duration
	var floorCPU, advanceCPU time.Duration
	sample := func() {
		if len(floors)%10 == 0 { // runs of ten steps, as a typical run
			args = next(r.step(b, r.x.Start, map[string]any{"workflowId": "wr.long"}))
		}
		c0, t0 := cpuNow(b), time.Now()
		if err := floor(); err != nil {
			b.Fatal(err)
		}
		c1, t1 := cpuNow(b), time.Now()
		res := r.x.Continue(context.Background(), args)
		advances, floors = append(advances, time.Since(t1)), append(floors, t1.Sub(t0))
		floorCPU, advanceCPU = floorCPU+c1-c0, advanceCPU+cpuNow(b)-c1
		step, ok := res.(protocol.StepResult)
		if !ok {
			b.Fatalf("advance: %s", res.RenderedText())
		}
		args = next(step)
	}
	for b.Loop() {
		sample()
	}
	for len(floors) < 300 {
		sample()
	}
	med := func(ds []time.Duration) float64 {
		slices.Sort(ds)
		return float64(ds[len(ds)/2].Nanoseconds()) / 1e6
	}
	f, a := med(floors), med(advances)
	b.ReportMetric(f, "floor-ms")
	b.ReportMetric(a, "advance-ms")
	b.ReportMetric(a/f, "advance/floor")
	b.ReportMetric(float64(floorCPU.Nanoseconds())/1e6/float64(len(floors)), "floor-cpu-ms")
	b.ReportMetric(float64(advanceCPU.Nanoseconds())/1e6/float64(len(floors)), "advance-cpu-ms")
}

// cpuNow is the CPU time (user and system) this process has used so far.
func cpuNow(tb testing.TB) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// BenchmarkAdvanceParallel measures throughput with 8 concurrent writers,
// each advancing its own session: group commit shares fsyncs between them.
func BenchmarkAdvanceParallel(b *testing.B) {
	r := newRig(b, executetest.Long(b, b.N+1))
	b.SetParallelism(4) // 4 × GOMAXPROCS(2) = 8 writers
	var writers atomic.Int32
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		writers.Add(1)
		s := r.step(b, r.x.Start, map[string]any{"workflowId": "wr.long"})
		args := advanceArgs(b, s)
		for pb.Next() {
			step, ok := r.x.Continue(context.Background(), args).(protocol.StepResult)
			if !ok {
				b.Error("advance did not return a step")
				return
			}
			args = advanceArgs(b, step)
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "advances/s")
	b.ReportMetric(float64(writers.Load()), "writers")
}

// BenchmarkRehydrate measures a continue_workflow without ackToken.
func BenchmarkRehydrate(b *testing.B) {
	r := newRig(b, nil)
	s := r.step(b, r.x.Start, map[string]any{"workflowId": "wr.hello"})
	args, _ := json.Marshal(map[string]any{"stateToken": s.StateToken})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, ok := r.x.Continue(context.Background(), args).(protocol.StepResult); !ok {
			b.Fatal("rehydrate failed")
		}
	}
}

// BenchmarkStart measures one start_workflow of wr.hello (a new session,
// its run, root node and first step; fsync on).
func BenchmarkStart(b *testing.B) {
	r := newRig(b, nil)
	args := []byte(`{"workflowId":"wr.hello"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := r.x.Start(context.Background(), args).(protocol.StepResult); !ok {
			b.Fatal("start did not return a step")
		}
	}
}

// BenchmarkStartUnderARetryKey is BenchmarkStart with a retry key, as a
// shim sends each: the start looks for its key among the latest starts
// (a full record, StartsKept of them, none its own: the whole walk) and
// records it.
func BenchmarkStartUnderARetryKey(b *testing.B) {
	r := newRig(b, nil)
	fillStarts(b, r.store)
	args := []byte(`{"workflowId":"wr.hello"}`)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		ctx := protocol.WithRetryKey(context.Background(), fmt.Sprintf("benchmark-key-%08d", i))
		if _, ok := r.x.Start(ctx, args).(protocol.StepResult); !ok {
			b.Fatal("start did not return a step")
		}
	}
}

// BenchmarkStartedBy measures the look for a start's key alone, over a
// full record of the latest starts that does not hold it.
func BenchmarkStartedBy(b *testing.B) {
	s := mustOpen(b, filepath.Join(b.TempDir(), "workrail.db"))
	id := fillStarts(b, s)
	b.ReportAllocs()
	err := s.Update(id, func(tx execute.Tx) error {
		for b.Loop() {
			if _, ok, err := tx.StartedBy(execute.StartKey{1}); ok || err != nil {
				b.Fatalf("found a key never recorded (%v)", err)
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// fillStarts records execute.StartsKept starts in s, in one session it
// creates, and returns that session.
func fillStarts(tb testing.TB, s *store.Store) engine.SessionID {
	id := seed(tb, s, 1)
	err := s.Update(id, func(tx execute.Tx) error {
		for i := range execute.StartsKept {
			if err := tx.RecordStart(execute.StartKey(engine.Sum(fmt.Append(nil, i))), execute.Started{Session: id, Run: 1}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return id
}

// BenchmarkVerifySession measures a full check of a session 1,000 steps
// long (chain, references, refold of the indexes): what doctor does per
// session and, without the references, what the daemon does once per
// session on its first touch.
func BenchmarkVerifySession(b *testing.B) {
	const steps = 1000
	r := newRig(b, executetest.Long(b, steps+1))
	s := r.step(b, r.x.Start, map[string]any{"workflowId": "wr.long"})
	args := advanceArgs(b, s)
	for i := 0; i < steps; i++ {
		step, ok := r.x.Continue(context.Background(), args).(protocol.StepResult)
		if !ok {
			b.Fatalf("advance %d failed", i)
		}
		args = advanceArgs(b, step)
	}
	b.ReportAllocs()
	for b.Loop() {
		rep, err := r.store.Verify(s.Session.SessionID)
		if err != nil || !rep.OK() {
			b.Fatalf("Verify = %+v, %v", rep, err)
		}
	}
}
