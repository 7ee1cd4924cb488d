package store

import (
	"context"
	"errors"
	"fmt"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine"
)

// ErrWrittenSince is Delete's refusal of a session written to after the
// head it was asked to delete at.
var ErrWrittenSince = errors.New("store: the session was written to since")

// Delete removes session id, as a retention sweep does, provided it
// verifies and its last event is still head: what replaced it (a
// redacted copy) was made from the log up to head, so a session written
// since is kept (ErrWrittenSince). The snapshots and pins it referenced
// that no other log names are deleted with it (a collection, as after a
// sweep), so a snapshot holding a secret does not stay behind. Its id is
// never handed out again.
func (s *Store) Delete(id engine.SessionID, head engine.EventIndex) error {
	d, kept := s.verifyStale(StaleSession{Session: id})
	if kept != nil {
		return fmt.Errorf("store: delete session %s: it does not verify (%s)", id, kept.Detail)
	}
	if d.head != head {
		return fmt.Errorf("%w: session %s has %d events, not %d", ErrWrittenSince, id, d.head, head)
	}
	err := s.commit.update(func(btx *bbolt.Tx) error {
		root := btx.Bucket(bucketSessions)
		key := sessionKey(id)
		b := root.Bucket(key)
		if b == nil {
			return fmt.Errorf("store: delete session %s: %w", id, engine.ErrNotFound)
		}
		if h, digest := headOf(b); h != d.head || digest != d.digest {
			return fmt.Errorf("%w: session %s", ErrWrittenSince, id)
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
		for _, r := range d.refs {
			if err := btx.Bucket(bucketUnreferenced).Put(r.key(), key); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.forget(id)
	_, _, _, err = s.collect(context.Background())
	return err
}
