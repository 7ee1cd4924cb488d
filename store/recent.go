package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/store/internal/layout"
)

// The store-wide write sequence orders sessions by recent activity
// without a clock: every write that appends to a session takes the next
// number (unless it holds the highest already), so the session written
// last has the highest. It lives beside
// the logs, not in them (no event carries it), in two top-level buckets
// kept in step: bucketRecent (sequence → session key), walked backwards
// for the list, and bucketWritten (session key → its sequence), to find
// a session's entry when it is written again.
var (
	bucketRecent  = layout.Recent
	bucketWritten = layout.Written
)

// schemaRecent is the first version that keeps the write sequence; an
// older file has it filled once, in the order of its sessions' last
// writes by the clock (then their ids), which is all it knows.
const schemaRecent = 6

// markWritten gives session key the next write sequence, unless it
// already holds the highest: the order is then the same, and a write that
// continues the session written last (an agent's next advance) touches
// neither bucket.
func markWritten(btx *bbolt.Tx, key []byte) error {
	rec, wr := btx.Bucket(bucketRecent), btx.Bucket(bucketWritten)
	if old := wr.Get(key); old != nil {
		if last, _ := rec.Cursor().Last(); bytes.Equal(last, old) {
			return nil
		}
		if err := rec.Delete(old); err != nil {
			return err
		}
	}
	seq, err := rec.NextSequence()
	if err != nil {
		return err
	}
	if err := rec.Put(u64(seq), key); err != nil {
		return err
	}
	return wr.Put(key, u64(seq))
}

// writtenAt is session key's place in the write sequence; 0 when it has
// none (a file from before the sequence, read without upgrading it).
func writtenAt(btx *bbolt.Tx, key []byte) engine.Write {
	wr := btx.Bucket(bucketWritten)
	if wr == nil {
		return 0
	}
	v := wr.Get(key)
	if len(v) != 8 {
		return 0
	}
	return engine.Write(binary.BigEndian.Uint64(v))
}

// forgetWritten removes a deleted session's entry.
func forgetWritten(btx *bbolt.Tx, key []byte) error {
	wr := btx.Bucket(bucketWritten)
	if old := wr.Get(key); old != nil {
		if err := btx.Bucket(bucketRecent).Delete(old); err != nil {
			return err
		}
	}
	return wr.Delete(key)
}

// fillRecent numbers every session of a file written before schema 6,
// oldest activity first.
func fillRecent(tx *bbolt.Tx) error {
	type entry struct {
		key []byte
		at  int64
	}
	var all []entry
	err := tx.Bucket(bucketSessions).ForEachBucket(func(k []byte) error {
		if len(k) == 8 {
			at, _ := lastActive(tx, k)
			all = append(all, entry{key: slices.Clone(k), at: at})
		}
		return nil
	})
	if err != nil {
		return err
	}
	slices.SortStableFunc(all, func(a, b entry) int {
		if a.at != b.at {
			return int(a.at - b.at)
		}
		return slices.Compare(a.key, b.key)
	})
	for _, e := range all {
		if tx.Bucket(bucketWritten).Get(e.key) != nil {
			continue
		}
		if err := markWritten(tx, e.key); err != nil {
			return err
		}
	}
	return nil
}

// Recent walks the sessions written before write below (every session
// when below is 0), the most recently written first, with each one's
// place in the sequence (the cursor of the next page) and its overview,
// until fn returns false. A session written while a reader pages moves
// above the page it was on, so no session is shown twice. When the
// sequence cannot be read (a damaged file), it walks by id instead.
func (s *Store) Recent(below execute.Write, fn func(engine.SessionID, execute.Write, project.Overview, error) bool) error {
	stopped, unnumbered := false, false
	seen := map[engine.SessionID]bool{} // passed to fn before any damage
	err := guarded(label("list recent sessions"), func() error {
		return s.db.View(func(tx *bbolt.Tx) error {
			if unnumbered = tx.Bucket(bucketRecent) == nil; unnumbered {
				return nil // an older file opened read-only
			}
			c := tx.Bucket(bucketRecent).Cursor()
			root := tx.Bucket(bucketSessions)
			k, v := c.Last()
			if below != 0 {
				if k, _ = c.Seek(u64(uint64(below))); k == nil {
					k, v = c.Last()
				} else {
					k, v = c.Prev()
				}
			}
			for ; k != nil; k, v = c.Prev() {
				if len(k) != 8 || len(v) != 8 {
					continue
				}
				w := execute.Write(binary.BigEndian.Uint64(k))
				id := engine.SessionID(binary.BigEndian.Uint64(v))
				o, oerr := s.readOverview(tx, root, v, id)
				seen[id] = true
				if !fn(id, w, o, oerr) {
					stopped = true
					return nil
				}
			}
			return nil
		})
	})
	if unnumbered || (errors.Is(err, ErrDamaged) && !stopped) {
		return s.Overviews(0, func(id engine.SessionID, o project.Overview, err error) bool {
			return seen[id] || fn(id, 0, o, err)
		})
	}
	return err
}
