package store

import (
	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine"
)

// Holds counts how many of the given snapshots and pinned workflows the
// file already keeps (by address; their contents are verified on read).
func (s *Store) Holds(snapshots []engine.SnapshotRef, workflows []engine.WorkflowHash) (snapshotsHeld, workflowsHeld int, err error) {
	err = guarded(label("content-addressed records"), func() error {
		return s.db.View(func(tx *bbolt.Tx) error {
			snaps, wfs := tx.Bucket(bucketSnapshots), tx.Bucket(bucketWorkflows)
			for _, r := range snapshots {
				if snaps.Get(r[:]) != nil {
					snapshotsHeld++
				}
			}
			for _, h := range workflows {
				if wfs.Get(h[:]) != nil {
					workflowsHeld++
				}
			}
			return nil
		})
	})
	return snapshotsHeld, workflowsHeld, err
}
