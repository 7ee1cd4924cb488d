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
type recordVersions struct{ indexes, overview, resume uint32 }

// legacyVersions are the versions of records kept without a label:
// those written before labels were (schemas 1 to 4), or folded by an
// upgrade from one of those.
var legacyVersions = recordVersions{1, 1, 1}

// definitions is this build's definition of the derived records: their
// versions and, in tests only (export_test.go), a change to the
// overview's rule, so one test binary can play two builds.
var definitions = struct {
	versions recordVersions
	// shapeOverview, when set, changes an overview after each fold and
	// before it is written or compared. It must be idempotent.
	shapeOverview func(*project.Overview)
}{versions: recordVersions{project.IndexVersion, project.OverviewVersion, resume.RecordVersion}}

func (v recordVersions) encode() []byte {
	b := binary.BigEndian.AppendUint32(nil, v.indexes)
	b = binary.BigEndian.AppendUint32(b, v.overview)
	return binary.BigEndian.AppendUint32(b, v.resume)
}

// storedVersions are the versions session bucket b's records were
// written under.
func storedVersions(b *bbolt.Bucket) recordVersions {
	v := b.Get(keyDerived)
	if len(v) != 12 {
		return legacyVersions
	}
	return recordVersions{binary.BigEndian.Uint32(v), binary.BigEndian.Uint32(v[4:]), binary.BigEndian.Uint32(v[8:])}
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
// session written under definitions other than this build's, in write
// transactions of refreshBatch sessions, so agents' writes go between
// them. A session whose log does not verify is left as it is (its health
// says why). It returns how many sessions it rebuilt; ctx stops it
// between two transactions.
func (s *Store) RefreshDerived(ctx context.Context) (int, error) {
	ids, err := s.staleSessions()
	if err != nil {
		return 0, err
	}
	n := 0
	for len(ids) > 0 {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		batch := ids[:min(len(ids), refreshBatch)]
		ids = ids[len(batch):]
		done, err := s.refresh(batch)
		if err != nil {
			return n, err
		}
		n += done
	}
	return n, nil
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

// refresh rebuilds the stale sessions of batch in one transaction; when
// that fails (a session's pages are damaged) it rebuilds each on its own,
// so one damaged session costs only itself.
func (s *Store) refresh(batch []engine.SessionID) (int, error) {
	done := map[engine.SessionID]*rebuiltRecords{}
	err := s.commit.update(func(btx *bbolt.Tx) error {
		clear(done)
		root := btx.Bucket(bucketSessions)
		for _, id := range batch {
			b := root.Bucket(sessionKey(id))
			if b == nil || !stale(b) {
				continue // deleted, or rebuilt by a write since the list was made
			}
			r, err := s.rebuildIn(btx, b, id)
			if errors.Is(err, errDamagedLog) {
				continue
			}
			if err != nil {
				return err
			}
			done[id] = r
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
		return 0, nil
	}
	n := 0
	for _, id := range batch {
		k, _ := s.refresh([]engine.SessionID{id})
		n += k
	}
	return n, nil
}
