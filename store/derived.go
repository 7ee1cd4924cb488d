package store

import (
	"context"
	"encoding/binary"
	"errors"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/resume"
)

// The records a session's bucket derives from its log (the nodes, runs
// and attempts indexes, the overview, the resume record) are caches:
// only the log, the snapshots and the pinned workflows decide whether a
// session runs. Each kind has a definition version, a constant next to
// the code that defines it (project.IndexVersion,
// project.OverviewVersion, resume.RecordVersion), and each session's
// bucket names under keyDerived the versions its records were written
// under. Records of another definition, older or newer, are rebuilt from
// the log in this build's: on the first write of the session, on its
// first health check, or by the background pass after open
// (RefreshDerived), whichever comes first.

// recordVersions are the definition versions of a session's derived
// records.
type recordVersions struct{ indexes, overview, resume, projection uint32 }

// legacyVersions are the versions of records kept without a label:
// those written before labels were (schemas 1 to 4), or folded by an
// upgrade from one of those.
var legacyVersions = recordVersions{1, 1, 1, 0}

// definitions is this build's definition of the derived records: their
// versions and, in tests only (export_test.go), a change to the
// overview's rule, so one test binary can play two builds.
var definitions = struct {
	versions recordVersions
	// shapeOverview, when set, changes an overview after each fold and
	// before it is written or compared. It must be idempotent.
	shapeOverview func(*project.Overview)
}{versions: recordVersions{project.IndexVersion, project.OverviewVersion, resume.RecordVersion, project.ProjectionVersion}}

func (v recordVersions) encode() []byte {
	b := binary.BigEndian.AppendUint32(nil, v.indexes)
	b = binary.BigEndian.AppendUint32(b, v.overview)
	b = binary.BigEndian.AppendUint32(b, v.resume)
	return binary.BigEndian.AppendUint32(b, v.projection)
}

// storedVersions are the versions session bucket b's records were
// written under.
func storedVersions(b *bbolt.Bucket) recordVersions {
	v := b.Get(keyDerived)
	switch len(v) {
	case 12: // written before the projection was kept: it keeps none
		return recordVersions{binary.BigEndian.Uint32(v), binary.BigEndian.Uint32(v[4:]), binary.BigEndian.Uint32(v[8:]), 0}
	case 16:
		return recordVersions{binary.BigEndian.Uint32(v), binary.BigEndian.Uint32(v[4:]), binary.BigEndian.Uint32(v[8:]), binary.BigEndian.Uint32(v[12:])}
	}
	return legacyVersions
}

// stale reports whether session bucket b's records were written under
// definitions other than this build's.
func stale(b *bbolt.Bucket) bool { return storedVersions(b) != definitions.versions }

// labelRecords names this build's definitions as those of b's records.
func labelRecords(b *bbolt.Bucket) error {
	if !stale(b) {
		return nil
	}
	return b.Put(keyDerived, definitions.versions.encode())
}

// shaped applies the test hook, if any, to an overview about to be
// written or compared.
func shaped(o *project.Overview) *project.Overview {
	if o != nil && definitions.shapeOverview != nil {
		definitions.shapeOverview(o)
	}
	return o
}

// refreshBatch is how many sessions RefreshDerived rebuilds in one write
// transaction: few enough that an agent's write waiting behind one is
// not held long, enough that the fsyncs do not dominate.
const refreshBatch = 128

// RefreshDerived rebuilds from their logs the derived records of every
// session written under definitions other than this build's. Sessions
// are verified and folded in read transactions, a batch ahead, and their
// records written, where they differ, in write transactions of
// refreshBatch sessions, so agents' writes go between them and wait for
// no fold. A session whose log does not verify is left as it is (its
// health says why). It returns how many sessions it rebuilt; ctx stops it
// between two transactions.
func (s *Store) RefreshDerived(ctx context.Context) (int, error) {
	ids, err := s.staleSessions()
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan []foldedSession, 1)
	go s.foldBatches(ctx, ids, batches)
	n := 0
	var werr error
	for batch := range batches {
		if werr != nil || ctx.Err() != nil {
			continue // until foldBatches sees ctx is done
		}
		var done int
		if done, werr = s.refresh(batch); werr != nil {
			cancel()
		}
		n += done
	}
	if werr != nil {
		return n, werr
	}
	return n, ctx.Err()
}

// foldedSession is a stale session's records folded from its log ahead
// of the write (nil when its log could not be read).
type foldedSession struct {
	id engine.SessionID
	f  *folded
}

// foldBatches verifies and folds the sessions of ids, refreshBatch at a
// time, and sends each batch to out, which it closes at the end.
// Sessions whose logs do not verify are left out.
func (s *Store) foldBatches(ctx context.Context, ids []engine.SessionID, out chan<- []foldedSession) {
	defer close(out)
	pins := map[engine.Digest]bool{}
	for len(ids) > 0 {
		batch := make([]foldedSession, 0, refreshBatch)
		for _, id := range ids[:min(len(ids), refreshBatch)] {
			var f *folded
			err := s.view(id, func(t *Tx) error {
				var err error
				f, err = foldLog(t, pins)
				return err
			})
			if !errors.Is(err, errDamagedLog) {
				batch = append(batch, foldedSession{id, f})
			}
		}
		ids = ids[min(len(ids), refreshBatch):]
		select {
		case out <- batch:
		case <-ctx.Done():
			return
		}
	}
}

// staleSessions lists the sessions whose records are of another
// definition. A damaged list of sessions is left to the first touch of
// each.
func (s *Store) staleSessions() ([]engine.SessionID, error) {
	var ids []engine.SessionID
	err := guarded(label("list sessions"), func() error {
		return s.db.View(func(tx *bbolt.Tx) error {
			root := tx.Bucket(bucketSessions)
			return root.ForEachBucket(func(k []byte) error {
				if len(k) == 8 && stale(root.Bucket(k)) {
					ids = append(ids, engine.SessionID(binary.BigEndian.Uint64(k)))
				}
				return nil
			})
		})
	})
	if errors.Is(err, ErrDamaged) {
		return ids, nil
	}
	return ids, err
}

// refresh writes the records folded for batch in one transaction; a
// session written since its fold (its log's head moved) is folded again
// there. When the transaction fails (a session's pages are damaged) it
// writes each session on its own, so one damaged session costs only
// itself.
func (s *Store) refresh(batch []foldedSession) (int, error) {
	done := map[engine.SessionID]*rebuiltRecords{}
	err := s.commit.update(func(btx *bbolt.Tx) error {
		clear(done)
		root := btx.Bucket(bucketSessions)
		for _, fs := range batch {
			b := root.Bucket(sessionKey(fs.id))
			if b == nil || !stale(b) {
				continue // deleted, or rebuilt by a write since the list was made
			}
			var r *rebuiltRecords
			var err error
			if head, _ := headOf(b); fs.f != nil && fs.f.head == head {
				r, err = s.keep(btx, b, fs.id, fs.f)
			} else {
				r, err = s.rebuildIn(btx, b, fs.id)
			}
			if errors.Is(err, errDamagedLog) {
				continue
			}
			if err != nil {
				return err
			}
			done[fs.id] = r
		}
		return nil
	})
	if err == nil {
		for id, r := range done {
			s.rebuilt(id, r)
		}
		return len(done), nil
	}
	if len(batch) == 1 {
		s.logf("session %s: derived records not rebuilt: %v", batch[0].id, err)
		return 0, nil
	}
	n := 0
	for _, fs := range batch {
		k, _ := s.refresh([]foldedSession{fs})
		n += k
	}
	return n, nil
}
