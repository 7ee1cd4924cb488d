package executetest

import (
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/run"
)

// Sessions creates n sessions in st, each one run of nodes step nodes
// with a snapshot of its own (200 bytes of notes in its context), written
// straight through the port: sessions for sweeps and compaction to act
// on, not to be continued.
func Sessions(tb testing.TB, st execute.Store, n, nodes int) []engine.SessionID {
	tb.Helper()
	c, err := compile.Seal(compile.Workflow{ID: "wr.x", Name: "x", Description: "x", Version: "1"})
	if err != nil {
		tb.Fatal(err)
	}
	ids := make([]engine.SessionID, 0, n)
	for range n {
		id, err := st.Create(func(tx execute.Tx) error { return runOfNodes(tx, c, nodes) })
		if err != nil {
			tb.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

// runOfNodes writes a session's creation, c pinned, and one run of c
// through nodes nodes, each acked from the one before.
func runOfNodes(tx execute.Tx, c compile.Compiled, nodes int) error {
	if _, err := tx.Append(0, 0, &event.SessionCreatedData{CreatedAt: "2026-03-01T12:00:00Z"}); err != nil {
		return err
	}
	if err := tx.PinWorkflow(c); err != nil {
		return err
	}
	rid, _ := tx.NewRunID()
	if _, err := tx.Append(rid, 0, &event.RunStartedData{WorkflowID: c.ID, WorkflowHash: c.Hash}); err != nil {
		return err
	}
	for i := range nodes {
		nid, _ := tx.NewNodeID()
		snap := run.Snapshot{WorkflowHash: c.Hash, Position: run.Position{Kind: run.Complete},
			Context: map[string]any{"session": int(tx.Session()), "node": i, "notes": strings.Repeat("n", 200)}}
		ref, err := tx.PutSnapshot(snap)
		if err != nil {
			return err
		}
		if _, err := tx.Append(rid, nid, &event.NodeCreatedData{NodeKind: event.NodeStep, Snapshot: ref}); err != nil {
			return err
		}
		if nid > 1 {
			if _, err := tx.Append(rid, nid, &event.EdgeCreatedData{EdgeKind: event.EdgeAckedStep, From: nid - 1, To: nid}); err != nil {
				return err
			}
		}
	}
	return nil
}
