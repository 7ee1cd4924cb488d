package store

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/project"
)

// BenchmarkRefreshDerived measures the background rebuild of every
// session's derived records after a definition change (the overview's,
// here) at 10,000 small sessions (a run of three nodes each, 11 events),
// in a real bbolt file, while an agent appends to one session in a loop:
// its writes' p50 and worst latency are reported beside the rebuild's
// time, and the CPU time the process used meanwhile (the agent's
// included).
func BenchmarkRefreshDerived(b *testing.B) {
	const sessions = 10000
	template := manySessions(b, sessions)
	defer func(old recordVersions) { definitions.versions = old }(definitions.versions)
	for b.Loop() {
		b.StopTimer()
		path := filepath.Join(b.TempDir(), "w.db")
		copyFile(b, template, path)
		s, err := Open(path, Options{})
		if err != nil {
			b.Fatal(err)
		}
		definitions.versions.overview = project.OverviewVersion + 1
		var stop atomic.Bool
		lat := make(chan []time.Duration)
		go agent(s, &stop, lat)
		cpu := cpuTime()
		b.StartTimer()
		n, err := s.RefreshDerived(context.Background())
		b.StopTimer()
		b.ReportMetric((cpuTime() - cpu).Seconds(), "cpu-s")
		stop.Store(true)
		writes := <-lat
		if err != nil || n < sessions-1 { // the agent's write may rebuild its session first
			b.Fatalf("rebuilt %d sessions, %v", n, err)
		}
		slices.Sort(writes)
		if len(writes) > 0 {
			b.ReportMetric(float64(writes[len(writes)/2].Microseconds())/1000, "agent-p50-ms")
			b.ReportMetric(float64(writes[len(writes)-1].Microseconds())/1000, "agent-max-ms")
		}
		definitions.versions.overview = project.OverviewVersion
		s.Close()
		b.StartTimer()
	}
}

// agent appends a note to session 1 until stop, sending each write's
// latency to lat at the end.
func agent(s *Store, stop *atomic.Bool, lat chan<- []time.Duration) {
	var out []time.Duration
	for !stop.Load() {
		start := time.Now()
		err := s.Update(1, func(tx execute.Tx) error {
			_, err := tx.Append(1, 1, &event.NodeOutputAppendedData{StepID: "s", NotesMarkdown: "an agent's note"})
			return err
		})
		if err != nil {
			break
		}
		out = append(out, time.Since(start))
	}
	lat <- out
}

// cpuTime is the CPU time this process has used: a figure that depends
// less than wall time on what else the machine runs.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func copyFile(b *testing.B, from, to string) {
	in, err := os.Open(from)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
}
