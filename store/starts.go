package store

import (
	"bytes"
	"encoding/binary"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/store/internal/layout"
)

// bucketStarts keeps the latest starts made under a retry key, so a start
// sent again (its daemon went away before answering) is answered with
// the run it made: start key → sequence ‖ session ‖ run, the sequence
// (the bucket's own) telling the latest. At least the latest
// execute.StartsKept are kept: a call is sent again within seconds. It
// is beside the logs, not in them, and an older build of the same
// schema ignores it.
var bucketStarts = layout.Starts

// pruneStarts is how many starts are recorded between two walks that
// drop the records past the latest execute.StartsKept: a lookup is one
// Get, and the walk costs each start a fraction of a record.
const pruneStarts = 256

// StartedBy implements execute.Tx: key's record, if its session is still
// in the file.
func (t *Tx) StartedBy(key execute.StartKey) (execute.Started, bool, error) {
	b := t.tx.Bucket(bucketStarts)
	if b == nil {
		return execute.Started{}, false, nil
	}
	v := b.Get(key[:])
	if len(v) != 24 {
		return execute.Started{}, false, nil
	}
	r := execute.Started{Session: engine.SessionID(binary.BigEndian.Uint64(v[8:])), Run: engine.RunID(binary.BigEndian.Uint64(v[16:]))}
	if t.tx.Bucket(bucketSessions).Bucket(sessionKey(r.Session)) == nil {
		return execute.Started{}, false, nil // deleted since
	}
	return r, true, nil
}

// RecordStart implements execute.Tx; every pruneStarts records, it
// drops those past the latest execute.StartsKept.
func (t *Tx) RecordStart(key execute.StartKey, r execute.Started) error {
	b := t.tx.Bucket(bucketStarts)
	seq, err := b.NextSequence()
	if err != nil {
		return err
	}
	if err := b.Put(key[:], append(append(u64(seq), u64(uint64(r.Session))...), u64(uint64(r.Run))...)); err != nil {
		return err
	}
	if seq%pruneStarts != 0 {
		return nil
	}
	var old [][]byte
	err = b.ForEach(func(k, v []byte) error {
		if len(v) != 24 || binary.BigEndian.Uint64(v)+execute.StartsKept <= seq {
			old = append(old, bytes.Clone(k))
		}
		return nil
	})
	for _, k := range old {
		if err != nil {
			break
		}
		err = b.Delete(k)
	}
	return err
}
