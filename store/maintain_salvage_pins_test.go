package store_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/store"
)

// sealed compiles a workflow of id whose description is text.
func sealed(tb testing.TB, id engine.WorkflowID, text string) compile.Compiled {
	tb.Helper()
	c, err := compile.Seal(compile.Workflow{ID: id, Name: string(id), Description: text, Version: "1"})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// pinnedTo creates a session in workspace whose one run is pinned to wf.
func pinnedTo(tb testing.TB, s *store.Store, wf compile.Compiled, workspace string) engine.SessionID {
	tb.Helper()
	id, err := s.Create(func(tx execute.Tx) error {
		if _, err := tx.Append(0, 0, &event.SessionCreatedData{CreatedAt: "2026-01-01T00:00:00Z", WorkspacePath: workspace}); err != nil {
			return err
		}
		if err := tx.PinWorkflow(wf); err != nil {
			return err
		}
		rid, _ := tx.NewRunID()
		if _, err := tx.Append(rid, 0, &event.RunStartedData{WorkflowID: wf.ID, WorkflowHash: wf.Hash}); err != nil {
			return err
		}
		nid, _ := tx.NewNodeID()
		ref, err := tx.PutSnapshot(run.Snapshot{WorkflowHash: wf.Hash, Position: run.Position{Kind: run.Complete}})
		if err != nil {
			return err
		}
		_, err = tx.Append(rid, nid, &event.NodeCreatedData{NodeKind: event.NodeStep, Snapshot: ref})
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return id
}

// finder answers a salvage's look at the workflow files from defs, as
// the daemon's sources would: by id, among the workspace's definitions.
func finder(calls *int, defs ...compile.Compiled) func(string, store.Pin) (compile.Compiled, bool) {
	return func(_ string, p store.Pin) (compile.Compiled, bool) {
		*calls++
		for _, c := range defs {
			if c.ID == p.WorkflowID && c.Hash == p.WorkflowHash {
				return c, true
			}
		}
		return compile.Compiled{}, false
	}
}

// One damaged page of the pinned workflows used to cost every session
// (0 of 4,162 salvaged with every log intact). A pin the tree lost is
// taken from an older copy of its page, which bbolt's copy-on-write
// leaves on a freed page, or from the workflow files on disk when one
// compiles to the same hash; a session whose pin is nowhere is reported
// with the id and hash it needs, and the copy is not complete.
func TestSalvageRecoversPinnedWorkflowsFromFreedPagesAndFiles(t *testing.T) {
	const n = 40
	path := filepath.Join(t.TempDir(), "workrail.db")
	s := mustOpen(t, path)
	// 2 KB of pins give the workflows bucket a page of its own; every
	// session but the last is pinned to one of them.
	large, small := sealed(t, "wr.large", strings.Repeat("large ", 400)), sealed(t, "wr.x", "x")
	pinnedTo(t, s, large, "")
	for range n - 2 {
		pinnedTo(t, s, small, "/work/project")
	}
	// The last pin rewrites the page: the one before it, holding the
	// first two pins, is freed and not yet written over.
	late := sealed(t, "wr.late", "late")
	last := pinnedTo(t, s, late, "/work/project")
	heads := map[engine.SessionID]engine.Digest{}
	for id := range engine.SessionID(n) {
		heads[id+1], _ = s.Digest(id + 1)
	}
	s.Close()
	pageSize, _, buckets := store.Pages(t, path)
	if buckets["workflows"] == 0 {
		t.Fatal("the pinned workflows are inline in the root bucket's page; the test needs a page of their own")
	}
	src := damaged(t, path, func(f *os.File, _ int64) { scramble(t, f, pageSize, buckets["workflows"]) })
	if !store.ScannedBlob(t, src, engine.Digest(small.Hash)) || store.ScannedBlob(t, src, engine.Digest(late.Hash)) {
		t.Fatal("the test needs an older copy of the pinned workflows' page holding wr.x but not wr.late")
	}
	lateNeeded := []store.Pin{{WorkflowID: "wr.late", WorkflowHash: late.Hash}}

	t.Run("freed copy", func(t *testing.T) {
		rep, out := salvageWith(t, src, store.SalvageOptions{})
		if !slices.Equal(rep.Salvaged, idRange(1, n-1)) || len(rep.Lost) != 1 || rep.Lost[0].Session != last || rep.Complete {
			t.Fatalf("salvaged %v, lost %+v, complete %v; want 1 to %d, and %s lost", rep.Salvaged, rep.Lost, rep.Complete, n-1, last)
		}
		if l := rep.Lost[0]; !slices.Equal(l.Needs, lateNeeded) || !strings.Contains(l.Reason, "wr.late (sha256:") ||
			!strings.Contains(l.Reason, "in neither the file nor the workflow files on disk") {
			t.Fatalf("%s lost: %q, needs %+v; want it to name wr.late and its hash", last, l.Reason, l.Needs)
		}
		want := []store.RestoredPin{
			{Pin: store.Pin{WorkflowID: "wr.large", WorkflowHash: large.Hash}, From: store.FromPageScan, Sessions: 1},
			{Pin: store.Pin{WorkflowID: "wr.x", WorkflowHash: small.Hash}, From: store.FromPageScan, Sessions: n - 2},
		}
		if !sameRestored(rep.Restored, want) {
			t.Fatalf("restored %+v; want %+v", rep.Restored, want)
		}
		checkSalvaged(t, "freed copy", out, rep, heads)
	})
	t.Run("workflow files", func(t *testing.T) {
		calls := 0
		rep, out := salvageWith(t, src, store.SalvageOptions{Workflows: finder(&calls, late)})
		if !slices.Equal(rep.Salvaged, idRange(1, n)) || len(rep.Lost) != 0 || !rep.Complete {
			t.Fatalf("salvaged %v, lost %+v, complete %v; want all %d", rep.Salvaged, rep.Lost, rep.Complete, n)
		}
		want := []store.RestoredPin{
			{Pin: store.Pin{WorkflowID: "wr.large", WorkflowHash: large.Hash}, From: store.FromPageScan, Sessions: 1},
			{Pin: store.Pin{WorkflowID: "wr.late", WorkflowHash: late.Hash}, From: store.FromWorkflowFiles, Sessions: 1},
			{Pin: store.Pin{WorkflowID: "wr.x", WorkflowHash: small.Hash}, From: store.FromPageScan, Sessions: n - 2},
		}
		if !sameRestored(rep.Restored, want) {
			t.Fatalf("restored %+v; want %+v", rep.Restored, want)
		}
		// Each pin is looked for once per workspace, not once a session.
		if calls > 4 {
			t.Errorf("the workflow files were asked %d times for %d sessions; want once per pin and workspace", calls, n)
		}
		checkSalvaged(t, "workflow files", out, rep, heads)
		got := mustOpen(t, out)
		if r, err := got.Verify(last); err != nil || !r.OK() {
			t.Fatalf("%s, its pin rebuilt from the files: %+v, %v", last, r, err)
		}
	})
	t.Run("edited file", func(t *testing.T) {
		// A file of the same id that compiles to another hash is not the
		// pinned workflow, whatever the finder says.
		calls := 0
		edited := sealed(t, "wr.late", "late, edited")
		edited.Hash = late.Hash // a finder that claims too much
		rep, _ := salvageWith(t, src, store.SalvageOptions{Workflows: finder(&calls, edited)})
		if len(rep.Lost) != 1 || !slices.Equal(rep.Lost[0].Needs, lateNeeded) || rep.Complete {
			t.Fatalf("lost %+v, complete %v; want %s lost, needing wr.late", rep.Lost, rep.Complete, last)
		}
	})
	t.Run("doctor", func(t *testing.T) {
		// Doctor reports what a salvage would keep, and what each lost
		// session needs.
		doc, err := store.DoctorFile(src, 0, store.SalvageOptions{})
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(doc.Sessions, func(r store.Report) bool { return r.Session == last })
		if i < 0 || doc.Sessions[i].OK() || !slices.Equal(doc.Sessions[i].Needs, lateNeeded) {
			t.Fatalf("doctor on %s: %+v; want it lost, needing wr.late", last, doc.Sessions)
		}
	})
}

// A pin the tree never reached (the root page damaged, so nothing of the
// tree is read) is found by the scan where its page is, and the workflow
// files are asked only for what the file does not hold.
func TestSalvageAsksTheWorkflowFilesOnlyForWhatTheFileLacks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "workrail.db")
	s := mustOpen(t, path)
	large := sealed(t, "wr.large", strings.Repeat("large ", 400))
	for range 3 {
		pinnedTo(t, s, large, "")
	}
	s.Close()
	pageSize, root, _ := store.Pages(t, path)
	calls := 0
	rep, _ := salvageWith(t, damaged(t, path, func(f *os.File, _ int64) { scramble(t, f, pageSize, root) }),
		store.SalvageOptions{Workflows: finder(&calls, large)})
	if !slices.Equal(rep.Salvaged, idRange(1, 3)) || calls != 0 {
		t.Fatalf("salvaged %v with %d looks at the files; want all 3 from the file alone", rep.Salvaged, calls)
	}
}

func sameRestored(got, want []store.RestoredPin) bool {
	return fmt.Sprint(got) == fmt.Sprint(want)
}

func salvageWith(t *testing.T, path string, o store.SalvageOptions) (store.SalvageReport, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "salvaged.db")
	rep, err := store.Salvage(path, out, o)
	if err != nil {
		t.Fatalf("salvage: %v", err)
	}
	return rep, out
}

// A file a newer workrail wrote is refused by salvage as open refuses
// it, naming both versions, whether its meta bucket is read from the
// tree or, the root page damaged, from a copy the page scan finds; and
// nothing is left at the new file's path.
func TestSalvageRefusesANewerSchema(t *testing.T) {
	store.UncheckedSessions(t, "it marks the file as a newer build's, which doctor refuses")
	path := filepath.Join(t.TempDir(), "workrail.db")
	s := mustOpen(t, path)
	for range 3 {
		seed(t, s, 2)
	}
	s.Close()
	newer := store.SchemaVersion + 1
	// Twice: a freed copy of the root bucket's page holds it too, as a
	// newer build's many writes leave.
	setSchema(t, path, uint64(newer))
	setSchema(t, path, uint64(newer))
	pageSize, root, _ := store.Pages(t, path)
	for _, tc := range []struct {
		name string
		src  string
	}{
		{"whole", path},
		{"root damaged", damaged(t, path, func(f *os.File, _ int64) { scramble(t, f, pageSize, root) })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "salvaged.db")
			_, err := store.Salvage(tc.src, out, store.SalvageOptions{})
			want := fmt.Sprintf("has database schema %d, and this workrail reads schema %d at most", newer, store.SchemaVersion)
			if !errors.Is(err, store.ErrNewerSchema) || !strings.Contains(err.Error(), want) {
				t.Fatalf("salvage of a schema %d file: %v; want it refused naming both versions", newer, err)
			}
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("a refused salvage left %s (%v)", out, err)
			}
			if _, err := store.DoctorFile(tc.src, 0, store.SalvageOptions{}); !errors.Is(err, store.ErrNewerSchema) {
				t.Fatalf("doctor of a schema %d file: %v; want it refused", newer, err)
			}
		})
	}
}
