// Package project owns the projections of a session's durable log: the
// derived node and run records (one fold over events, kept up to date by
// the store on every append), the run DAG with fork provenance, the
// preferred tip, run status, gaps and their resolution, blocked attempts,
// recaps and branch summaries. Every surface (the tools, the Console,
// resume, export) reads these; none re-derives them. It is pure: it reads
// through the Reader and Indexes interfaces it declares.
package project

import (
	"fmt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/run"
)

// Node is the derived record of one node. Everything in it is rebuilt by
// folding the session's events through Index; the store keeps it as JSON,
// so its fields and tags are part of the database format.
type Node struct {
	ID        engine.NodeID      `json:"id"`
	Run       engine.RunID       `json:"run"`
	Kind      event.NodeKind     `json:"kind"`
	Snapshot  engine.SnapshotRef `json:"snapshot"`
	CreatedAt engine.EventIndex  `json:"createdAt"`
	// CreatedTime is when its node_created was appended (informational;
	// zero in the logs of builds that recorded no time).
	CreatedTime event.Millis    `json:"createdTime,omitzero"`
	Parent      engine.NodeID   `json:"parent,omitzero"`
	Children    []engine.NodeID `json:"children,omitempty"`
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

// Run is the derived record of one run.
type Run struct {
	ID           engine.RunID        `json:"id"`
	WorkflowID   engine.WorkflowID   `json:"workflowId"`
	WorkflowHash engine.WorkflowHash `json:"workflowHash"`
	StartedAt    engine.EventIndex   `json:"startedAt"`
	// StartedTime is when its run_started was appended (informational).
	StartedTime event.Millis  `json:"startedTime,omitzero"`
	Root        engine.NodeID `json:"root,omitzero"`
	// RestartOf is the run of the same session this one starts over
	// (run_started's restartOf); 0 for a run started afresh.
	RestartOf engine.RunID `json:"restartOf,omitzero"`
	// Repo is the repository and commit the run's workflow was read from
	// (run_started's repo); absent for every other source, so the record
	// of a log written before it is as it was.
	Repo event.RepoPin `json:"repo,omitzero"`
}

// Indexes is where Index keeps the derived records: the store's buckets,
// or memory. A missing record is an error wrapping engine.ErrNotFound.
type Indexes interface {
	Node(engine.NodeID) (Node, error)
	PutNode(Node) error
	Run(engine.RunID) (Run, error)
	PutRun(Run) error
	PutAttempt(node engine.NodeID, a engine.Attempt, at engine.EventIndex) error
}

// Reader is what projections read of one session: node records, events
// by index and node snapshots. A store transaction provides it, and so
// does a Graph folded from events.
type Reader interface {
	Node(engine.NodeID) (Node, error)
	Event(engine.EventIndex) (event.Event, error)
	Snapshot(engine.SnapshotRef) (run.Snapshot, error)
}

// IndexVersion is the definition version of the records Index derives
// (Node, Run, and the attempt entries). The stores label what they keep
// with it and rebuild from the log what was written under another: bump
// it whenever a change here or in Node or Run would make a refold differ,
// in shape or in content, from what an earlier build stored
// (store/testdata/derived pins each version's bytes).
const IndexVersion = 2

// Index folds one event into the derived records.
func Index(ix Indexes, e event.Event) error {
	switch d := e.Data.(type) {
	case *event.RunStartedData:
		if d.RestartOf != 0 {
			if _, err := ix.Run(d.RestartOf); err != nil {
				return err
			}
		}
		return ix.PutRun(Run{ID: e.Run, WorkflowID: d.WorkflowID, WorkflowHash: d.WorkflowHash, StartedAt: e.Index, StartedTime: e.AppendedAt, RestartOf: d.RestartOf, Repo: d.Repo})
	case *event.NodeCreatedData:
		if err := ix.PutNode(Node{ID: e.Node, Run: e.Run, Kind: d.NodeKind, Snapshot: d.Snapshot, CreatedAt: e.Index, CreatedTime: e.AppendedAt, LastActivity: e.Index}); err != nil {
			return err
		}
		return setRoot(ix, e.Run, e.Node)
	case *event.EdgeCreatedData:
		return link(ix, d.From, d.To, e.Index)
	case *event.AdvanceRecordedData:
		if err := ix.PutAttempt(e.Node, d.Attempt, e.Index); err != nil {
			return err
		}
		return update(ix, e.Node, func(n *Node) { n.Attempts, n.LastActivity = max(n.Attempts, d.Attempt+1), e.Index })
	case *event.GapRecordedData:
		return update(ix, e.Node, func(n *Node) { n.Gaps, n.LastActivity = append(n.Gaps, e.Index), e.Index })
	case *event.NodeOutputAppendedData:
		return update(ix, e.Node, func(n *Node) {
			n.Outputs = append(n.Outputs, e.Index)
			n.PathOutputs++
			n.LastActivity = e.Index
		})
	}
	if e.Node != 0 {
		return update(ix, e.Node, func(n *Node) { n.LastActivity = e.Index })
	}
	return nil
}

func setRoot(ix Indexes, id engine.RunID, node engine.NodeID) error {
	r, err := ix.Run(id)
	if err != nil || r.Root != 0 {
		return err
	}
	r.Root = node
	return ix.PutRun(r)
}

func link(ix Indexes, from, to engine.NodeID, at engine.EventIndex) error {
	parent, err := ix.Node(from)
	if err != nil {
		return err
	}
	if err := update(ix, to, func(n *Node) {
		n.Parent, n.PathOutputs, n.LastActivity = from, parent.PathOutputs+n.PathOutputs, at
	}); err != nil {
		return err
	}
	return update(ix, from, func(n *Node) { n.Children = append(n.Children, to) })
}

func update(ix Indexes, id engine.NodeID, f func(*Node)) error {
	n, err := ix.Node(id)
	if err != nil {
		return err
	}
	f(&n)
	return ix.PutNode(n)
}

func notFound(what string, id any) error {
	return fmt.Errorf("project: %s %v: %w", what, id, engine.ErrNotFound)
}
