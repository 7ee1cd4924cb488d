package store

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/resume"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// fillResumable appends session i: its observations, then a run of steps
// nodes (fillRun) whose tip carries notes drawn from a small vocabulary,
// so queries match some sessions and not others.
func fillResumable(tx execute.Tx, i, steps int) error {
	if _, err := tx.Append(0, 0, &event.SessionCreatedData{CreatedAt: "2026-01-01T00:00:00Z"}); err != nil {
		return err
	}
	for _, o := range []event.ObservationRecordedData{
		{Key: event.ObsGitBranch, Value: fmt.Sprintf("feature/%d", i%50)},
		{Key: event.ObsGitHeadSHA, Value: fmt.Sprintf("%040x", i)},
		{Key: event.ObsRepoRoot, Value: fmt.Sprintf("/src/repo%d", i%20)},
	} {
		if _, err := tx.Append(0, 0, &o); err != nil {
			return err
		}
	}
	r, err := tx.NewRunID()
	if err != nil {
		return err
	}
	if _, err := tx.Append(r, 0, &event.RunStartedData{WorkflowID: "wr.x"}); err != nil {
		return err
	}
	snap := func(n int) run.Snapshot { return run.Snapshot{V: n, Position: run.Position{Kind: run.Complete}} }
	if err := fillRun(tx, r, steps, snap); err != nil {
		return err
	}
	topics := []string{"auth", "billing", "search", "cache", "upload", "login", "export"}
	notes := fmt.Sprintf("Session %d: fixing the %s bug; next the %s tests.", i, topics[i%len(topics)], topics[(i/7)%len(topics)])
	_, err = tx.Append(r, engine.NodeID(steps), &event.NodeOutputAppendedData{StepID: "s", NotesMarkdown: notes})
	return err
}

// resumableFile writes n sessions of steps nodes into a new file, many to
// a transaction, each with its resume record, and returns its path.
func resumableFile(b *testing.B, n, steps int) string {
	path := filepath.Join(b.TempDir(), "resume.db")
	s, err := Open(path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for done := 0; done < n; done += 250 {
		err := s.commit.update(func(btx *bbolt.Tx) error {
			root := btx.Bucket(bucketSessions)
			for i := done; i < done+250 && i < n; i++ {
				seq, err := root.NextSequence()
				if err != nil {
					return err
				}
				sb, err := createSession(root, engine.SessionID(seq))
				if err != nil {
					return err
				}
				t := newTx(btx, sb, engine.SessionID(seq))
				if err := fillResumable(t, i, steps); err != nil {
					return err
				}
				if _, err := t.flushResume(); err != nil {
					return err
				}
				if err := markWritten(btx, sessionKey(engine.SessionID(seq))); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return path
}

// BenchmarkResume measures resume_session over 10,000 sessions of 20
// steps: the whole use case (rank the in-memory index, check the health
// of those offered, mint their tokens, render), the ranking alone, and
// the first query after a restart, which loads every record from the
// file. Each reports its median, and the index's size per session.
func BenchmarkResume(b *testing.B) {
	const sessions, steps = 10000, 20
	path := resumableFile(b, sessions, steps)
	s, err := Open(path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var total int
	s.db.View(func(tx *bbolt.Tx) error {
		root := tx.Bucket(bucketSessions)
		return root.ForEachBucket(func(k []byte) error {
			total += len(root.Bucket(k).Get(keyResume))
			return nil
		})
	})
	x := execute.New(s, executetest.Ring(b), executetest.Long(b, 1), workflow.Preferences{}, executetest.Clock, b.Logf)
	raw := []byte(`{"query":"auth bug","gitBranch":"feature/7","workspacePath":"/src/repo3/web"}`)
	q := resume.NewQuery("auth bug", "feature/7", "", "/src/repo3/web")
	for _, c := range []struct {
		name string
		op   func()
	}{
		{"resume_session", func() {
			if r := x.ResumeSession(context.Background(), raw); r.ResultKind() != protocol.KindCandidates {
				b.Fatal(r.RenderedText())
			}
		}},
		{"rank", func() {
			ms, err := s.Resume(q)
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for range ms {
				if n++; n == resume.MaxCandidates {
					break
				}
			}
		}},
		{"first-after-restart", func() {
			s.resume = resumeIndex{}
			if ms, err := s.Resume(q); err != nil || len(slices.Collect(ms)) != sessions {
				b.Fatalf("ranked %v", err)
			}
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var took []time.Duration
			for b.Loop() {
				start := time.Now()
				c.op()
				took = append(took, time.Since(start))
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "median-ms")
			b.ReportMetric(float64(total)/sessions, "index-B/session")
		})
	}
}
