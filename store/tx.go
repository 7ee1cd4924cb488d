package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/canon"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/resume"
	"github.com/workrail/workrail/engine/run"
)

var _ execute.Store = (*Store)(nil)

// Tx is a transaction scoped to one session; it implements execute.Tx.
// Reads see a consistent snapshot; in a write transaction, Append adds
// events and keeps the derived indexes in step.
type Tx struct {
	tx *bbolt.Tx
	b  *bbolt.Bucket
	id engine.SessionID
	ix indexKV // where the derived indexes live: the session's buckets
	// ov is the session's overview as this transaction's appends left
	// it, written when the transaction ends (flush).
	ov *project.Overview
	// rs is the session's resume record as this transaction's appends
	// left it, written when the transaction ends (flushResume).
	rs *resume.Record
	// ln is the projection records this transaction's appends read or
	// changed, the changed ones written when it ends (flush).
	ln *heldLineage
	// put are where the snapshots this transaction put stand, which the
	// projection reads back as the nodes holding them are made.
	put map[engine.SnapshotRef]run.Position
	// live, in the writes of Create and Update, is told of the
	// references appends make, which a sweep collecting meanwhile keeps.
	live *liveRefs
	// stamp is what the appends of this transaction record of the write.
	stamp event.Stamp
}

// Create starts a new session and runs fn in the transaction that creates it.
func (s *Store) Create(fn func(execute.Tx) error) (engine.SessionID, error) {
	var id engine.SessionID
	var rec *resume.Record
	err := s.commit.update(func(btx *bbolt.Tx) error {
		var err error
		id, rec, err = s.create(btx, fn)
		return err
	})
	if err == nil {
		s.created(id, rec)
	}
	return id, err
}

// create makes a new session in btx and runs fn in it.
func (s *Store) create(btx *bbolt.Tx, fn func(execute.Tx) error) (engine.SessionID, *resume.Record, error) {
	root := btx.Bucket(bucketSessions)
	seq, err := root.NextSequence()
	if err != nil {
		return 0, nil, err
	}
	id := engine.SessionID(seq)
	b, err := createSession(root, id)
	if err != nil {
		return 0, nil, err
	}
	t := newTx(btx, b, id)
	t.live = &s.live
	if err := fn(t); err != nil {
		return 0, nil, err
	}
	rec, err := t.flush()
	if err != nil {
		return 0, nil, err
	}
	if err := s.stamp(btx, id); err != nil {
		return 0, nil, err
	}
	s.resume.complete(rec, t)
	return id, rec, nil
}

// created notes, once its write has committed, a session create made.
func (s *Store) created(id engine.SessionID, rec *resume.Record) {
	s.setHealth(id, execute.Health{Status: execute.Healthy})
	s.resume.committed(rec)
}

// createSession makes the buckets of a new session.
func createSession(root *bbolt.Bucket, id engine.SessionID) (*bbolt.Bucket, error) {
	b, err := root.CreateBucket(sessionKey(id))
	if err != nil {
		return nil, fmt.Errorf("store: create session %s: %w", id, err)
	}
	for _, name := range [][]byte{bucketEvents, bucketChain, bucketNodes, bucketRuns, bucketAttempts, bucketLineage} {
		if _, err := b.CreateBucket(name); err != nil {
			return nil, err
		}
	}
	return b, labelRecords(b)
}

// Update runs fn in a write transaction on session id. fn may run more than
// once; keep results in variables it assigns on every run. A write that
// appends is the session's latest activity.
func (s *Store) Update(id engine.SessionID, fn func(execute.Tx) error) error {
	var rec *resume.Record
	var rebuilt *rebuiltRecords
	err := s.commit.update(func(btx *bbolt.Tx) error {
		rec, rebuilt = nil, nil
		b := btx.Bucket(bucketSessions).Bucket(sessionKey(id))
		if b == nil {
			return missing(btx, id)
		}
		// Appends fold into the stored records: those of another
		// definition are rebuilt first, so no record mixes two.
		if stale(b) {
			var err error
			if rebuilt, err = s.rebuildIn(btx, b, id); err != nil {
				return err
			}
		}
		t := newTx(btx, b, id)
		t.live = &s.live
		head := t.Head()
		if err := fn(t); err != nil || t.Head() == head {
			return err
		}
		var err error
		if rec, err = t.flush(); err != nil {
			return err
		}
		if err := s.stamp(btx, id); err != nil {
			return err
		}
		s.resume.complete(rec, t)
		return nil
	})
	if err == nil && rebuilt != nil {
		s.rebuilt(id, rebuilt)
	}
	if err == nil {
		s.resume.committed(rec)
	}
	return err
}

// appendFill is the page fill for buckets whose keys only grow: bbolt's
// default (half-full pages, made for random inserts) would double the file.
const appendFill = 0.95

func newTx(btx *bbolt.Tx, b *bbolt.Bucket, id engine.SessionID) *Tx {
	if btx.Writable() {
		for _, name := range [][]byte{bucketEvents, bucketChain, bucketNodes, bucketRuns} {
			b.Bucket(name).FillPercent = appendFill
		}
	}
	return &Tx{tx: btx, b: b, id: id, ix: bucketKV{b}}
}

// View runs fn in a read transaction on session id, handing it only the
// transaction's reads.
func (s *Store) View(id engine.SessionID, fn func(execute.ReadTx) error) error {
	return s.view(id, func(t *Tx) error { return fn(execute.ReadOnly(t)) })
}

// view runs fn in a read transaction; damage it runs into is an error
// wrapping ErrDamaged, never a crash.
func (s *Store) view(id engine.SessionID, fn func(*Tx) error) error {
	return guarded(id, func() error {
		return s.db.View(func(btx *bbolt.Tx) error {
			b := btx.Bucket(bucketSessions).Bucket(sessionKey(id))
			if b == nil {
				return missing(btx, id)
			}
			return fn(newTx(btx, b, id))
		})
	})
}

// Session is the session this transaction is scoped to.
func (t *Tx) Session() engine.SessionID { return t.id }

// Head is the index of the session's last event.
func (t *Tx) Head() engine.EventIndex {
	i, _ := t.head()
	return i
}

// head returns the last event index and chain digest (zero for an empty log).
func (t *Tx) head() (engine.EventIndex, engine.Digest) { return headOf(t.b) }

// headOf reads the head record of a session's bucket.
func headOf(b *bbolt.Bucket) (engine.EventIndex, engine.Digest) {
	v := b.Get(keyHead)
	var d engine.Digest
	if len(v) != 8+len(d) {
		return 0, d
	}
	copy(d[:], v[8:])
	return engine.EventIndex(binary.BigEndian.Uint64(v)), d
}

// Append adds one event scoped to run and node (zero for none) and updates
// the derived indexes.
func (t *Tx) Append(run engine.RunID, node engine.NodeID, p event.Payload) (event.Event, error) {
	last, prev := t.head()
	idx := last + 1
	e := event.Event{ID: engine.NewEventID(t.id, idx), Index: idx, Session: t.id, Kind: p.Kind(), Run: run, Node: node, Data: p}.Stamped(t.stamp)
	b, err := event.Encode(e)
	if err != nil {
		return event.Event{}, err
	}
	d := event.Chain(prev, b)
	key := u64(uint64(idx))
	if err := t.b.Bucket(bucketEvents).Put(key, b); err != nil {
		return event.Event{}, fmt.Errorf("store: append event %d: %w", idx, err)
	}
	if err := t.b.Bucket(bucketChain).Put(key, d[:]); err != nil {
		return event.Event{}, fmt.Errorf("store: append digest %d: %w", idx, err)
	}
	if err := t.b.Put(keyHead, append(key, d[:]...)); err != nil {
		return event.Event{}, err
	}
	t.live.note(e)
	return e, t.fold(e)
}

// Stamp sets what the following appends record of the write.
func (t *Tx) Stamp(s event.Stamp) { t.stamp = s }

// fold keeps the derived records in step with e: the node, run and
// attempt indexes, then the overview, the projection and the resume
// record (held by the transaction and written once, when it ends:
// flush).
func (t *Tx) fold(e event.Event) error {
	if err := project.Index(indexes{t}, e); err != nil {
		return err
	}
	if err := t.addOverview(e); err != nil {
		return err
	}
	if err := t.addLineage(e); err != nil {
		return err
	}
	return t.addResume(e)
}

// flush writes the records this transaction's appends folded whole, the
// overview then the resume record, once, as the write ends: an advance
// appends several events, and encoding them after each would be wasted.
// It returns the resume record written, nil when there was none.
func (t *Tx) flush() (*resume.Record, error) {
	if t.ov != nil {
		if err := t.putJSON(nil, keyOverview, shaped(t.ov)); err != nil {
			return nil, err
		}
	}
	if err := t.flushLineage(); err != nil {
		return nil, err
	}
	return t.flushResume()
}

// Event reads the event at index i.
func (t *Tx) Event(i engine.EventIndex) (event.Event, error) {
	v := t.b.Bucket(bucketEvents).Get(u64(uint64(i)))
	if v == nil {
		return event.Event{}, fmt.Errorf("store: event %d: %w", i, engine.ErrNotFound)
	}
	return event.Decode(v)
}

// NewRunID allocates the next run id of this session.
func (t *Tx) NewRunID() (engine.RunID, error) {
	n, err := t.b.Bucket(bucketRuns).NextSequence()
	return engine.RunID(n), err
}

// NewNodeID allocates the next node id of this session.
func (t *Tx) NewNodeID() (engine.NodeID, error) {
	n, err := t.b.Bucket(bucketNodes).NextSequence()
	return engine.NodeID(n), err
}

// PutSnapshot stores a node snapshot content-addressed and returns its
// reference.
func (t *Tx) PutSnapshot(snap run.Snapshot) (engine.SnapshotRef, error) {
	b, d, err := canon.Digest(snap)
	if err != nil {
		return engine.SnapshotRef{}, err
	}
	if t.put == nil {
		t.put = map[engine.SnapshotRef]run.Position{}
	}
	t.put[engine.SnapshotRef(d)] = run.Position{Kind: snap.Position.Kind, Step: snap.Position.Step, Path: slices.Clone(snap.Position.Path)}
	return engine.SnapshotRef(d), putCAS(t.tx.Bucket(bucketSnapshots), d, b)
}

// Snapshot reads the node snapshot ref, verifying its digest.
func (t *Tx) Snapshot(ref engine.SnapshotRef) (run.Snapshot, error) {
	var snap run.Snapshot
	b, err := getCAS(t.tx.Bucket(bucketSnapshots), engine.Digest(ref))
	if err != nil {
		return snap, fmt.Errorf("store: snapshot %s: %w", ref, err)
	}
	return snap, json.Unmarshal(b, &snap)
}

// PinWorkflow stores a compiled workflow under its hash.
func (t *Tx) PinWorkflow(c compile.Compiled) error {
	return putCAS(t.tx.Bucket(bucketWorkflows), engine.Digest(c.Hash), c.Canonical)
}

// Workflow reads the pinned workflow with hash h, verifying its digest.
func (t *Tx) Workflow(h engine.WorkflowHash) (compile.Compiled, error) {
	b, err := getCAS(t.tx.Bucket(bucketWorkflows), engine.Digest(h))
	if err != nil {
		return compile.Compiled{}, fmt.Errorf("store: pinned workflow %s: %w", h, err)
	}
	return compile.Restore(b, h)
}

// WorkflowOutline reads the outline of the pinned workflow with hash h
// (compile.RestoreOutline), verifying its digest.
func (t *Tx) WorkflowOutline(h engine.WorkflowHash) (compile.Compiled, error) {
	b, err := getCAS(t.tx.Bucket(bucketWorkflows), engine.Digest(h))
	if err != nil {
		return compile.Compiled{}, fmt.Errorf("store: pinned workflow %s: %w", h, err)
	}
	return compile.RestoreOutline(b, h)
}

// ErrDigestMismatch means stored content no longer matches its address.
var ErrDigestMismatch = fmt.Errorf("store: content does not match its digest")

func putCAS(b *bbolt.Bucket, d engine.Digest, v []byte) error {
	if b.Get(d[:]) != nil {
		return nil
	}
	return b.Put(d[:], v)
}

func getCAS(b *bbolt.Bucket, d engine.Digest) ([]byte, error) {
	v := b.Get(d[:])
	if v == nil {
		return nil, engine.ErrNotFound
	}
	if engine.Sum(v) != d {
		return nil, ErrDigestMismatch
	}
	return bytes.Clone(v), nil
}
