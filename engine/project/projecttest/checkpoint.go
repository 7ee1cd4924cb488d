package projecttest

import (
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
)

// Checkpoint records a checkpoint of node from the way checkpoint_workflow
// does: a node of kind checkpoint holding from's own snapshot (nothing
// advances), under from by a checkpoint edge, with notes on it. A later
// Advance from from is a fork, as it is for the use cases.
func (l *Log) Checkpoint(r engine.RunID, from engine.NodeID, notes string) engine.NodeID {
	l.tb.Helper()
	var ref engine.SnapshotRef
	found := false
	for _, e := range l.Events {
		if d, ok := e.Data.(*event.NodeCreatedData); ok && e.Node == from {
			ref, found = d.Snapshot, true
		}
	}
	if !found {
		l.tb.Fatalf("projecttest: no node %s to checkpoint", from)
	}
	l.nodes++
	l.children[from]++
	l.Add(r, l.nodes, &event.NodeCreatedData{NodeKind: event.NodeCheckpoint, Snapshot: ref})
	l.Add(r, l.nodes, &event.EdgeCreatedData{EdgeKind: event.EdgeCheckpoint, From: from, To: l.nodes})
	l.Add(r, l.nodes, &event.NodeOutputAppendedData{StepID: l.snaps[ref].Position.Step, NotesMarkdown: notes})
	return l.nodes
}
