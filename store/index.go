package store

import (
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
)

// NodeInfo is the derived index record of one node. Everything in it can be
// rebuilt by replaying the session's events through index.
type NodeInfo struct {
	ID        engine.NodeID      `json:"id"`
	Run       engine.RunID       `json:"run"`
	Kind      event.NodeKind     `json:"kind"`
	Snapshot  engine.SnapshotRef `json:"snapshot"`
	CreatedAt engine.EventIndex  `json:"createdAt"`
	Parent    engine.NodeID      `json:"parent,omitzero"`
	Children  []engine.NodeID    `json:"children,omitempty"`
	// Attempts is how many ack attempts were recorded at this node; the
	// next fresh attempt number.
	Attempts engine.Attempt      `json:"attempts"`
	Outputs  []engine.EventIndex `json:"outputs,omitempty"`
	// PathOutputs counts the outputs on the path from the run's root to
	// this node, inclusive, so a recap knows what it left out without
	// walking the whole path.
	PathOutputs int `json:"pathOutputs,omitzero"`
	// LastActivity is the highest event index that touched this node.
	LastActivity engine.EventIndex `json:"lastActivity"`
	// Gaps are the gap_recorded events attached to this node.
	Gaps []engine.EventIndex `json:"gaps,omitempty"`
}

// RunInfo is the derived index record of one run.
type RunInfo struct {
	ID           engine.RunID        `json:"id"`
	WorkflowID   engine.WorkflowID   `json:"workflowId"`
	WorkflowHash engine.WorkflowHash `json:"workflowHash"`
	StartedAt    engine.EventIndex   `json:"startedAt"`
	Root         engine.NodeID       `json:"root,omitzero"`
}

// index folds one event into the derived indexes.
func (t *Tx) index(e event.Event) error {
	switch d := e.Data.(type) {
	case *event.RunStartedData:
		return t.putJSON(bucketRuns, u32(uint32(e.Run)), RunInfo{ID: e.Run, WorkflowID: d.WorkflowID, WorkflowHash: d.WorkflowHash, StartedAt: e.Index})
	case *event.NodeCreatedData:
		if err := t.putNode(NodeInfo{ID: e.Node, Run: e.Run, Kind: d.NodeKind, Snapshot: d.Snapshot, CreatedAt: e.Index, LastActivity: e.Index}); err != nil {
			return err
		}
		return t.setRoot(e.Run, e.Node)
	case *event.EdgeCreatedData:
		return t.link(d.From, d.To, e.Index)
	case *event.AdvanceRecordedData:
		return t.recordAttempt(e.Node, d.Attempt, e.Index)
	case *event.GapRecordedData:
		return t.updateNode(e.Node, func(n *NodeInfo) { n.Gaps, n.LastActivity = append(n.Gaps, e.Index), e.Index })
	case *event.NodeOutputAppendedData:
		return t.updateNode(e.Node, func(n *NodeInfo) {
			n.Outputs = append(n.Outputs, e.Index)
			n.PathOutputs++
			n.LastActivity = e.Index
		})
	}
	if e.Node != 0 {
		return t.updateNode(e.Node, func(n *NodeInfo) { n.LastActivity = e.Index })
	}
	return nil
}

func (t *Tx) setRoot(run engine.RunID, node engine.NodeID) error {
	r, err := t.Run(run)
	if err != nil || r.Root != 0 {
		return err
	}
	r.Root = node
	return t.putJSON(bucketRuns, u32(uint32(run)), r)
}

func (t *Tx) link(from, to engine.NodeID, at engine.EventIndex) error {
	parent, err := t.Node(from)
	if err != nil {
		return err
	}
	if err := t.updateNode(to, func(n *NodeInfo) {
		n.Parent, n.PathOutputs, n.LastActivity = from, parent.PathOutputs+n.PathOutputs, at
	}); err != nil {
		return err
	}
	return t.updateNode(from, func(n *NodeInfo) { n.Children = append(n.Children, to) })
}

func (t *Tx) recordAttempt(node engine.NodeID, a engine.Attempt, at engine.EventIndex) error {
	if err := t.ix.put(bucketAttempts, attemptKey(node, a), u64(uint64(at))); err != nil {
		return err
	}
	return t.updateNode(node, func(n *NodeInfo) { n.Attempts, n.LastActivity = max(n.Attempts, a+1), at })
}

// Node reads the index record of node id.
func (t *Tx) Node(id engine.NodeID) (NodeInfo, error) {
	var n NodeInfo
	return n, t.getJSON(bucketNodes, u32(uint32(id)), &n)
}

// Run reads the index record of run id.
func (t *Tx) Run(id engine.RunID) (RunInfo, error) {
	var r RunInfo
	return r, t.getJSON(bucketRuns, u32(uint32(id)), &r)
}

// RecordedAttempt returns the advance_recorded event of attempt a at node,
// or ErrNotFound when that attempt has not been made.
func (t *Tx) RecordedAttempt(node engine.NodeID, a engine.Attempt) (event.Event, error) {
	v := t.ix.get(bucketAttempts, attemptKey(node, a))
	if v == nil {
		return event.Event{}, ErrNotFound
	}
	return t.Event(engine.EventIndex(binary.BigEndian.Uint64(v)))
}

func attemptKey(n engine.NodeID, a engine.Attempt) []byte {
	return binary.BigEndian.AppendUint32(u32(uint32(n)), uint32(a))
}

func (t *Tx) putNode(n NodeInfo) error { return t.putJSON(bucketNodes, u32(uint32(n.ID)), n) }

func (t *Tx) updateNode(id engine.NodeID, f func(*NodeInfo)) error {
	n, err := t.Node(id)
	if err != nil {
		return err
	}
	f(&n)
	return t.putNode(n)
}

func (t *Tx) putJSON(bucket, key []byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return t.ix.put(bucket, key, b)
}

func (t *Tx) getJSON(bucket, key []byte, v any) error {
	b := t.ix.get(bucket, key)
	if b == nil {
		return fmt.Errorf("store: %s %x: %w", bucket, key, ErrNotFound)
	}
	return json.Unmarshal(b, v)
}
