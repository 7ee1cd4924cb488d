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

var indexBuckets = [][]byte{bucketNodes, bucketRuns, bucketAttempts, bucketLineage}

// checkIndexes refolds events into memory and compares the result with the
// stored indexes of this build's definitions. They are derived data: a
// difference means they were damaged, or changed by a rule whose version
// was not bumped, and they must not be read (a wrong attempts entry could
// turn a replay into a second advance); Health rewrites them from the
// refold. It returns "" when they match.
func (t *Tx) checkIndexes(evs []event.Event) (string, error) {
	if stale(t.b) {
		// Records of another definition are not compared: they are
		// rebuilt, not trusted, and no difference in them is damage.
		return "", nil
	}
	mem := memKV{}
	shadow := &Tx{tx: t.tx, b: t.b, id: t.id, ix: mem}
	var overviewErr, lineageErr error
	for _, e := range evs {
		if err := project.Index(indexes{shadow}, e); err != nil {
			return fmt.Sprintf("event %d does not fold: %v", e.Index, err), nil
		}
		if overviewErr == nil {
			overviewErr = shadow.addOverview(e)
		}
		if overviewErr == nil && lineageErr == nil {
			lineageErr = shadow.addLineage(e)
		}
		if overviewErr == nil {
			if err := shadow.addResume(e); err != nil {
				return fmt.Sprintf("event %d does not fold: %v", e.Index, err), nil
			}
		}
	}
	if err := shadow.flushLineage(); err != nil {
		return "", err
	}
	for _, name := range indexBuckets {
		// A projection that does not refold read a damaged snapshot, as
		// an overview that does not (below).
		if string(name) == string(bucketLineage) && (overviewErr != nil || lineageErr != nil) {
			continue
		}
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

// refold makes the derived records of a session's verified events those
// its buckets keep, with the id sequences the appends would have left,
// and labels them with this build's definitions. It folds in memory (a
// project.Graph) and writes only the records that differ from those
// stored, so a change to one kind of record rewrites only that kind. An
// overview that does not fold (it reads a damaged snapshot) is left out,
// and so is the resume record: reading them says so.
func refold(t *Tx, evs []event.Event) error {
	f, err := foldRecords(t, evs)
	if err != nil {
		return err
	}
	return f.write(t.b)
}

// folded is a refold of a log in memory: the derived records its
// session's bucket is to keep, and its id sequences.
type folded struct {
	head        engine.EventIndex
	want        memKV
	nodes, runs uint64
	// resume is the resume record in want, decoded; nil when there is
	// none.
	resume *resume.Record
}

// foldRecords folds the derived records of t's session's events evs
// in memory.
func foldRecords(t *Tx, evs []event.Event) (*folded, error) {
	g := project.NewGraph(t.id, t.Snapshot)
	var o project.Overview
	var r resume.Record
	l := project.NewLineage()
	var overviewErr, lineageErr error
	for _, e := range evs {
		if err := g.Add(e); err != nil {
			return nil, fmt.Errorf("store: refold event %d: %w", e.Index, err)
		}
		if overviewErr == nil {
			overviewErr = o.Add(g, e)
		}
		if overviewErr == nil && lineageErr == nil {
			lineageErr = project.Project(l, g, &o, e)
		}
		if overviewErr == nil {
			if err := r.Add(g, e); err != nil {
				return nil, fmt.Errorf("store: resume record of event %d: %w", e.Index, err)
			}
		}
	}
	f := &folded{head: g.Head(), want: memKV{}}
	mem := &Tx{tx: t.tx, b: t.b, id: t.id, ix: f.want}
	var err error
	if f.nodes, f.runs, err = foldedIndexes(mem, g); err != nil {
		return nil, err
	}
	if overviewErr == nil && len(evs) > 0 {
		if err := mem.putJSON(nil, keyOverview, shaped(&o)); err != nil {
			return nil, err
		}
		recs, err := lineageRecords(l)
		if err != nil {
			return nil, err
		}
		if lineageErr != nil { // a damaged snapshot: the session shows as damaged
			recs = nil
		}
		for k, v := range recs {
			if err := f.want.put(bucketLineage, []byte(k), v); err != nil {
				return nil, err
			}
		}
		if err := r.Refresh(g, o); err != nil {
			return nil, fmt.Errorf("store: resume record of session %s: %w", t.id, err)
		}
		if err := mem.putJSON(nil, keyResume, &r); err != nil {
			return nil, err
		}
		f.resume = &r
	}
	return f, nil
}

// write makes session bucket b keep f's records, writing only those
// that differ from what it keeps, and labels them with this build's
// definitions.
func (f *folded) write(b *bbolt.Bucket) error {
	if err := keepRecords(b, f.want); err != nil {
		return err
	}
	if err := b.Bucket(bucketNodes).SetSequence(f.nodes); err != nil {
		return err
	}
	if err := b.Bucket(bucketRuns).SetSequence(f.runs); err != nil {
		return err
	}
	return labelRecords(b)
}

// foldedIndexes puts g's node, run and attempt records into t's indexes,
// and returns the id sequences of nodes and runs.
func foldedIndexes(t *Tx, g *project.Graph) (nodes, runs uint64, err error) {
	ix := indexes{t}
	for _, r := range g.Runs() {
		runs++
		if err := ix.PutRun(r); err != nil {
			return 0, 0, err
		}
		for _, n := range g.Nodes(r.ID) {
			nodes++
			if err := ix.PutNode(n); err != nil {
				return 0, 0, err
			}
			for a := range n.Attempts {
				if at, ok := g.Attempt(n.ID, a); ok {
					if err := ix.PutAttempt(n.ID, a, at); err != nil {
						return 0, 0, err
					}
				}
			}
		}
	}
	return nodes, runs, nil
}

// keepRecords makes session bucket b keep exactly the derived records of
// want, writing only those that differ.
func keepRecords(b *bbolt.Bucket, want memKV) error {
	for _, name := range indexBuckets {
		ib := b.Bucket(name)
		if ib == nil {
			var err error
			if ib, err = b.CreateBucket(name); err != nil {
				return err
			}
		}
		if err := keepKeys(ib, nil, want[string(name)]); err != nil {
			return err
		}
	}
	return keepKeys(b, [][]byte{keyOverview, keyResume}, want[""])
}

// keepKeys makes b hold want: of keys when given, else of all its keys.
func keepKeys(b *bbolt.Bucket, keys [][]byte, want map[string][]byte) error {
	if keys == nil {
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if _, ok := want[string(k)]; !ok && v != nil {
				keys = append(keys, bytes.Clone(k))
			}
		}
	}
	for _, k := range keys {
		if _, ok := want[string(k)]; !ok {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
	}
	sorted := make([]string, 0, len(want))
	for k := range want {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		if v := want[k]; !bytes.Equal(b.Get([]byte(k)), v) {
			if err := b.Put([]byte(k), v); err != nil {
				return err
			}
		}
	}
	return nil
}

// RebuildIndexes replaces session id's derived records with a refold of
// its log, in this build's definitions. The log must verify (chain,
// snapshots, pinned workflows): records are never rebuilt from events
// that might be damaged.
func (s *Store) RebuildIndexes(id engine.SessionID) error {
	_, err := s.rebuild(id)
	return err
}

// rebuild is RebuildIndexes, returning what it left.
func (s *Store) rebuild(id engine.SessionID) (*rebuiltRecords, error) {
	var r *rebuiltRecords
	err := s.commit.update(func(btx *bbolt.Tx) error {
		b := btx.Bucket(bucketSessions).Bucket(sessionKey(id))
		if b == nil {
			return missing(btx, id)
		}
		var err error
		r, err = s.rebuildIn(btx, b, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.rebuilt(id, r)
	return r, nil
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
	f, err := foldLog(t, nil)
	if err != nil {
		return nil, err
	}
	return s.keep(btx, b, id, f)
}

// keep writes f into session bucket b, in write transaction btx.
func (s *Store) keep(btx *bbolt.Tx, b *bbolt.Bucket, id engine.SessionID, f *folded) (*rebuiltRecords, error) {
	if err := f.write(b); err != nil {
		return nil, err
	}
	r := &rebuiltRecords{head: f.head}
	if f.resume != nil && f.resume.Last != 0 {
		r.rec = f.resume
		s.resume.complete(r.rec, newTx(btx, b, id))
	}
	return r, nil
}

// foldLog verifies t's session's log (its chain, and every snapshot and
// pinned workflow it references) and folds its derived records in
// memory. A log that does not verify is errDamagedLog. pins, when not
// nil, holds the pinned workflows found whole earlier in the same pass,
// which are not hashed again: many sessions share one pin, and pins are
// large.
func foldLog(t *Tx, pins map[engine.Digest]bool) (*folded, error) {
	var evs []event.Event
	var refErr error
	h := t.verifyChain(func(e event.Event) error {
		evs = append(evs, e)
		if refErr == nil {
			refErr = t.checkRefsOnce(e, pins)
		}
		return nil
	})
	if h.Status != execute.Healthy {
		return nil, fmt.Errorf("%w: session %s is %s at event %d (%s)", errDamagedLog, t.id, h.Status, h.FirstBad, h.Reason)
	}
	if refErr != nil {
		return nil, fmt.Errorf("%w: session %s references %v", errDamagedLog, t.id, refErr)
	}
	return foldRecords(t, evs)
}

// checkRefsOnce is checkRefs, skipping a pinned workflow pins holds and
// adding one it finds whole.
func (t *Tx) checkRefsOnce(e event.Event, pins map[engine.Digest]bool) error {
	r, ok := referenced(e)
	if ok && r.kind == blobWorkflow && pins[r.d] {
		return nil
	}
	if err := t.checkRefs(e); err != nil {
		return err
	}
	if ok && r.kind == blobWorkflow && pins != nil {
		pins[r.d] = true
	}
	return nil
}

// rebuilt tells the caches of a committed rebuild of session id: its
// health is checked again, and the in-memory resume record replaced.
func (s *Store) rebuilt(id engine.SessionID, r *rebuiltRecords) {
	s.forgetHealth(id)
	s.resume.replace(id, r.head, r.rec)
}
