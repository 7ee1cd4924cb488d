package store_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/golden"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/resume"
)

// The bytes each kind of derived record folds from a fixed session are
// pinned per definition version (testdata/derived/KIND.vN): a change to
// what a record holds, made without bumping its version, fails here, not
// on users' files. -update writes the file of a version that has none,
// and never rewrites one: a new rule needs a new version.
func TestDerivedRecordsArePinnedByVersion(t *testing.T) {
	r := newRig(t, executetest.Long(t, 6))
	id := fixedSession(t, r)
	got := derivedBytes(t, r, id)
	// A rebuild (a refold in memory) writes the bytes the appends wrote.
	r.open(t)
	if err := r.store.RebuildIndexes(id); err != nil {
		t.Fatal(err)
	}
	for kind, b := range derivedBytes(t, r, id) {
		if !bytes.Equal(b, got[kind]) {
			t.Fatalf("rebuilt %s records:\n%s\nappended:\n%s", kind, b, got[kind])
		}
	}
	for _, k := range []struct {
		kind    string
		version uint32
		bump    string
	}{
		{"indexes", project.IndexVersion, "project.IndexVersion"},
		{"overview", project.OverviewVersion, "project.OverviewVersion"},
		{"resume", resume.RecordVersion, "resume.RecordVersion"},
		{"projection", project.ProjectionVersion, "project.ProjectionVersion"},
	} {
		path := filepath.Join("testdata", "derived", fmt.Sprintf("%s.v%d", k.kind, k.version))
		want, err := os.ReadFile(path)
		switch {
		case os.IsNotExist(err) && golden.Update():
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got[k.kind], 0o644); err != nil {
				t.Fatal(err)
			}
		case os.IsNotExist(err):
			t.Errorf("%s: no golden file for version %d of the %s records: run go test ./store -run %s -update and review it", path, k.version, k.kind, t.Name())
		case err != nil:
			t.Fatal(err)
		case !bytes.Equal(got[k.kind], want):
			t.Errorf("the %s records no longer fold to the bytes version %d pinned (%s):\n%s\nwant:\n%s\n"+
				"Bump %s (stored records of the old version are then rebuilt, not reported as damage), and run with -update to pin the new version",
				k.kind, k.version, path, got[k.kind], want, k.bump)
		}
	}
}

// fixedSession drives one session the same way every time: notes, a
// gap, a fork from the first step, and a second run.
func fixedSession(t *testing.T, r *rig) engine.SessionID {
	t.Helper()
	s := r.step(t, r.x.Start, map[string]any{"workflowId": "wr.long"})
	args := s.NextCall.Arguments
	args.Output = &protocol.Output{NotesMarkdown: "## Pinned derived records: a *fixed* session whose first line is long enough to be cut by the title rule\n- and a list below"}
	next := r.step(t, r.x.Continue, args)
	args = next.NextCall.Arguments
	args.Output = &protocol.Output{NotesMarkdown: "Second step: nothing else."}
	r.step(t, r.x.Continue, args)
	again := r.step(t, r.x.Continue, map[string]any{"stateToken": s.StateToken})
	args = again.NextCall.Arguments
	args.Output = &protocol.Output{NotesMarkdown: "A fork from the first step."}
	r.step(t, r.x.Continue, args)
	if res, _ := r.x.Restart(context.Background(), execute.Place{Session: s.Session.SessionID, Run: s.Session.RunID, Node: 1}, []byte(`{"hasWorkspace": false}`)); res.ResultKind() != protocol.KindStep {
		t.Fatalf("restart: %s", res.RenderedText())
	}
	return s.Session.SessionID
}

// derivedBytes reads each kind of derived record of session id as text:
// the index buckets' keys and values, the overview and resume record,
// the projection's keys and values.
func derivedBytes(t *testing.T, r *rig, id engine.SessionID) map[string][]byte {
	t.Helper()
	r.store.Close()
	db, err := bbolt.Open(r.path, 0o600, &bbolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	out := map[string][]byte{}
	db.View(func(tx *bbolt.Tx) error {
		b := sessionBucket(tx, id)
		var ix bytes.Buffer
		for _, name := range []string{"nodes", "runs", "attempts"} {
			fmt.Fprintf(&ix, "%s sequence %d\n", name, b.Bucket([]byte(name)).Sequence())
			b.Bucket([]byte(name)).ForEach(func(k, v []byte) error {
				if name == "attempts" {
					fmt.Fprintf(&ix, "%s %x %x\n", name, k, v)
				} else {
					fmt.Fprintf(&ix, "%s %x %s\n", name, k, v)
				}
				return nil
			})
		}
		out["indexes"] = ix.Bytes()
		var ln bytes.Buffer
		b.Bucket([]byte("lineage")).ForEach(func(k, v []byte) error {
			fmt.Fprintf(&ln, "%x %s\n", k, v)
			return nil
		})
		out["projection"] = ln.Bytes()
		out["overview"] = append(bytes.Clone(b.Get([]byte("overview"))), '\n')
		out["resume"] = append(bytes.Clone(b.Get([]byte("resume"))), '\n')
		return nil
	})
	return out
}
