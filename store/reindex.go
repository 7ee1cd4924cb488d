package store

import (
	"bytes"
	"fmt"
	"sort"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/project"
)

// indexKV is where the derived indexes are read and written: the session's
// buckets in normal use, memory when doctor refolds the log to check them.
type indexKV interface {
	get(bucket, key []byte) []byte
	put(bucket, key, value []byte) error
}

type bucketKV struct{ b *bbolt.Bucket }

func (k bucketKV) get(bucket, key []byte) []byte       { return k.b.Bucket(bucket).Get(key) }
func (k bucketKV) put(bucket, key, value []byte) error { return k.b.Bucket(bucket).Put(key, value) }

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
	mem := memKV{}
	shadow := &Tx{tx: t.tx, b: t.b, id: t.id, ix: mem}
	for _, e := range evs {
		if err := project.Index(indexes{shadow}, e); err != nil {
			return fmt.Sprintf("event %d does not fold: %v", e.Index, err), nil
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
// left.
func refold(t *Tx, evs []event.Event) error {
	nodes, runs := 0, 0
	for _, e := range evs {
		if err := project.Index(indexes{t}, e); err != nil {
			return fmt.Errorf("store: refold event %d: %w", e.Index, err)
		}
		switch e.Kind {
		case event.NodeCreated:
			nodes++
		case event.RunStarted:
			runs++
		}
	}
	if err := t.b.Bucket(bucketNodes).SetSequence(uint64(nodes)); err != nil {
		return err
	}
	return t.b.Bucket(bucketRuns).SetSequence(uint64(runs))
}

// RebuildIndexes replaces session id's derived indexes with a refold of its
// log. The log must verify: indexes are never rebuilt from events that
// might be damaged.
func (s *Store) RebuildIndexes(id engine.SessionID) error {
	err := s.commit.update(func(btx *bbolt.Tx) error {
		b := btx.Bucket(bucketSessions).Bucket(sessionKey(id))
		if b == nil {
			return fmt.Errorf("store: session %s: %w", id, engine.ErrNotFound)
		}
		t := newTx(btx, b, id)
		var evs []event.Event
		if h := t.verifyChain(func(e event.Event) error { evs = append(evs, e); return nil }); h.Status != execute.Healthy {
			return fmt.Errorf("store: session %s is %s at event %d; its indexes are not rebuilt from a damaged log", id, h.Status, h.FirstBad)
		}
		for _, name := range indexBuckets {
			if err := b.DeleteBucket(name); err != nil {
				return err
			}
			if _, err := b.CreateBucket(name); err != nil {
				return err
			}
		}
		return refold(newTx(btx, b, id), evs)
	})
	if err == nil {
		s.forgetHealth(id)
	}
	return err
}
