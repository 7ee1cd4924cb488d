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
		id, err := st.Create(func(tx execute.Tx) error {
			return RunOfNodes(tx, c, nodes, func(i int) map[string]any {
				return map[string]any{"session": int(tx.Session()), "node": i, "notes": strings.Repeat("n", 200)}
			})
		})
		if err != nil {
			tb.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

// StartRun writes a session's creation, c pinned, and the start of one
// run of c.
func StartRun(tx execute.Tx, c compile.Compiled) (engine.RunID, error) {
	if _, err := tx.Append(0, 0, &event.SessionCreatedData{CreatedAt: "2026-03-01T12:00:00Z"}); err != nil {
		return 0, err
	}
	if err := tx.PinWorkflow(c); err != nil {
		return 0, err
	}
	rid, err := tx.NewRunID()
	if err != nil {
		return 0, err
	}
	_, err = tx.Append(rid, 0, &event.RunStartedData{WorkflowID: c.ID, WorkflowHash: c.Hash})
	return rid, err
}

// RunOfNodes writes what StartRun does, then nodes step nodes, each
// acked from the one before, the snapshot of node i holding context(i)
// (run complete: nothing is pending).
func RunOfNodes(tx execute.Tx, c compile.Compiled, nodes int, context func(i int) map[string]any) error {
	rid, err := StartRun(tx, c)
	if err != nil {
		return err
	}
	var prev engine.NodeID
	for i := range nodes {
		nid, err := tx.NewNodeID()
		if err != nil {
			return err
		}
		ref, err := tx.PutSnapshot(run.Snapshot{WorkflowHash: c.Hash, Position: run.Position{Kind: run.Complete}, Context: context(i)})
		if err != nil {
			return err
		}
		if _, err := tx.Append(rid, nid, &event.NodeCreatedData{NodeKind: event.NodeStep, Snapshot: ref}); err != nil {
			return err
		}
		if prev != 0 {
			if _, err := tx.Append(rid, nid, &event.EdgeCreatedData{EdgeKind: event.EdgeAckedStep, From: prev, To: nid}); err != nil {
				return err
			}
		}
		prev = nid
	}
	return nil
}
