package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
)

// Retention: a sweep deletes every session nobody has written to for the
// retention period, then the node snapshots and pinned workflows no
// remaining session references. Events carry no wall-clock time (nothing
// is ordered by one), so each write that appends stamps the session's
// entry in bucketActivity with the store's clock, in its own transaction.
//
// A session without a stamp (written before stamps were kept, or copied
// by a salvage) has its clock started by the first sweep that sees it: it
// counts as written at that moment, so nothing is deleted on an upgrade
// before a whole retention period has passed.

const (
	// maxRetentionDays bounds retention: a longer one, like 0 or less,
	// deletes nothing.
	maxRetentionDays = 100 * 366
	// How much each transaction of a sweep does: writes hold up the
	// daemon's other writers, so each stays short.
	sweepBatch   = 32   // sessions verified, then deleted in one write
	clockBatch   = 1024 // clocks started in one write
	markBatch    = 256  // sessions read in one read transaction
	collectBatch = 1024 // snapshots and pins released in one write
)

// SweepPlan is what a sweep would delete now.
type SweepPlan struct {
	// RetentionDays is the period; 0 or less (or more than a century)
	// deletes nothing.
	RetentionDays int `json:"retentionDays"`
	// Cutoff is when the period began: a session last written before it
	// is stale. Zero when retention deletes nothing.
	Cutoff time.Time      `json:"cutoff,omitzero"`
	Stale  []StaleSession `json:"stale"`
	// Unclocked counts the sessions with no recorded write: the next
	// sweep starts their clocks instead of deleting them.
	Unclocked int `json:"unclocked"`
}

// StaleSession is a session with no write since the cutoff.
type StaleSession struct {
	Session    engine.SessionID  `json:"sessionId"`
	LastActive time.Time         `json:"lastActive"`
	Events     engine.EventIndex `json:"events"`
}

// SweepResult is what a sweep did.
type SweepResult struct {
	RetentionDays int            `json:"retentionDays"`
	Cutoff        time.Time      `json:"cutoff,omitzero"`
	Deleted       []StaleSession `json:"deleted"`
	// Kept are the stale sessions the sweep did not delete, and why.
	Kept []KeptSession `json:"kept"`
	// Clocked counts the sessions whose clocks the sweep started.
	Clocked int `json:"clocked"`
	// Snapshots and Workflows count the node snapshots and pinned
	// workflows collected.
	Snapshots int `json:"snapshots"`
	Workflows int `json:"workflows"`
	// Deferred, when set, says why collecting was left to a later sweep.
	Deferred string `json:"deferred,omitempty"`
}

// KeepReason is the closed set of reasons a sweep keeps a stale session.
type KeepReason string

const (
	// KeptDamaged: its log, references or indexes do not verify, or its
	// pages cannot be read. Deleting it would lose what doctor and a
	// salvage can still show and recover.
	KeptDamaged KeepReason = "damaged"
	// KeptWritten: it was written to while the sweep ran.
	KeptWritten KeepReason = "written"
)

// KeptSession is a stale session a sweep kept.
type KeptSession struct {
	Session engine.SessionID `json:"sessionId"`
	Reason  KeepReason       `json:"reason"`
	Detail  string           `json:"detail,omitempty"`
}

// cutoff is the start of a retention period of days ending at now; false
// when such a retention deletes nothing.
func cutoff(now time.Time, days int) (time.Time, bool) {
	if days <= 0 || days > maxRetentionDays {
		return time.Time{}, false
	}
	return time.Unix(now.Unix(), 0).UTC().AddDate(0, 0, -days), true
}

// stamp records now as session id's last write.
func (s *Store) stamp(btx *bbolt.Tx, id engine.SessionID) error {
	if err := btx.Bucket(bucketActivity).Put(sessionKey(id), u64(uint64(max(s.now().Unix(), 0)))); err != nil {
		return err
	}
	return markWritten(btx, sessionKey(id))
}

// lastActive is the recorded time (Unix seconds) of the last write to
// the session with key; false when none is.
func lastActive(btx *bbolt.Tx, key []byte) (int64, bool) {
	a := btx.Bucket(bucketActivity)
	if a == nil { // a file read without upgrading it
		return 0, false
	}
	v := a.Get(key)
	if len(v) != 8 {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(v)), true
}

// SweepPlan lists what Sweep(days) would delete now, writing nothing. A
// listed session the sweep finds damaged, or written to meanwhile, stays.
func (s *Store) SweepPlan(days int) (SweepPlan, error) {
	p, _, err := s.plan(days)
	return p, err
}

// plan lists the stale sessions, and the ones without a clock.
func (s *Store) plan(days int) (SweepPlan, []engine.SessionID, error) {
	p := SweepPlan{RetentionDays: days, Stale: []StaleSession{}}
	cut, on := cutoff(s.now(), days)
	if !on {
		return p, nil, nil
	}
	p.Cutoff = cut
	var unclocked []engine.SessionID
	err := guarded(label("plan a sweep"), func() error {
		return s.db.View(func(tx *bbolt.Tx) error {
			root := tx.Bucket(bucketSessions)
			return root.ForEachBucket(func(k []byte) error {
				if len(k) != 8 {
					return nil
				}
				id := engine.SessionID(binary.BigEndian.Uint64(k))
				switch at, ok := lastActive(tx, k); {
				case !ok:
					unclocked = append(unclocked, id)
				case at < cut.Unix():
					p.Stale = append(p.Stale, StaleSession{Session: id, LastActive: time.Unix(at, 0).UTC(), Events: eventsIn(root, k)})
				}
				return nil
			})
		})
	})
	p.Unclocked = len(unclocked)
	return p, unclocked, err
}

// eventsIn is the length of a session's log as its head says (0 when its
// pages cannot be read: the sweep will keep it).
func eventsIn(root *bbolt.Bucket, key []byte) engine.EventIndex {
	var n engine.EventIndex
	guarded(label("read a head"), func() error {
		n, _ = headOf(root.Bucket(key))
		return nil
	})
	return n
}

// Sweep deletes every session last written more than days ago, each only
// if it verifies (chain, references, indexes) and was not written to
// since, in short write transactions; then the snapshots and pinned
// workflows that deleted sessions referenced and no remaining one does.
// Retention of 0 or less (or more than a century) deletes no session.
// One sweep runs at a time; ctx stops it between transactions.
func (s *Store) Sweep(ctx context.Context, days int) (SweepResult, error) {
	s.sweeping.Lock()
	defer s.sweeping.Unlock()
	plan, unclocked, err := s.plan(days)
	res := SweepResult{RetentionDays: days, Cutoff: plan.Cutoff, Deleted: []StaleSession{}, Kept: []KeptSession{}}
	if err != nil {
		return res, err
	}
	if !plan.Cutoff.IsZero() {
		if res.Clocked, err = s.startClocks(ctx, unclocked); err != nil {
			return res, err
		}
		for batch := range slices.Chunk(plan.Stale, sweepBatch) {
			if err := ctx.Err(); err != nil {
				return res, err
			}
			if err := s.deleteStale(batch, plan.Cutoff, &res); err != nil {
				return res, err
			}
		}
	}
	res.Snapshots, res.Workflows, res.Deferred, err = s.collect(ctx)
	return res, err
}

// startClocks records now as the last write of each session in ids that
// still has none.
func (s *Store) startClocks(ctx context.Context, ids []engine.SessionID) (int, error) {
	total := 0
	for batch := range slices.Chunk(ids, clockBatch) {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		n := 0
		err := s.commit.update(func(btx *bbolt.Tx) error {
			n = 0
			for _, id := range batch {
				key := sessionKey(id)
				if _, ok := lastActive(btx, key); ok || btx.Bucket(bucketSessions).Bucket(key) == nil {
					continue
				}
				if err := s.stamp(btx, id); err != nil {
					return err
				}
				n++
			}
			return nil
		})
		if err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}

// doomed is a stale session as verified: its head then, and the
// snapshots and pins its log references.
type doomed struct {
	StaleSession
	head   engine.EventIndex
	digest engine.Digest
	refs   []blob
}

// deleteStale verifies each session of batch, then deletes those that
// verified in one write.
func (s *Store) deleteStale(batch []StaleSession, cut time.Time, res *SweepResult) error {
	var checked []doomed
	for _, st := range batch {
		d, kept := s.verifyStale(st)
		if kept != nil {
			res.Kept = append(res.Kept, *kept)
			continue
		}
		checked = append(checked, d)
	}
	deleted, written, err := s.drop(checked, cut)
	res.Deleted = append(res.Deleted, deleted...)
	res.Kept = append(res.Kept, written...)
	return err
}

// verifyStale checks a stale session completely, as doctor does, noting
// its head and what it references; a session that does not verify is
// kept.
func (s *Store) verifyStale(st StaleSession) (doomed, *KeptSession) {
	d := doomed{StaleSession: st}
	var r Report
	err := s.view(st.Session, func(t *Tx) error {
		var err error
		d.refs, r, err = t.references()
		d.head, d.digest = t.head()
		return err
	})
	if detail := unverified(r, err); detail != "" {
		return d, &KeptSession{Session: st.Session, Reason: KeptDamaged, Detail: detail}
	}
	return d, nil
}

// references verifies the session completely, as doctor does, and lists
// what its log references.
func (t *Tx) references() ([]blob, Report, error) {
	var refs []blob
	seen := map[blob]bool{}
	r, err := t.verify(func(e event.Event) error {
		if b, ok := referenced(e); ok && !seen[b] {
			seen[b] = true
			refs = append(refs, b)
		}
		return t.checkRefs(e)
	})
	return refs, r, err
}

// unverified says why a session whose verification gave r and err did
// not verify; "" when it did.
func unverified(r Report, err error) string {
	switch {
	case errors.Is(err, ErrDamaged):
		return unwrapDamage(err)
	case err != nil:
		return err.Error()
	case r.Health.Status != execute.Healthy:
		return fmt.Sprintf("%s: %s", r.Health.Status, r.Health.Reason)
	case r.IndexProblem != "":
		return fmt.Sprintf("%s: %s", execute.IndexesDamaged, r.IndexProblem)
	}
	return ""
}

// drop deletes, in one write, each verified session that is still stale
// and unchanged since it was verified, with its clock, and records what
// it referenced as unreferenced until a collection has looked. A session
// written to since is kept.
func (s *Store) drop(batch []doomed, cut time.Time) (deleted []StaleSession, written []KeptSession, err error) {
	if len(batch) == 0 {
		return nil, nil, nil
	}
	err = s.commit.update(func(btx *bbolt.Tx) error {
		deleted, written = nil, nil
		root := btx.Bucket(bucketSessions)
		for _, d := range batch {
			key := sessionKey(d.Session)
			b := root.Bucket(key)
			if b == nil {
				continue
			}
			head, digest := headOf(b)
			if at, ok := lastActive(btx, key); !ok || at >= cut.Unix() || head != d.head || digest != d.digest {
				written = append(written, KeptSession{Session: d.Session, Reason: KeptWritten})
				continue
			}
			if err := root.DeleteBucket(key); err != nil {
				return fmt.Errorf("store: delete session %s: %w", d.Session, err)
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
			deleted = append(deleted, d.StaleSession)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	for _, d := range deleted {
		s.forget(d.Session)
	}
	return deleted, written, nil
}

// forget drops what this process remembers of a deleted session.
func (s *Store) forget(id engine.SessionID) {
	s.forgetHealth(id)
	s.resume.drop(id)
	s.decodedMu.Lock()
	delete(s.decoded, id)
	s.decodedMu.Unlock()
}

// blob names a content-addressed record a session references.
type blob struct {
	kind byte // blobSnapshot or blobWorkflow
	d    engine.Digest
}

const (
	blobSnapshot = 's'
	blobWorkflow = 'w'
)

// referenced is what e references, if anything: node_created its
// snapshot, run_started its pinned workflow.
func referenced(e event.Event) (blob, bool) {
	switch d := e.Data.(type) {
	case *event.NodeCreatedData:
		return blob{blobSnapshot, engine.Digest(d.Snapshot)}, true
	case *event.RunStartedData:
		return blob{blobWorkflow, engine.Digest(d.WorkflowHash)}, true
	}
	return blob{}, false
}

func (b blob) bucket() []byte {
	if b.kind == blobSnapshot {
		return bucketSnapshots
	}
	return bucketWorkflows
}

func (b blob) key() []byte { return append([]byte{b.kind}, b.d[:]...) }

func (b blob) String() string {
	if b.kind == blobSnapshot {
		return "snapshot " + b.d.String()
	}
	return "pinned workflow " + b.d.String()
}

// liveRefs notes, while a sweep collects, what appends reference: a
// reference made after the sweep read a session's log is one it did not
// see.
type liveRefs struct {
	mu   sync.Mutex
	seen map[blob]bool // nil while no sweep collects
}

func (l *liveRefs) start() {
	l.mu.Lock()
	if l.seen == nil {
		l.seen = map[blob]bool{}
	}
	l.mu.Unlock()
}

func (l *liveRefs) stop() {
	l.mu.Lock()
	l.seen = nil
	l.mu.Unlock()
}

// note records what e references; l is nil in transactions that are no
// session's writes (salvage, doctor).
func (l *liveRefs) note(e event.Event) {
	if l == nil {
		return
	}
	if b, ok := referenced(e); ok {
		l.mu.Lock()
		if l.seen != nil {
			l.seen[b] = true
		}
		l.mu.Unlock()
	}
}

func (l *liveRefs) saw(b blob) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seen[b]
}

// collect deletes the snapshots and pins recorded unreferenced that no
// remaining session's log names and no write referenced meanwhile. When a
// session cannot be read, what it references is unknown: nothing is
// collected, and deferred says why.
func (s *Store) collect(ctx context.Context) (snapshots, workflows int, deferred string, err error) {
	pending, err := s.unreferenced()
	if err != nil || len(pending) == 0 {
		return 0, 0, "", err
	}
	// From this write on, every write notes what it references. Writes
	// that ran before it have committed by the time it has, so the reads
	// below see them.
	if err := s.commit.update(func(*bbolt.Tx) error { s.live.start(); return nil }); err != nil {
		return 0, 0, "", err
	}
	defer s.live.stop()
	named, deferred, err := s.mark(ctx, pending)
	if err != nil || deferred != "" {
		return 0, 0, deferred, err
	}
	for batch := range slices.Chunk(pending, collectBatch) {
		if err := ctx.Err(); err != nil {
			return snapshots, workflows, "", err
		}
		sn, wf, err := s.release(batch, named)
		snapshots, workflows = snapshots+sn, workflows+wf
		if err != nil {
			return snapshots, workflows, "", err
		}
	}
	return snapshots, workflows, "", nil
}

// unreferenced lists the pending snapshots and pins.
func (s *Store) unreferenced() ([]blob, error) {
	var out []blob
	err := guarded(label("list unreferenced records"), func() error {
		return s.db.View(func(tx *bbolt.Tx) error {
			b := tx.Bucket(bucketUnreferenced)
			if b == nil {
				return nil
			}
			return b.ForEach(func(k, _ []byte) error {
				if len(k) == 1+len(engine.Digest{}) && (k[0] == blobSnapshot || k[0] == blobWorkflow) {
					out = append(out, blob{kind: k[0], d: engine.Digest(k[1:])})
				}
				return nil
			})
		})
	})
	return out, err
}

// mark reads every session's log, markBatch sessions per read
// transaction, for the digests of pending. It reads the stored bytes,
// not decoded events, so a log that no longer decodes still keeps what
// it names; a digest named anywhere in a log is kept.
func (s *Store) mark(ctx context.Context, pending []blob) (map[engine.Digest]bool, string, error) {
	named := make(map[engine.Digest]bool, len(pending))
	for _, b := range pending {
		named[b.d] = false
	}
	var after []byte // the last session read
	for more := true; more; {
		if err := ctx.Err(); err != nil {
			return nil, "", err
		}
		more = false
		var reading engine.SessionID // 0 while the list of sessions is read
		err := guarded(label("read sessions for references"), func() error {
			return s.db.View(func(tx *bbolt.Tx) error {
				root := tx.Bucket(bucketSessions)
				c := root.Cursor()
				k, v := c.First()
				if after != nil {
					k, v = c.Seek(after)
					if bytes.Equal(k, after) {
						k, v = c.Next()
					}
				}
				for n := 0; k != nil; k, v = c.Next() {
					if v != nil || len(k) != 8 {
						continue
					}
					if n == markBatch {
						more = true
						return nil
					}
					reading = engine.SessionID(binary.BigEndian.Uint64(k))
					events := root.Bucket(k).Bucket(bucketEvents)
					if events == nil {
						return fmt.Errorf("store: %w (no events bucket)", ErrDamaged)
					}
					events.ForEach(func(_, ev []byte) error {
						mentions(ev, named)
						return nil
					})
					after, n, reading = bytes.Clone(k), n+1, 0
				}
				return nil
			})
		})
		if errors.Is(err, ErrDamaged) {
			what := "the list of sessions"
			if reading != 0 {
				what = "session " + reading.String()
			}
			return nil, fmt.Sprintf("%s could not be read (%s), so what it references is unknown", what, unwrapDamage(err)), nil
		}
		if err != nil {
			return nil, "", err
		}
	}
	return named, "", nil
}

// mentions marks each digest of named that v names: every reference is
// written "sha256:<64 hex digits>".
func mentions(v []byte, named map[engine.Digest]bool) {
	prefix := []byte("sha256:")
	var d engine.Digest
	for {
		i := bytes.Index(v, prefix)
		if i < 0 {
			return
		}
		v = v[i+len(prefix):]
		if len(v) < hex.EncodedLen(len(d)) {
			return
		}
		if _, err := hex.Decode(d[:], v[:hex.EncodedLen(len(d))]); err != nil {
			continue
		}
		if _, ok := named[d]; ok {
			named[d] = true
		}
	}
}

// release deletes, in one write, each record of batch that no session
// named and no write referenced since marking began; each leaves the
// pending list either way.
func (s *Store) release(batch []blob, named map[engine.Digest]bool) (snapshots, workflows int, err error) {
	err = s.commit.update(func(btx *bbolt.Tx) error {
		snapshots, workflows = 0, 0
		pending := btx.Bucket(bucketUnreferenced)
		for _, b := range batch {
			if err := pending.Delete(b.key()); err != nil {
				return err
			}
			records := btx.Bucket(b.bucket())
			if named[b.d] || s.live.saw(b) || records.Get(b.d[:]) == nil {
				continue
			}
			if err := records.Delete(b.d[:]); err != nil {
				return err
			}
			if b.kind == blobSnapshot {
				snapshots++
			} else {
				workflows++
			}
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	return snapshots, workflows, nil
}
