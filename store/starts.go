package store

import (
	"bytes"
	"encoding/binary"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute"
)

// bucketStarts keeps the latest starts made under a call key, so a start
// sent again (its daemon went away before answering) is answered with
// the run it made: sequence ‖ start key → session ‖ run, the sequence
// (the bucket's own) putting the oldest first. Only the latest
// execute.StartsKept are kept: a call is sent again within seconds. It
// is beside the logs, not in them, and an older build of the same
// schema ignores it.
var bucketStarts = []byte("starts")

// StartedBy implements execute.Tx: the newest record of key whose
// session the file still holds.
func (t *Tx) StartedBy(key execute.StartKey) (execute.Started, bool, error) {
	b := t.tx.Bucket(bucketStarts)
	if b == nil {
		return execute.Started{}, false, nil
	}
	c := b.Cursor()
	for k, v := c.Last(); k != nil; k, v = c.Prev() {
		if len(k) != 8+len(key) || len(v) != 16 || !bytes.Equal(k[8:], key[:]) {
			continue
		}
		r := execute.Started{Session: engine.SessionID(binary.BigEndian.Uint64(v)), Run: engine.RunID(binary.BigEndian.Uint64(v[8:]))}
		if t.tx.Bucket(bucketSessions).Bucket(sessionKey(r.Session)) == nil {
			return execute.Started{}, false, nil // deleted since
		}
		return r, true, nil
	}
	return execute.Started{}, false, nil
}

// RecordStart implements execute.Tx, dropping the records past the
// latest execute.StartsKept.
func (t *Tx) RecordStart(key execute.StartKey, r execute.Started) error {
	b := t.tx.Bucket(bucketStarts)
	seq, err := b.NextSequence()
	if err != nil {
		return err
	}
	if err := b.Put(append(u64(seq), key[:]...), append(u64(uint64(r.Session)), u64(uint64(r.Run))...)); err != nil {
		return err
	}
	c := b.Cursor()
	for k, _ := c.First(); k != nil && len(k) >= 8 && binary.BigEndian.Uint64(k)+execute.StartsKept <= seq; k, _ = c.First() {
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return nil
}
