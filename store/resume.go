package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"sync"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/resume"
)

// Each session's bucket keeps its resume record (resume.Record as JSON)
// under keyResume: derived like the overview, folded on every append and
// written once at the end of each write of the session (Refresh reads the
// tips of the runs the write touched), refolded and compared with the
// other indexes. A query ranks an in-memory copy of every record, loaded
// on the first query and kept by every commit after, so it reads no log
// and no file; each copy carries the session's place in the write
// sequence as of the transaction that read or wrote it, which only a
// later write of the same session changes (and that write's commit
// replaces the copy).

// addResume folds e into the record this transaction holds.
func (t *Tx) addResume(e event.Event) error {
	return resumeRecordIndex.add(t, &t.rs, e, func(r *resume.Record) error { return r.Add(t, e) })
}

// resumeRecord finishes the record of this transaction's appends: nil
// when it appended nothing.
func (t *Tx) resumeRecord() (*resume.Record, error) {
	if t.rs == nil {
		return nil, nil
	}
	if err := t.rs.Refresh(t, *t.ov); err != nil {
		return nil, fmt.Errorf("store: resume record of session %s: %w", t.id, err)
	}
	return t.rs, nil
}

// flushResume finishes the record of this transaction's appends and
// writes it; it returns the record written, nil when there was none.
func (t *Tx) flushResume() (*resume.Record, error) {
	r, err := t.resumeRecord()
	if err != nil || r == nil {
		return nil, err
	}
	return r, t.putJSON(nil, keyResume, r)
}

// workflowName is the name of the pinned workflow h, "" when it cannot
// be read: a run is still found by its workflow id.
func (t *Tx) workflowName(h engine.WorkflowHash) string {
	b, err := getCAS(t.tx.Bucket(bucketWorkflows), engine.Digest(h))
	if err != nil {
		return ""
	}
	var w struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(b, &w) != nil {
		return ""
	}
	return w.Name
}

// Resume ranks every session's resume record for q (resume.Rank), healthy
// or not: the caller asks Health of those it offers.
func (s *Store) Resume(q resume.Query) (iter.Seq[resume.Match], error) {
	recs, err := s.resume.all(s.loadResume)
	if err != nil {
		return nil, err
	}
	return resume.Rank(q, recs), nil
}

// WarmResume loads the resume records now instead of at the first query.
// A failure is left for that query to report.
func (s *Store) WarmResume() { s.resume.all(s.loadResume) }

// resumeIndex is the in-memory copy of every session's resume record,
// each named (resume.Record.Name). Records are replaced whole, never
// changed, so a query ranks them without holding the lock.
type resumeIndex struct {
	mu     sync.Mutex
	loaded bool
	recs   map[engine.SessionID]*resume.Record
	// names caches pinned workflows' names by hash: pins never change.
	names sync.Map
}

// complete gives r what ranking reads beside the log's fold: the
// session's place in the write sequence and its runs' workflows' names,
// read through t (names once per workflow).
func (x *resumeIndex) complete(r *resume.Record, t *Tx) {
	if r == nil {
		return
	}
	r.Written = writtenAt(t.tx, sessionKey(t.id))
	r.Name(func(h engine.WorkflowHash) string {
		if v, ok := x.names.Load(h); ok {
			return v.(string)
		}
		name := t.workflowName(h)
		if name != "" {
			x.names.Store(h, name)
		}
		return name
	})
}

// all returns every record, loading them with load on first use.
func (x *resumeIndex) all(load func() (map[engine.SessionID]*resume.Record, error)) ([]*resume.Record, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.loaded {
		recs, err := load()
		if err != nil {
			return nil, err
		}
		x.recs, x.loaded = recs, true
	}
	out := make([]*resume.Record, 0, len(x.recs))
	for _, r := range x.recs {
		out = append(out, r)
	}
	return out, nil
}

// committed keeps the record a commit wrote (nil: it wrote none). Commits
// of one session may report out of order; the later log wins.
func (x *resumeIndex) committed(r *resume.Record) {
	if r == nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if old, ok := x.recs[r.Session]; !x.loaded || ok && old.Last >= r.Last {
		return
	}
	x.recs[r.Session] = r
}

// replace keeps the record a rebuild of session id's log of head events
// wrote (nil: none), whatever the record it had: the rebuild rewrote it
// without a later log. A record of a later log, which a write since the
// rebuild committed and may have reported first, is kept.
func (x *resumeIndex) replace(id engine.SessionID, head engine.EventIndex, r *resume.Record) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if old, ok := x.recs[id]; !x.loaded || ok && old.Last > head {
		return
	}
	if r == nil {
		delete(x.recs, id)
		return
	}
	x.recs[id] = r
}

// drop forgets the record of session id, which was deleted.
func (x *resumeIndex) drop(id engine.SessionID) {
	x.mu.Lock()
	defer x.mu.Unlock()
	delete(x.recs, id)
}

// loadResume reads every session's resume record. A session whose record
// cannot be read is left out: it is not offered, and doctor says why.
// Where the list of sessions is damaged, each session is read on its own.
func (s *Store) loadResume() (map[engine.SessionID]*resume.Record, error) {
	recs := map[engine.SessionID]*resume.Record{}
	err := guarded(label("load resume records"), func() error {
		return s.db.View(func(tx *bbolt.Tx) error {
			root := tx.Bucket(bucketSessions)
			return root.ForEachBucket(func(k []byte) error {
				if len(k) == 8 {
					id := engine.SessionID(binary.BigEndian.Uint64(k))
					s.keepResume(recs, newTx(tx, root.Bucket(k), id))
				}
				return nil
			})
		})
	})
	if !errors.Is(err, ErrDamaged) {
		return recs, err
	}
	ids, err := s.SessionIDs()
	if err != nil {
		return nil, err
	}
	clear(recs)
	for _, id := range ids {
		s.view(id, func(t *Tx) error { s.keepResume(recs, t); return nil })
	}
	return recs, nil
}

// keepResume adds t's session's record, named, to recs if it can be
// read.
func (s *Store) keepResume(recs map[engine.SessionID]*resume.Record, t *Tx) {
	if r := s.namedResume(t); r != nil {
		recs[t.id] = r
	}
}

// namedResume is t's session's stored record, named; nil when it cannot
// be read or its log is empty.
func (s *Store) namedResume(t *Tx) *resume.Record {
	r, err := resumeRecordIndex.read(t, t.Head())
	if err != nil || r.Last == 0 {
		return nil
	}
	s.resume.complete(&r, t)
	return &r
}
