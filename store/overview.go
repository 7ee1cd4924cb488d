package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/resume"
)

// Each session's bucket keeps its overview (project.Overview as JSON)
// under keyOverview: derived like the indexes, written in the transaction
// of every append, refolded and compared with them.

// storedIndex is a record derived from a session's log that its bucket
// keeps as JSON under key; last is the index of the last event the
// record folded.
type storedIndex[T any] struct {
	key  []byte
	what string
	last func(*T) engine.EventIndex
}

var (
	overviewIndex = storedIndex[project.Overview]{keyOverview, "overview",
		func(o *project.Overview) engine.EventIndex { return o.Last }}
	resumeRecordIndex = storedIndex[resume.Record]{keyResume, "resume record",
		func(r *resume.Record) engine.EventIndex { return r.Last }}
)

// read reads the record of t's session for a log of head events: the
// zero one for an empty log.
func (x storedIndex[T]) read(t *Tx, head engine.EventIndex) (T, error) {
	var v T
	raw := t.ix.get(nil, x.key)
	switch {
	case raw == nil && head == 0:
		return v, nil
	case raw == nil:
		return v, fmt.Errorf("store: session %s has no %s: its log did not verify or fold when it was made (see workrail doctor): %w", t.id, x.what, engine.ErrNotFound)
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, fmt.Errorf("store: session %s: %s: %w", t.id, x.what, err)
	}
	if last := x.last(&v); last != head {
		return v, fmt.Errorf("store: session %s: %s ends at event %d, the log at %d (run workrail doctor --rebuild-indexes)", t.id, x.what, last, head)
	}
	return v, nil
}

// add folds e into *held, the record this transaction holds, with fold
// (the record's Add), reading the stored record first. A record whose
// fold fails is dropped: half folded, it must never be written.
func (x storedIndex[T]) add(t *Tx, held **T, e event.Event, fold func(*T) error) error {
	if *held == nil {
		v, err := x.read(t, e.Index-1)
		if err != nil {
			return err
		}
		*held = &v
	}
	if err := fold(*held); err != nil {
		*held = nil
		return fmt.Errorf("store: %s of event %d: %w", x.what, e.Index, err)
	}
	return nil
}

// addOverview folds e into the overview this transaction holds.
func (t *Tx) addOverview(e event.Event) error {
	return overviewIndex.add(t, &t.ov, e, func(o *project.Overview) error { return o.Add(t, e) })
}

// Overview reads session id's overview: the derived record lists of
// sessions show and search. A session without one (its log did not
// verify when the file was upgraded) is an error wrapping
// engine.ErrNotFound.
func (s *Store) Overview(id engine.SessionID) (project.Overview, error) {
	var o project.Overview
	err := s.view(id, func(t *Tx) error {
		var err error
		o, err = s.overviewOf(t)
		return err
	})
	return o, err
}

// decodedOverview is an overview as decoded from raw, at a head.
type decodedOverview struct {
	raw  []byte
	head engine.EventIndex
	o    project.Overview
}

// overviewOf reads the overview of t's session, decoding it only when
// its bytes or its log's head changed since this store last did.
func (s *Store) overviewOf(t *Tx) (project.Overview, error) {
	raw, head := t.b.Get(keyOverview), t.Head()
	s.decodedMu.Lock()
	d, ok := s.decoded[t.id]
	s.decodedMu.Unlock()
	if ok && d.head == head && bytes.Equal(d.raw, raw) {
		return d.o.Clone(), nil
	}
	o, err := overviewIndex.read(t, head)
	if err != nil || raw == nil {
		return o, err
	}
	s.decodedMu.Lock()
	s.decoded[t.id] = decodedOverview{raw: bytes.Clone(raw), head: head, o: o}
	s.decodedMu.Unlock()
	return o.Clone(), nil
}

// Overviews walks the sessions newest first (by id, never by clock) in
// one read transaction, passing each with its overview to fn until fn
// returns false; before, when not 0, starts the walk below that id. A
// session whose overview cannot be read is passed with the error, and the
// walk goes on. Where the file's list of sessions is damaged it goes on by
// looking each older id up on its own.
func (s *Store) Overviews(before engine.SessionID, fn func(engine.SessionID, project.Overview, error) bool) error {
	next, stopped := before, false
	err := s.db.View(func(tx *bbolt.Tx) error {
		var c *bbolt.Cursor
		for {
			var k, v []byte
			var id engine.SessionID
			var o project.Overview
			var oerr error
			// Cursor moves and reads are guarded, fn is not: a panic in
			// it is its own, not damage.
			err := guarded(label("list sessions"), func() error {
				root := tx.Bucket(bucketSessions)
				if c == nil {
					c = root.Cursor()
					k, v = seekBelow(c, before)
				} else {
					k, v = c.Prev()
				}
				for k != nil && (len(k) != 8 || v != nil) {
					k, v = c.Prev()
				}
				if k != nil {
					id = engine.SessionID(binary.BigEndian.Uint64(k))
					o, oerr = s.readOverview(tx, root, k, id)
				}
				return nil
			})
			if err != nil || k == nil {
				return err
			}
			next = id
			if !fn(id, o, oerr) {
				stopped = true
				return nil
			}
		}
	})
	if errors.Is(err, ErrDamaged) && !stopped {
		return s.probeOverviews(next, fn)
	}
	return err
}

// seekBelow moves c to the last key below before (the last key when
// before is 0).
func seekBelow(c *bbolt.Cursor, before engine.SessionID) ([]byte, []byte) {
	if before == 0 {
		return c.Last()
	}
	if k, _ := c.Seek(sessionKey(before)); k == nil {
		return c.Last()
	}
	return c.Prev()
}

// readOverview reads one session's overview in a walk; damage is its
// error, not the walk's.
func (s *Store) readOverview(tx *bbolt.Tx, root *bbolt.Bucket, key []byte, id engine.SessionID) (o project.Overview, err error) {
	err = guarded(id, func() error {
		b := root.Bucket(key)
		if b == nil {
			return fmt.Errorf("store: session %s: %w", id, engine.ErrNotFound)
		}
		o, err = s.overviewOf(newTx(tx, b, id))
		return err
	})
	return o, err
}

// probeOverviews goes on with a walk below id where the list of sessions
// cannot be read: each older id is looked up on its own, and one whose
// lookup fails on damage is passed with that error.
func (s *Store) probeOverviews(below engine.SessionID, fn func(engine.SessionID, project.Overview, error) bool) error {
	top, err := s.topSessionID()
	if err != nil {
		return err
	}
	if below != 0 {
		top = min(top, uint64(below)-1)
	}
	for n := top; n >= 1; n-- {
		id := engine.SessionID(n)
		var o project.Overview
		found := true
		err := guarded(id, func() error {
			return s.db.View(func(tx *bbolt.Tx) error {
				root := tx.Bucket(bucketSessions)
				if found = root.Bucket(sessionKey(id)) != nil; found {
					var err error
					o, err = s.readOverview(tx, root, sessionKey(id), id)
					return err
				}
				return nil
			})
		})
		if (found || err != nil) && !fn(id, o, err) {
			return nil
		}
	}
	return nil
}

// addIndexes gives every session without an overview (a file of schema
// 1 kept none) or a resume record (a file of schema 2 or older kept none)
// what it lacks, from one fold of its verified log, in memory, not from
// the stored indexes. A session whose log does not verify or fold is
// left without: reading it says so, it is not offered to resume, and
// doctor says why. An overview that folds is written even where the
// resume record does not.
func addIndexes(tx *bbolt.Tx) error {
	root := tx.Bucket(bucketSessions)
	keys, err := sessionKeys(root)
	if err != nil {
		return err
	}
	for _, k := range keys {
		b := root.Bucket(k)
		needOverview, needResume := b.Get(keyOverview) == nil, b.Get(keyResume) == nil
		if !needOverview && !needResume {
			continue
		}
		// Not newTx: the upgrade writes none of the appended buckets, and
		// a damaged session may lack one.
		t := &Tx{tx: tx, b: b, id: engine.SessionID(binary.BigEndian.Uint64(k)), ix: bucketKV{b}}
		g := project.NewGraph(t.id, t.Snapshot)
		var o project.Overview
		l := project.NewLineage() // which the overview's figures of each run are read from
		var r resume.Record
		var resumeErr error
		h := t.verifyChain(func(e event.Event) error {
			if err := g.Add(e); err != nil {
				return err
			}
			if err := o.Add(g, e); err != nil {
				return err
			}
			if err := project.Project(l, g, &o, e); err != nil {
				return err
			}
			if resumeErr == nil && needResume {
				resumeErr = r.Add(g, e)
			}
			return nil
		})
		if h.Status != execute.Healthy || h.LastGood == 0 {
			continue
		}
		if needOverview {
			if err := t.putJSON(nil, keyOverview, shaped(&o)); err != nil {
				return err
			}
		}
		if needResume && resumeErr == nil && r.Refresh(g, o) == nil {
			if err := t.putJSON(nil, keyResume, r); err != nil {
				return err
			}
		}
	}
	return nil
}

// sessionKeys lists the keys of the sessions in root, for a walk that
// writes to them.
func sessionKeys(root *bbolt.Bucket) ([][]byte, error) {
	var keys [][]byte
	err := root.ForEachBucket(func(k []byte) error {
		if len(k) == 8 {
			keys = append(keys, bytes.Clone(k))
		}
		return nil
	})
	return keys, err
}

// dropResumes removes every session's resume record, for addIndexes to
// fold again.
func dropResumes(tx *bbolt.Tx) error {
	root := tx.Bucket(bucketSessions)
	keys, err := sessionKeys(root)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := root.Bucket(k).Delete(keyResume); err != nil {
			return err
		}
	}
	return nil
}
