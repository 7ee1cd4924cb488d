// Package memstore implements the store port (execute.Store) in memory,
// for tests that need the use cases without a database file. It keeps the
// same contract as the bbolt store — canonical event encoding, the digest
// chain, content-addressed snapshots and pinned workflows, derived indexes
// folded by project.Index and the overview by project.Overview.Add,
// all-or-nothing transactions — and the same contract tests run against
// both.
package memstore

import (
	"cmp"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"sync"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/canon"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/resume"
	"github.com/workrail/workrail/engine/run"
)

// Store is an in-memory execute.Store. The zero value is not usable; call
// New.
type Store struct {
	mu        sync.RWMutex
	sessions  []*session // session id n is sessions[n-1]; nil once replaced
	replaced  map[engine.SessionID]engine.SessionID
	snapshots map[engine.Digest][]byte
	workflows map[engine.Digest][]byte
	changes   uint64
	writes    execute.Write // the last write sequence handed out
	// starts are the latest starts made under a retry key, oldest first.
	starts []startRecord
}

type startRecord struct {
	key execute.StartKey
	run execute.Started
}

type session struct {
	graph    *project.Graph
	overview project.Overview
	lineage  *project.Lineage
	record   resume.Record
	head     engine.Digest
	runs     engine.RunID
	nodes    engine.NodeID
	written  execute.Write // the sequence of its last write that appended
}

var _ execute.Store = (*Store)(nil)

// New returns an empty store.
func New() *Store {
	return &Store{snapshots: map[engine.Digest][]byte{}, workflows: map[engine.Digest][]byte{}, replaced: map[engine.SessionID]engine.SessionID{}}
}

// Create implements execute.Store.
func (s *Store) Create(fn func(execute.Tx) error) (engine.SessionID, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := engine.SessionID(len(s.sessions) + 1)
	t := s.begin(id, &session{}, true)
	if err := fn(t); err != nil {
		return 0, err
	}
	if err := t.refresh(); err != nil {
		return 0, err
	}
	s.sessions = append(s.sessions, nil)
	s.commit(t)
	return id, nil
}

// Replace implements execute.Store. The replaced session's snapshots
// and workflows stay: memory is not a file that must forget them.
func (s *Store) Replace(id engine.SessionID, fn func(old execute.ReadTx, tx execute.Tx) error) (engine.SessionID, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, err := s.session(id)
	if err != nil {
		return 0, err
	}
	nid := engine.SessionID(len(s.sessions) + 1)
	t := s.begin(nid, &session{}, true)
	if err := fn(execute.ReadOnly(s.begin(id, old, false)), t); err != nil {
		return 0, err
	}
	if err := t.refresh(); err != nil {
		return 0, err
	}
	s.sessions = append(s.sessions, nil)
	s.commit(t)
	s.sessions[id-1] = nil
	s.replaced[id] = nid
	return nid, nil
}

// View implements execute.Store.
func (s *Store) View(id engine.SessionID, fn func(execute.ReadTx) error) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	sess, err := s.session(id)
	if err != nil {
		return err
	}
	return fn(execute.ReadOnly(s.begin(id, sess, false)))
}

// Update implements execute.Store. Nothing fn appended is kept when it
// returns an error.
func (s *Store) Update(id engine.SessionID, fn func(execute.Tx) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, err := s.session(id)
	if err != nil {
		return err
	}
	t := s.begin(id, sess, true)
	if err := fn(t); err != nil {
		return err
	}
	if err := t.refresh(); err != nil {
		return err
	}
	s.commit(t)
	return nil
}

// Health implements execute.Store: a log kept in memory is always whole.
func (s *Store) Health(id engine.SessionID) (execute.Health, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	sess, err := s.session(id)
	if err != nil {
		return execute.Health{}, err
	}
	return execute.Health{Status: execute.Healthy, LastGood: sess.graph.Head()}, nil
}

// Checked counts the sessions by health status: all healthy, since
// memory cannot rot.
func (s *Store) Checked() map[execute.HealthStatus]int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n := 0
	for _, sess := range s.sessions {
		if sess != nil {
			n++
		}
	}
	return map[execute.HealthStatus]int{execute.Healthy: n}
}

// Changes counts the write transactions committed.
func (s *Store) Changes() uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.changes
}

// SessionIDs lists every session in creation order.
func (s *Store) SessionIDs() ([]engine.SessionID, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []engine.SessionID
	for i, sess := range s.sessions {
		if sess != nil {
			out = append(out, engine.SessionID(i+1))
		}
	}
	return out, nil
}

// Events returns a session's events with its health.
func (s *Store) Events(id engine.SessionID) ([]event.Event, execute.Health, error) {
	h, err := s.Health(id)
	if err != nil {
		return nil, h, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	evs := s.sessions[id-1].graph.Events()
	return append([]event.Event(nil), evs...), h, nil
}

// EventsAfter returns a session's events after index from, with its
// health: memory holds nothing to re-verify.
func (s *Store) EventsAfter(id engine.SessionID, from engine.EventIndex) ([]event.Event, execute.Health, error) {
	evs, h, err := s.Events(id)
	if err != nil || int(from) > len(evs) {
		return nil, h, err
	}
	return evs[from:], h, nil
}

func (s *Store) session(id engine.SessionID) (*session, error) {
	if id < 1 || int(id) > len(s.sessions) {
		return nil, fmt.Errorf("memstore: session %s: %w", id, engine.ErrNotFound)
	}
	if s.sessions[id-1] == nil {
		by := s.replaced[id]
		for s.sessions[by-1] == nil {
			by = s.replaced[by]
		}
		return nil, &execute.ReplacedError{Session: id, By: by}
	}
	return s.sessions[id-1], nil
}

// begin opens a transaction. A writable one works on a copy of the
// session and stages content-addressed puts, so a failed fn leaves
// nothing behind.
func (s *Store) begin(id engine.SessionID, sess *session, writable bool) *tx {
	t := &tx{s: s, id: id, sess: sess, writable: writable}
	if writable {
		c := *sess
		if sess.graph == nil {
			c.graph = project.NewGraph(id, nil)
		} else {
			c.graph = sess.graph.Clone()
		}
		c.overview = sess.overview.Clone()
		if sess.lineage == nil {
			c.lineage = project.NewLineage()
		} else {
			c.lineage = sess.lineage.Clone()
		}
		c.record = sess.record.Clone()
		t.sess, t.snapshots, t.workflows = &c, map[engine.Digest][]byte{}, map[engine.Digest][]byte{}
	}
	return t
}

func (s *Store) commit(t *tx) {
	s.changes++
	if t.appended {
		s.writes++
		t.sess.written = s.writes
	}
	s.sessions[t.id-1] = t.sess
	for d, b := range t.snapshots {
		s.snapshots[d] = b
	}
	for d, b := range t.workflows {
		s.workflows[d] = b
	}
	s.starts = append(s.starts, t.started...)
	if n := len(s.starts) - execute.StartsKept; n > 0 {
		s.starts = slices.Delete(s.starts, 0, n)
	}
}

func decodeSnapshot(ref engine.SnapshotRef, b []byte) (run.Snapshot, error) {
	var snap run.Snapshot
	if b == nil {
		return snap, fmt.Errorf("memstore: snapshot %s: %w", ref, engine.ErrNotFound)
	}
	return snap, json.Unmarshal(b, &snap)
}

// tx is one transaction on one session.
type tx struct {
	s        *Store
	id       engine.SessionID
	sess     *session
	writable bool
	// staged content-addressed puts of a write transaction
	snapshots, workflows map[engine.Digest][]byte
	// stamp is what the appends record of the write
	stamp    event.Stamp
	appended bool
	started  []startRecord // staged RecordStart
}

func (t *tx) Session() engine.SessionID { return t.id }

func (t *tx) Head() engine.EventIndex { return t.sess.graph.Head() }

func (t *tx) Event(i engine.EventIndex) (event.Event, error) { return t.sess.graph.Event(i) }

func (t *tx) Node(id engine.NodeID) (project.Node, error) { return t.sess.graph.Node(id) }

func (t *tx) Run(id engine.RunID) (project.Run, error) { return t.sess.graph.Run(id) }

func (t *tx) Part(id engine.RunID, n engine.NodeID) (project.Part, error) {
	if t.sess.lineage == nil {
		return project.Part{}, fmt.Errorf("memstore: part %s of %s: %w", n, id, engine.ErrNotFound)
	}
	return t.sess.lineage.Part(id, n)
}

func (t *tx) Runs() ([]project.Run, error) { return t.sess.graph.Runs(), nil }

func (t *tx) RecordedAttempt(n engine.NodeID, a engine.Attempt) (event.Event, error) {
	at, ok := t.sess.graph.Attempt(n, a)
	if !ok {
		return event.Event{}, fmt.Errorf("memstore: attempt %d at %s: %w", a, n, engine.ErrNotFound)
	}
	return t.sess.graph.Event(at)
}

func (t *tx) Snapshot(ref engine.SnapshotRef) (run.Snapshot, error) {
	return decodeSnapshot(ref, t.get(t.snapshots, t.s.snapshots, engine.Digest(ref)))
}

func (t *tx) Workflow(h engine.WorkflowHash) (compile.Compiled, error) {
	b := t.get(t.workflows, t.s.workflows, engine.Digest(h))
	if b == nil {
		return compile.Compiled{}, fmt.Errorf("memstore: pinned workflow %s: %w", h, engine.ErrNotFound)
	}
	return compile.Restore(b, h)
}

func (t *tx) WorkflowOutline(h engine.WorkflowHash) (compile.Compiled, error) {
	b := t.get(t.workflows, t.s.workflows, engine.Digest(h))
	if b == nil {
		return compile.Compiled{}, fmt.Errorf("memstore: pinned workflow %s: %w", h, engine.ErrNotFound)
	}
	return compile.RestoreOutline(b, h)
}

// get reads a content-addressed value, staged puts first.
func (t *tx) get(staged, committed map[engine.Digest][]byte, d engine.Digest) []byte {
	if b, ok := staged[d]; ok {
		return b
	}
	return committed[d]
}

func (t *tx) mustWrite(op string) error {
	if !t.writable {
		return fmt.Errorf("memstore: %s in a read transaction", op)
	}
	return nil
}

// Stamp sets what the following appends record of the write.
func (t *tx) Stamp(s event.Stamp) { t.stamp = s }

// Append encodes the event as the bbolt store does, chains it, and folds
// what decodes from those bytes, so a test sees exactly what was stored.
func (t *tx) Append(r engine.RunID, n engine.NodeID, p event.Payload) (event.Event, error) {
	if err := t.mustWrite("append"); err != nil {
		return event.Event{}, err
	}
	t.appended = true
	idx := t.sess.graph.Head() + 1
	e := event.Event{ID: engine.NewEventID(t.id, idx), Index: idx, Session: t.id, Kind: p.Kind(), Run: r, Node: n, Data: p}.Stamped(t.stamp)
	b, err := event.Encode(e)
	if err != nil {
		return event.Event{}, err
	}
	stored, err := event.Decode(b)
	if err != nil {
		return event.Event{}, err
	}
	if err := t.sess.graph.Add(stored); err != nil {
		return event.Event{}, err
	}
	if err := t.sess.overview.Add(t, stored); err != nil {
		return event.Event{}, err
	}
	if err := project.Project(t.sess.lineage, t, &t.sess.overview, stored); err != nil {
		return event.Event{}, err
	}
	if err := t.sess.record.Add(t, stored); err != nil {
		return event.Event{}, err
	}
	t.sess.head = event.Chain(t.sess.head, b)
	return e, nil
}

// StartedBy implements execute.Tx.
func (t *tx) StartedBy(key execute.StartKey) (execute.Started, bool, error) {
	for _, r := range slices.Backward(append(slices.Clip(t.s.starts), t.started...)) {
		if r.key == key {
			return r.run, true, nil
		}
	}
	return execute.Started{}, false, nil
}

// RecordStart implements execute.Tx.
func (t *tx) RecordStart(key execute.StartKey, r execute.Started) error {
	if err := t.mustWrite("record a start"); err != nil {
		return err
	}
	t.started = append(t.started, startRecord{key, r})
	return nil
}

func (t *tx) NewRunID() (engine.RunID, error) {
	if err := t.mustWrite("new run"); err != nil {
		return 0, err
	}
	t.sess.runs++
	return t.sess.runs, nil
}

func (t *tx) NewNodeID() (engine.NodeID, error) {
	if err := t.mustWrite("new node"); err != nil {
		return 0, err
	}
	t.sess.nodes++
	return t.sess.nodes, nil
}

func (t *tx) PutSnapshot(snap run.Snapshot) (engine.SnapshotRef, error) {
	if err := t.mustWrite("put snapshot"); err != nil {
		return engine.SnapshotRef{}, err
	}
	b, d, err := canon.Digest(snap)
	if err != nil {
		return engine.SnapshotRef{}, err
	}
	t.snapshots[d] = b
	return engine.SnapshotRef(d), nil
}

func (t *tx) PinWorkflow(c compile.Compiled) error {
	if err := t.mustWrite("pin workflow"); err != nil {
		return err
	}
	t.workflows[engine.Digest(c.Hash)] = c.Canonical
	return nil
}

// Digest is the chain digest of a session's last event.
func (s *Store) Digest(id engine.SessionID) (engine.Digest, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	sess, err := s.session(id)
	if err != nil {
		return engine.Digest{}, err
	}
	return sess.head, nil
}

// Overview returns a session's overview, kept by every append.
func (s *Store) Overview(id engine.SessionID) (project.Overview, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	sess, err := s.session(id)
	if err != nil {
		return project.Overview{}, err
	}
	return sess.overview.Clone(), nil
}

// Projection assembles run rid of session id from the projection every
// append keeps.
func (s *Store) Projection(id engine.SessionID, rid engine.RunID) (*project.Projection, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	sess, err := s.session(id)
	if err != nil {
		return nil, err
	}
	if sess.lineage == nil {
		return nil, fmt.Errorf("memstore: run %s: %w", rid, engine.ErrNotFound)
	}
	return sess.lineage.Projection(&sess.overview, rid)
}

// Projections assembles every run of session id, in the order they
// started.
func (s *Store) Projections(id engine.SessionID) ([]*project.Projection, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	sess, err := s.session(id)
	if err != nil || sess.lineage == nil {
		return nil, err
	}
	var out []*project.Projection
	for _, rid := range sess.lineage.Runs() {
		p, err := sess.lineage.Projection(&sess.overview, rid)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// KnownHealth is Health: a log kept in memory is always whole.
func (s *Store) KnownHealth(id engine.SessionID) (execute.Health, bool) {
	h, err := s.Health(id)
	return h, err == nil
}

// Overviews passes the sessions to fn newest first, below before when it
// is not 0, until fn returns false.
func (s *Store) Overviews(before engine.SessionID, fn func(engine.SessionID, project.Overview, error) bool) error {
	s.mu.RLock()
	top := engine.SessionID(len(s.sessions))
	if before != 0 {
		top = min(top, before-1)
	}
	sessions := slices.Clone(s.sessions[:top]) // a committed session is never changed, only replaced
	s.mu.RUnlock()
	for i := len(sessions) - 1; i >= 0; i-- {
		if sessions[i] != nil && !fn(engine.SessionID(i+1), sessions[i].overview.Clone(), nil) {
			return nil
		}
	}
	return nil
}

// Recent passes the sessions written before write below (all when it is
// 0) to fn, the most recently written first, until fn returns false.
func (s *Store) Recent(below execute.Write, fn func(engine.SessionID, execute.Write, project.Overview, error) bool) error {
	s.mu.RLock()
	type entry struct {
		id   engine.SessionID
		sess *session
	}
	var all []entry
	for i, sess := range s.sessions {
		if sess != nil && (below == 0 || sess.written < below) {
			all = append(all, entry{engine.SessionID(i + 1), sess})
		}
	}
	s.mu.RUnlock()
	slices.SortFunc(all, func(a, b entry) int { return cmp.Compare(b.sess.written, a.sess.written) })
	for _, e := range all {
		if !fn(e.id, e.sess.written, e.sess.overview.Clone(), nil) {
			return nil
		}
	}
	return nil
}

// refresh finishes the resume record of the transaction's appends, as
// the bbolt store does at the end of each write, and names its new runs.
func (t *tx) refresh() error {
	if err := t.sess.record.Refresh(t, t.sess.overview); err != nil {
		return err
	}
	t.sess.record.Name(func(h engine.WorkflowHash) string {
		c, err := t.Workflow(h)
		if err != nil {
			return ""
		}
		return c.Name
	})
	return nil
}

// Holds counts the given snapshots and pinned workflows the store keeps.
func (s *Store) Holds(snapshots []engine.SnapshotRef, workflows []engine.WorkflowHash) (int, int, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var ns, nw int
	for _, r := range snapshots {
		if _, ok := s.snapshots[engine.Digest(r)]; ok {
			ns++
		}
	}
	for _, h := range workflows {
		if _, ok := s.workflows[engine.Digest(h)]; ok {
			nw++
		}
	}
	return ns, nw, nil
}

// Resume ranks every session's resume record, with its place in the
// write sequence, for q.
func (s *Store) Resume(q resume.Query) (iter.Seq[resume.Match], error) {
	s.mu.RLock()
	recs := make([]*resume.Record, 0, len(s.sessions))
	for _, sess := range s.sessions {
		if sess == nil {
			continue
		}
		r := sess.record // a committed session is never changed, only replaced
		r.Written = sess.written
		recs = append(recs, &r)
	}
	s.mu.RUnlock()
	return resume.Rank(q, recs), nil
}
