package daemon

import (
	"strings"
	"testing"
	"time"

	enginerun "github.com/workrail/workrail/engine/run"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/store"
)

const day = 24 * time.Hour

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// openAt opens the database at path with a clock the test moves.
func openAt(t *testing.T, path string, now *time.Time) *store.Store {
	t.Helper()
	st, err := store.Open(path, store.Options{Now: func() time.Time { return *now }})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// addSessions creates n sessions, each a run of nodes nodes with
// snapshots of its own.
func addSessions(t *testing.T, st *store.Store, n, nodes int) []engine.SessionID {
	t.Helper()
	c, err := compile.Seal(compile.Workflow{ID: "wr.x", Name: "x", Description: "x", Version: "1"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []engine.SessionID
	for range n {
		id, err := st.Create(func(tx execute.Tx) error {
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
				snap := enginerun.Snapshot{WorkflowHash: c.Hash, Position: enginerun.Position{Kind: enginerun.Complete},
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
		})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}
