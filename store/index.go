package store

import (
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
)

// indexes is where project.Index keeps the derived records of a session:
// its buckets, through the transaction's key-value seam.
type indexes struct{ t *Tx }

func (x indexes) Node(id engine.NodeID) (project.Node, error) { return x.t.Node(id) }
func (x indexes) Run(id engine.RunID) (project.Run, error)    { return x.t.Run(id) }
func (x indexes) PutNode(n project.Node) error {
	return x.t.putJSON(bucketNodes, u32(uint32(n.ID)), n)
}
func (x indexes) PutRun(r project.Run) error { return x.t.putJSON(bucketRuns, u32(uint32(r.ID)), r) }
func (x indexes) PutAttempt(n engine.NodeID, a engine.Attempt, at engine.EventIndex) error {
	return x.t.ix.put(bucketAttempts, attemptKey(n, a), u64(uint64(at)))
}

// Node reads the index record of node id.
func (t *Tx) Node(id engine.NodeID) (project.Node, error) {
	var n project.Node
	return n, t.get(bucketNodes, u32(uint32(id)), func(b []byte) error { return decodeNode(b, &n) })
}

// Run reads the index record of run id.
func (t *Tx) Run(id engine.RunID) (project.Run, error) {
	var r project.Run
	return r, t.getJSON(bucketRuns, u32(uint32(id)), &r)
}

// Runs lists the session's runs in the order they started.
func (t *Tx) Runs() ([]project.Run, error) {
	var out []project.Run
	err := t.b.Bucket(bucketRuns).ForEach(func(k, v []byte) error {
		var r project.Run
		if err := json.Unmarshal(v, &r); err != nil {
			return err
		}
		out = append(out, r)
		return nil
	})
	return out, err
}

// RecordedAttempt returns the advance_recorded event of attempt a at node,
// or engine.ErrNotFound when that attempt has not been made.
func (t *Tx) RecordedAttempt(node engine.NodeID, a engine.Attempt) (event.Event, error) {
	v := t.ix.get(bucketAttempts, attemptKey(node, a))
	if v == nil {
		return event.Event{}, engine.ErrNotFound
	}
	return t.Event(engine.EventIndex(binary.BigEndian.Uint64(v)))
}

func attemptKey(n engine.NodeID, a engine.Attempt) []byte {
	return binary.BigEndian.AppendUint32(u32(uint32(n)), uint32(a))
}

func (t *Tx) putJSON(bucket, key []byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return t.ix.put(bucket, key, b)
}

func (t *Tx) getJSON(bucket, key []byte, v any) error {
	return t.get(bucket, key, func(b []byte) error { return json.Unmarshal(b, v) })
}

// get reads the record under key with decode.
func (t *Tx) get(bucket, key []byte, decode func([]byte) error) error {
	b := t.ix.get(bucket, key)
	if b == nil {
		return fmt.Errorf("store: %s %x: %w", bucket, key, engine.ErrNotFound)
	}
	return decode(b)
}
