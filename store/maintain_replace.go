package store

import (
	"context"
	"encoding/binary"
	"fmt"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/resume"
	"github.com/workrail/workrail/store/internal/layout"
)

// bucketReplaced: the key of a session Replace deleted → the id of the
// session that took its place, so that a call with the deleted session's
// tokens learns where to go (execute.ReplacedError). Ids are never handed
// out again, so an entry never goes stale.
var bucketReplaced = layout.Replaced

// maxReplaced bounds how long a chain of replacements is followed (a
// session scrubbed, its copy scrubbed again…): more would be a loop.
const maxReplaced = 64

// Replace implements execute.Store: in one write, it verifies session
// id completely (one that does not verify is refused), creates a session
// running fn, deletes id as a retention sweep deletes one, and records
// which session replaced it. The snapshots and pins only the deleted
// session named are then collected, as after a sweep.
func (s *Store) Replace(id engine.SessionID, fn func(old execute.ReadTx, tx execute.Tx) error) (engine.SessionID, error) {
	var nid engine.SessionID
	var rec *resume.Record
	err := s.commit.update(func(btx *bbolt.Tx) error {
		root := btx.Bucket(bucketSessions)
		key := sessionKey(id)
		b := root.Bucket(key)
		if b == nil {
			return missing(btx, id)
		}
		old := newTx(btx, b, id)
		refs, r, err := old.references()
		if detail := unverified(r, err); detail != "" {
			return fmt.Errorf("store: replace session %s: it does not verify (%s)", id, detail)
		}
		if nid, rec, err = s.create(btx, func(t execute.Tx) error { return fn(execute.ReadOnly(old), t) }); err != nil {
			return err
		}
		if err := root.DeleteBucket(key); err != nil {
			return fmt.Errorf("store: delete session %s: %w", id, err)
		}
		if err := btx.Bucket(bucketActivity).Delete(key); err != nil {
			return err
		}
		if err := forgetWritten(btx, key); err != nil {
			return err
		}
		for _, r := range refs {
			if err := btx.Bucket(bucketUnreferenced).Put(r.key(), key); err != nil {
				return err
			}
		}
		return btx.Bucket(bucketReplaced).Put(key, u64(uint64(nid)))
	})
	if err != nil {
		return 0, err
	}
	s.created(nid, rec)
	s.forget(id)
	_, _, _, err = s.collect(context.Background())
	return nid, err
}

// missing is the error of a lookup of session id that is not in the
// file: an *execute.ReplacedError when a Replace deleted it, else not
// found.
func missing(btx *bbolt.Tx, id engine.SessionID) error {
	by, ok := replacedBy(btx, id)
	if !ok {
		return fmt.Errorf("store: session %s: %w", id, engine.ErrNotFound)
	}
	return &execute.ReplacedError{Session: id, By: by}
}

// replacedBy is the session that replaced session id, following the
// chain to its end; false when none did.
func replacedBy(btx *bbolt.Tx, id engine.SessionID) (engine.SessionID, bool) {
	r := btx.Bucket(bucketReplaced)
	if r == nil { // a file read without upgrading it
		return 0, false
	}
	by, ok := id, false
	for range maxReplaced {
		v := r.Get(sessionKey(by))
		if len(v) != 8 {
			break
		}
		by, ok = engine.SessionID(binary.BigEndian.Uint64(v)), true
	}
	return by, ok
}
