package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/resume"
)

// indexKV is where the derived indexes are read and written: the session's
// buckets in normal use, memory when doctor refolds the log to check them.
// A nil bucket is the session's own bucket (its overview).
type indexKV interface {
	get(bucket, key []byte) []byte
	put(bucket, key, value []byte) error
}

type bucketKV struct{ b *bbolt.Bucket }

func (k bucketKV) get(bucket, key []byte) []byte       { return k.in(bucket).Get(key) }
func (k bucketKV) put(bucket, key, value []byte) error { return k.in(bucket).Put(key, value) }

func (k bucketKV) in(bucket []byte) *bbolt.Bucket {
	if bucket == nil {
		return k.b
	}
	return k.b.Bucket(bucket)
}

// memKV holds refolded indexes: bucket → key → value.
type memKV map[string]map[string][]byte

func (m memKV) get(bucket, key []byte) []byte { return m[string(bucket)][string(key)] }

func (m memKV) put(bucket, key, value []byte) error {
	if m[string(bucket)] == nil {
		m[string(bucket)] = map[string][]byte{}
	}
	m[string(bucket)][string(key)] = bytes.Clone(value)
	return nil
}

var indexBuckets = [][]byte{bucketNodes, bucketRuns, bucketAttempts}

// checkIndexes refolds events into memory and compares the result with the
// stored indexes. They are derived data: any difference means they were
// damaged (a damaged attempts entry could turn a replay into a second
// advance). It returns "" when they match.
func (t *Tx) checkIndexes(evs []event.Event) (string, error) {
	if stale(t.b) {
		// Records of another definition are not compared: they are
		// rebuilt, not trusted, and no difference in them is damage.
		return "", nil
	}
	mem := memKV{}
	shadow := &Tx{tx: t.tx, b: t.b, id: t.id, ix: mem}
	var overviewErr error
	for _, e := range evs {
		if err := project.Index(indexes{shadow}, e); err != nil {
			return fmt.Sprintf("event %d does not fold: %v", e.Index, err), nil
		}
		if overviewErr == nil {
			overviewErr = shadow.addOverview(e)
		}
		if overviewErr == nil {
			if err := shadow.addResume(e); err != nil {
				return fmt.Sprintf("event %d does not fold: %v", e.Index, err), nil
			}
		}
	}
	for _, name := range indexBuckets {
		if diff := compareBucket(t.b.Bucket(name), mem[string(name)]); diff != "" {
			return fmt.Sprintf("%s index: %s", name, diff), nil
		}
	}
	for _, name := range [][]byte{bucketNodes, bucketRuns} {
		if got, want := t.b.Bucket(name).Sequence(), uint64(len(mem[string(name)])); got != want {
			return fmt.Sprintf("%s sequence is %d, want %d", name, got, want), nil
		}
	}
	// An overview that does not refold read a damaged snapshot: damage to
	// the log's references, which doctor reports as such, not to the
	// indexes. A file of schema 1, read without upgrading it, kept none.
	if overviewErr == nil && schema(t.tx) >= schemaOverviews {
		var want []byte
		if shadow.ov != nil {
			b, err := json.Marshal(shaped(shadow.ov))
			if err != nil {
				return "", err
			}
			want = b
		}
		switch stored := t.b.Get(keyOverview); {
		case stored == nil && want != nil:
			return "overview index: missing", nil
		case stored != nil && want == nil:
			return "overview index: kept for an empty log", nil
		case !bytes.Equal(stored, want):
			return "overview index: differs", nil
		}
	}
	if overviewErr == nil && schema(t.tx) >= schemaResume {
		return shadow.compareResume(t.b.Get(keyResume))
	}
	return "", nil
}

// compareResume compares the stored resume record with this refold's.
func (t *Tx) compareResume(stored []byte) (string, error) {
	r, err := t.resumeRecord()
	if err != nil {
		return err.Error(), nil
	}
	var want []byte
	if r != nil {
		if want, err = json.Marshal(r); err != nil {
			return "", err
		}
	}
	switch {
	case stored == nil && want != nil:
		return "resume index: missing", nil
	case stored != nil && want == nil:
		return "resume index: kept for an empty log", nil
	case !bytes.Equal(stored, want):
		return "resume index: differs", nil
	}
	return "", nil
}

func compareBucket(b *bbolt.Bucket, want map[string][]byte) string {
	n := 0
	var diff []string
	b.ForEach(func(k, v []byte) error {
		n++
		if w, ok := want[string(k)]; !ok {
			diff = append(diff, fmt.Sprintf("extra key %x", k))
		} else if !bytes.Equal(v, w) {
			diff = append(diff, fmt.Sprintf("key %x differs", k))
		}
		return nil
	})
	if n != len(want) && len(diff) == 0 {
		diff = append(diff, fmt.Sprintf("%d keys stored, %d expected", n, len(want)))
	}
	sort.Strings(diff)
	if len(diff) == 0 {
		return ""
	}
	return diff[0]
}

// refold writes the derived indexes of a session's verified events into
// its empty index buckets, with the id sequences the appends would have
// left, and its overview where it had none. An overview that does not fold
// (it reads a damaged snapshot) is left out: reading it says so.
func refold(t *Tx, evs []event.Event) error {
	nodes, runs := 0, 0
	var overviewErr error
	for _, e := range evs {
		if err := project.Index(indexes{t}, e); err != nil {
			return fmt.Errorf("store: refold event %d: %w", e.Index, err)
		}
		if overviewErr == nil {
			overviewErr = t.addOverview(e)
		}
		if overviewErr == nil {
			if err := t.addResume(e); err != nil {
				return err
			}
		}
		switch e.Kind {
		case event.NodeCreated:
			nodes++
		case event.RunStarted:
			runs++
		}
	}
	if overviewErr == nil && t.ov != nil {
		if err := t.putJSON(nil, keyOverview, shaped(t.ov)); err != nil {
			return err
		}
		if _, err := t.flushResume(); err != nil {
			return err
		}
	}
	if err := t.b.Bucket(bucketNodes).SetSequence(uint64(nodes)); err != nil {
		return err
	}
	if err := t.b.Bucket(bucketRuns).SetSequence(uint64(runs)); err != nil {
		return err
	}
	return labelRecords(t.b)
}

// RebuildIndexes replaces session id's derived records with a refold of
// its log, in this build's definitions. The log must verify (chain,
// snapshots, pinned workflows): records are never rebuilt from events
// that might be damaged.
func (s *Store) RebuildIndexes(id engine.SessionID) error {
	var r *rebuiltRecords
	err := s.commit.update(func(btx *bbolt.Tx) error {
		b := btx.Bucket(bucketSessions).Bucket(sessionKey(id))
		if b == nil {
			return fmt.Errorf("store: session %s: %w", id, engine.ErrNotFound)
		}
		var err error
		r, err = s.rebuildIn(btx, b, id)
		return err
	})
	if err == nil {
		s.rebuilt(id, r)
	}
	return err
}

// errDamagedLog means a session's log does not verify, so its derived
// records are not rebuilt from it.
var errDamagedLog = errors.New("store: derived records are never rebuilt from a damaged log")

// rebuiltRecords is what a rebuild leaves: the log's head and the
// session's resume record (named; nil when it has none).
type rebuiltRecords struct {
	head engine.EventIndex
	rec  *resume.Record
}

// rebuildIn replaces the derived records in session bucket b with a
// refold of its log, in write transaction btx, once the log verifies.
func (s *Store) rebuildIn(btx *bbolt.Tx, b *bbolt.Bucket, id engine.SessionID) (*rebuiltRecords, error) {
	t := newTx(btx, b, id)
	var evs []event.Event
	var refErr error
	h := t.verifyChain(func(e event.Event) error {
		evs = append(evs, e)
		if refErr == nil {
			refErr = t.checkRefs(e)
		}
		return nil
	})
	if h.Status != execute.Healthy {
		return nil, fmt.Errorf("%w: session %s is %s at event %d (%s)", errDamagedLog, id, h.Status, h.FirstBad, h.Reason)
	}
	if refErr != nil {
		return nil, fmt.Errorf("%w: session %s references %v", errDamagedLog, id, refErr)
	}
	for _, name := range indexBuckets {
		if err := b.DeleteBucket(name); err != nil {
			return nil, err
		}
		if _, err := b.CreateBucket(name); err != nil {
			return nil, err
		}
	}
	for _, k := range [][]byte{keyOverview, keyResume} {
		if err := b.Delete(k); err != nil {
			return nil, err
		}
	}
	t = newTx(btx, b, id)
	if err := refold(t, evs); err != nil {
		return nil, err
	}
	return &rebuiltRecords{head: t.Head(), rec: s.namedResume(t)}, nil
}

// rebuilt tells the caches of a committed rebuild of session id: its
// health is checked again, and the in-memory resume record replaced.
func (s *Store) rebuilt(id engine.SessionID, r *rebuiltRecords) {
	s.forgetHealth(id)
	s.resume.replace(id, r.head, r.rec)
}
