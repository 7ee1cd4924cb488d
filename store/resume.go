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
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/resume"
)

// Each session's bucket keeps its resume record (resume.Record as JSON)
// under keyResume: derived like the overview, folded on every append and
// written once at the end of each write of the session (Refresh reads the
// tips of the runs the write touched), refolded and compared with the
// other indexes. A query ranks an in-memory copy of every record, loaded
// on the first query and kept by every commit after, so it reads no log
// and no file.

// addResume folds e into the record this transaction holds, reading the
// stored one first.
func (t *Tx) addResume(e event.Event) error {
	if t.rs == nil {
		r, err := t.storedResume(e.Index - 1)
		if err != nil {
			return err
		}
		t.rs = &r
	}
	if err := t.rs.Add(t, e); err != nil {
		return fmt.Errorf("store: resume record of event %d: %w", e.Index, err)
	}
	return nil
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

// storedResume reads the resume record of a log of head events: the zero
// one for an empty log.
func (t *Tx) storedResume(head engine.EventIndex) (resume.Record, error) {
	var r resume.Record
	v := t.ix.get(nil, keyResume)
	switch {
	case v == nil && head == 0:
		return r, nil
	case v == nil:
		return r, fmt.Errorf("store: session %s has no resume record (run workrail doctor): %w", t.id, engine.ErrNotFound)
	}
	if err := json.Unmarshal(v, &r); err != nil {
		return r, fmt.Errorf("store: session %s: resume record: %w", t.id, err)
	}
	if r.Last != head {
		return r, fmt.Errorf("store: session %s: resume record ends at event %d, the log at %d (run workrail doctor --rebuild-indexes)", t.id, r.Last, head)
	}
	return r, nil
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

// name gives r's runs their workflows' names, read through t once per
// workflow.
func (x *resumeIndex) name(r *resume.Record, t *Tx) {
	if r == nil {
		return
	}
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

// replace sets the record of session id whatever it was (nil: none), for
// a rebuild, which rewrites a record without a later log.
func (x *resumeIndex) replace(id engine.SessionID, r *resume.Record) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.loaded {
		return
	}
	if r == nil {
		delete(x.recs, id)
		return
	}
	x.recs[id] = r
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
					b := root.Bucket(k)
					s.keepResume(recs, &Tx{tx: tx, b: b, id: id, ix: bucketKV{b}})
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
	if r, err := t.storedResume(t.Head()); err == nil && r.Last != 0 {
		s.resume.name(&r, t)
		recs[t.id] = &r
	}
}

// addResumes gives every session without a resume record (a file of
// schema 2 or older kept none) one folded from its verified log, in
// memory, not from the stored indexes. A session whose log does not
// verify or fold is left without: it is not offered, and doctor says why.
func addResumes(tx *bbolt.Tx) error {
	root := tx.Bucket(bucketSessions)
	keys, err := sessionKeys(root)
	if err != nil {
		return err
	}
	for _, k := range keys {
		b := root.Bucket(k)
		if b.Get(keyResume) != nil {
			continue
		}
		t := &Tx{tx: tx, b: b, id: engine.SessionID(binary.BigEndian.Uint64(k)), ix: bucketKV{b}}
		g := project.NewGraph(t.id, t.Snapshot)
		var o project.Overview
		var r resume.Record
		h := t.verifyChain(func(e event.Event) error {
			if err := g.Add(e); err != nil {
				return err
			}
			if err := o.Add(g, e); err != nil {
				return err
			}
			return r.Add(g, e)
		})
		if h.Status != execute.Healthy || h.LastGood == 0 || r.Refresh(g, o) != nil {
			continue
		}
		v, err := json.Marshal(r)
		if err != nil {
			return err
		}
		if err := b.Put(keyResume, v); err != nil {
			return err
		}
	}
	return nil
}
