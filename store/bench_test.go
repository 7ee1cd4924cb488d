package store

import (
	"encoding/binary"
	"os"
	"path/filepath"
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
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/run"
)

// BenchmarkCommitFloor measures what an advance cannot go below on this
// disk: one write transaction of five ~300-byte values (an advance appends
// about that much), with fsync, through bbolt alone and through the group
// committer. BenchmarkAdvance is this plus the engine's work.
func BenchmarkCommitFloor(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "floor.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	write := floorWrite()
	for _, c := range []struct {
		name   string
		update func(func(*bbolt.Tx) error) error
	}{{"bbolt", s.db.Update}, {"committer", s.commit.update}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if err := c.update(write); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// floorWrite is the commit floor's transaction: five ~300-byte values
// under new keys, about what an advance appends.
func floorWrite() func(*bbolt.Tx) error {
	val := make([]byte, 300)
	var key uint64
	return func(tx *bbolt.Tx) error {
		bk, err := tx.CreateBucketIfNotExists([]byte("floor"))
		if err != nil {
			return err
		}
		for range 5 {
			key++
			if err := bk.Put(binary.BigEndian.AppendUint64(nil, key), val); err != nil {
				return err
			}
		}
		return nil
	}
}

// BenchmarkOpen measures opening a database of 2,000 sessions of 20 nodes
// for writing (the page check, then bbolt's own open) and, apart, the
// page check alone.
func BenchmarkOpen(b *testing.B) {
	path := filepath.Join(b.TempDir(), "big.db")
	s, err := Open(path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	for range 2000 {
		if _, err := s.Create(func(tx execute.Tx) error { return fillSession(tx, 20) }); err != nil {
			b.Fatal(err)
		}
	}
	s.Close()
	fi, _ := os.Stat(path)
	b.Run("check", func(b *testing.B) {
		for b.Loop() {
			if err := checkStructure(path, time.Second); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(fi.Size())/1e6, "MB")
	})
	b.Run("open", func(b *testing.B) {
		for b.Loop() {
			s, err := Open(path, Options{})
			if err != nil {
				b.Fatal(err)
			}
			s.Close()
		}
	})
}

// benchWorkflow is the workflow fillSession's runs are pinned to, so
// their logs verify whole (a rebuild checks every reference).
var benchWorkflow = sync.OnceValues(func() (compile.Compiled, error) {
	return compile.Seal(compile.Workflow{ID: "wr.x", Name: "x", Description: "x", Version: "1"})
})

// fillSession appends a run of n nodes, each with a small output.
func fillSession(tx execute.Tx, n int) error {
	wf, err := benchWorkflow()
	if err != nil {
		return err
	}
	r, err := executetest.StartRun(tx, wf)
	if err != nil {
		return err
	}
	return fillRun(tx, r, n, func(i int) run.Snapshot { return run.Snapshot{V: i, Position: run.Position{Kind: run.Complete}} })
}

// fillRun appends n step nodes to run r, one after the other, each with
// the snapshot snap(i) and a small output.
func fillRun(tx execute.Tx, r engine.RunID, n int, snap func(i int) run.Snapshot) error {
	var prev engine.NodeID
	for i := range n {
		id, err := tx.NewNodeID()
		if err != nil {
			return err
		}
		ref, err := tx.PutSnapshot(snap(i))
		if err != nil {
			return err
		}
		if _, err := tx.Append(r, id, &event.NodeCreatedData{NodeKind: event.NodeStep, Snapshot: ref}); err != nil {
			return err
		}
		if prev != 0 {
			if _, err := tx.Append(r, id, &event.EdgeCreatedData{EdgeKind: event.EdgeAckedStep, From: prev, To: id}); err != nil {
				return err
			}
		}
		if _, err := tx.Append(r, id, &event.NodeOutputAppendedData{StepID: "s", NotesMarkdown: "did the step and found what it asked for"}); err != nil {
			return err
		}
		prev = id
	}
	return nil
}

// manySessions writes n sessions of a run of three nodes into a new file,
// many to a transaction, and returns its path.
func manySessions(b *testing.B, n int) string {
	path := filepath.Join(b.TempDir(), "many.db")
	s, err := Open(path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for done := 0; done < n; {
		err := s.commit.update(func(btx *bbolt.Tx) error {
			root := btx.Bucket(bucketSessions)
			for i := 0; i < 500 && done+i < n; i++ {
				seq, err := root.NextSequence()
				if err != nil {
					return err
				}
				sb, err := createSession(root, engine.SessionID(seq))
				if err != nil {
					return err
				}
				t := newTx(btx, sb, engine.SessionID(seq))
				if err := fillSession(t, 3); err != nil {
					return err
				}
				// What Update writes once per write: the derived records.
				if _, err := t.flush(); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		done += 500
	}
	return path
}

// BenchmarkOverviews measures what one page of the Console's sessions list
// reads at 10,000 sessions: a search that matches nothing walks every
// overview (cold: each decoded, as on the first walk after a restart);
// the newest 50 stop early. "upgrade" is the one-time fold of every
// session's overview when a file of schema 1 is first opened.
func BenchmarkOverviews(b *testing.B) {
	const sessions = 10000
	path := manySessions(b, sessions)
	s, err := Open(path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("search-all", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			seen := 0
			err := s.Overviews(0, func(_ engine.SessionID, o project.Overview, err error) bool {
				if err != nil {
					b.Fatal(err)
				}
				seen++
				return !strings.Contains(o.Title, "no such words")
			})
			if err != nil || seen != sessions {
				b.Fatalf("walked %d sessions, %v", seen, err)
			}
		}
	})
	b.Run("search-all-cold", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s.decodedMu.Lock()
			s.decoded = map[engine.SessionID]decodedOverview{} // as after a restart
			s.decodedMu.Unlock()
			seen := 0
			err := s.Overviews(0, func(_ engine.SessionID, o project.Overview, err error) bool {
				seen++
				return err == nil && !strings.Contains(o.Title, "no such words")
			})
			if err != nil || seen != sessions {
				b.Fatalf("walked %d sessions, %v", seen, err)
			}
		}
	})
	b.Run("newest-50", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			seen := 0
			err := s.Overviews(0, func(engine.SessionID, project.Overview, error) bool {
				seen++
				return seen < 50
			})
			if err != nil || seen != 50 {
				b.Fatalf("walked %d sessions, %v", seen, err)
			}
		}
	})
	s.Close()
	b.Run("upgrade", func(b *testing.B) {
		old := filepath.Join(b.TempDir(), "old.db")
		db, err := bbolt.Open(path, 0o600, nil)
		if err != nil {
			b.Fatal(err)
		}
		err = db.Update(func(tx *bbolt.Tx) error {
			root := tx.Bucket(bucketSessions)
			if err := root.ForEachBucket(func(k []byte) error { return root.Bucket(k).Delete(keyOverview) }); err != nil {
				return err
			}
			return tx.Bucket(bucketMeta).Put([]byte("schema"), u64(1))
		})
		db.Close()
		raw, _ := os.ReadFile(path)
		if err != nil || raw == nil {
			b.Fatal(err)
		}
		for b.Loop() {
			b.StopTimer()
			if err := os.WriteFile(old, raw, 0o600); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			s, err := Open(old, Options{})
			if err != nil {
				b.Fatal(err)
			}
			s.Close()
		}
	})
}
