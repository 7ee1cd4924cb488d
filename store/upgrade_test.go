package store_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/bundle"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/resume"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/store"
	"github.com/workrail/workrail/workflows"
)

// corpusEntry is what store/testdata/upgrade/*/corpus.json records of a
// database an earlier workrail wrote (e2e/corpus writes them).
type corpusEntry struct {
	Commit   string `json:"commit"`
	Schema   uint64 `json:"schema"`
	Sessions []struct {
		ID       engine.SessionID      `json:"sessionId"`
		Workflow string                `json:"workflowId"`
		Next     protocol.ContinueArgs `json:"next"`
		Advanced protocol.ContinueArgs `json:"advanced"`
	} `json:"sessions"`
	Bundle engine.SessionID `json:"bundle"`
}

// derivedWritten is the versions of the derived records (node and run
// index, overview, resume record, projection) the build that wrote a
// corpus database of schema v wrote: version 1 of each up to schema 5,
// and no projection before schema 7.
func derivedWritten(v uint64) [4]int {
	if v == 6 {
		return [4]int{2, 3, 2, 0}
	}
	return [4]int{1, 1, 1, 0}
}

func gunzip(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every database an earlier schema's workrail wrote opens with this one:
// it verifies, its agents' tokens keep working (a recorded advance
// replays byte for byte, the tip rehydrates and advances), its sessions
// export and import, and so does the bundle that version exported.
func TestUpgradeCorpus(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "upgrade", "schema-*"))
	if err != nil || len(dirs) < 4 {
		t.Fatalf("the upgrade corpus has %d databases (%v); want one per earlier schema", len(dirs), err)
	}
	schemas := map[uint64]bool{}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			var c corpusEntry
			if err := json.Unmarshal(readFile(t, filepath.Join(dir, "corpus.json")), &c); err != nil {
				t.Fatal(err)
			}
			schemas[c.Schema] = true
			r := corpusRig(t, dir)
			if got := schemaOf(t, r.path); got != c.Schema {
				t.Fatalf("the corpus file has schema %d; corpus.json says %d", got, c.Schema)
			}
			r.open(t)
			mustAllOK(t, r.store, len(c.Sessions))
			// Their derived records are rebuilt only when this build's
			// definitions differ from the ones their build wrote.
			want := 0
			if derivedWritten(c.Schema) != [4]int{project.IndexVersion, project.OverviewVersion, resume.RecordVersion, project.ProjectionVersion} {
				want = len(c.Sessions)
			}
			if n, err := r.store.RefreshDerived(context.Background()); err != nil || n != want {
				t.Fatalf("RefreshDerived rebuilt %d sessions, %v; want %d", n, err, want)
			}
			if w := walk(t, r.store, 0); len(w.ids) != len(c.Sessions) || len(w.errs) > 0 {
				t.Fatalf("the sessions list: %v, errors %v", w.ids, w.errs)
			}
			for _, s := range c.Sessions {
				continueCorpusSession(t, r, s.Advanced, s.Next)
				projectionIsTheFold(t, r.store, s.ID)
			}
			// The sessions are numbered in the write sequence, and the one
			// carried on last is first.
			ids, _ := recent(t, r.store, 0, 100)
			if len(ids) != len(c.Sessions) || ids[0] != c.Sessions[len(c.Sessions)-1].ID {
				t.Fatalf("the recent list after carrying on: %v", ids)
			}
			// resume_session offers them in the same order.
			var offered []engine.SessionID
			for _, m := range r.ranked(t, resume.Query{}) {
				offered = append(offered, m.Session)
			}
			if !slices.Equal(offered, ids) {
				t.Fatalf("resume offers %v; the recent list is %v", offered, ids)
			}
			mustAllOK(t, r.store, len(c.Sessions))
			to := newRig(t, nil)
			for _, s := range c.Sessions {
				b, err := r.x.Export(s.ID, bundle.ExportOptions{})
				if err != nil {
					t.Fatalf("export %s: %v", s.ID, err)
				}
				if _, err := to.x.Import(b, false); err != nil {
					t.Fatalf("import the export of %s: %v", s.ID, err)
				}
			}
			if c.Bundle != 0 {
				if _, err := to.x.Import(gunzip(t, filepath.Join(dir, "bundle.json.gz")), false); err != nil {
					t.Fatalf("import the bundle schema %d exported: %v", c.Schema, err)
				}
			}
			mustAllOK(t, to.store, len(c.Sessions)+map[bool]int{true: 1}[c.Bundle != 0])
			// A session of the old file is replaced, as a scrub replaces
			// one, and the freed pages overwritten.
			gone := c.Sessions[0].ID
			by, err := r.store.Replace(gone, func(_ execute.ReadTx, tx execute.Tx) error {
				_, err := tx.Append(0, 0, &event.SessionCreatedData{CreatedAt: "2026-01-01T00:00:00Z"})
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if w, err := r.store.Wipe(context.Background(), 5*time.Second); err != nil || w.Held {
				t.Fatalf("wipe: %+v, %v", w, err)
			}
			r.store.Close()
			if got := schemaOf(t, r.path); got != store.SchemaVersion {
				t.Fatalf("schema %d after the upgrade; want %d", got, store.SchemaVersion)
			}
			r.open(t)
			mustAllOK(t, r.store, len(c.Sessions))
			var re *execute.ReplacedError
			if _, err := r.store.Health(gone); !errors.As(err, &re) || re.By != by {
				t.Errorf("the replaced session's health after reopening: %v", err)
			}
		})
	}
	for v := uint64(1); v < store.SchemaVersion; v++ {
		if !schemas[v] {
			t.Errorf("the upgrade corpus has no database of schema %d: run store/testdata/upgrade/make.sh", v)
		}
	}
}

// corpusRig is a rig over a copy of dir's database, with the key ring
// its tokens were signed with.
func corpusRig(t *testing.T, dir string) *rig {
	t.Helper()
	tmp := t.TempDir()
	if err := os.WriteFile(filepath.Join(tmp, "keys.json"), readFile(t, filepath.Join(dir, "keys.json")), 0o600); err != nil {
		t.Fatal(err)
	}
	ring, err := home.LoadKeyRing(tmp)
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{path: filepath.Join(tmp, "workrail.db"), wf: executetest.Catalog(t, workflows.FS)}
	if err := os.WriteFile(r.path, gunzip(t, filepath.Join(dir, "workrail.db.gz")), 0o600); err != nil {
		t.Fatal(err)
	}
	r.ring = ring
	return r
}

// continueCorpusSession replays the recorded advance (a step, or a
// blocked attempt; twice: the same bytes), rehydrates the tip and
// advances it (to the next step or the workflow's end), answering for
// the user where the step needs them to.
func continueCorpusSession(t *testing.T, r *rig, advanced, next protocol.ContinueArgs) {
	t.Helper()
	first := r.call(t, r.x.Continue, advanced)
	if k := first.ResultKind(); k != protocol.KindStep && k != protocol.KindBlocked {
		t.Fatalf("replaying the recorded advance:\n%s", first.RenderedText())
	}
	if again := r.call(t, r.x.Continue, advanced); again.RenderedText() != first.RenderedText() {
		t.Fatalf("the replay differs:\n%s\n---\n%s", first.RenderedText(), again.RenderedText())
	}
	tip := r.step(t, r.x.Continue, map[string]any{"stateToken": next.StateToken})
	args := tip.NextCall.Arguments
	args.Output = &protocol.Output{NotesMarkdown: "Carried on after the upgrade."}
	if tip.Pending.UserDependency != nil {
		args.Output.Artifacts = []json.RawMessage{json.RawMessage(`{"kind":"wr.user_response","response":"The log is in /var/log/app.log."}`)}
	}
	switch went := r.call(t, r.x.Continue, args); went.ResultKind() {
	case protocol.KindStep, protocol.KindComplete:
		if again := r.call(t, r.x.Continue, args); again.RenderedText() != went.RenderedText() {
			t.Fatalf("the replay of the new advance differs:\n%s\n---\n%s", went.RenderedText(), again.RenderedText())
		}
	default:
		t.Fatalf("advancing the tip:\n%s", went.RenderedText())
	}
}

func mustAllOK(t *testing.T, s *store.Store, want int) {
	t.Helper()
	reports, err := s.Doctor()
	if err != nil || len(reports) != want {
		t.Fatalf("doctor: %d reports, %v; want %d", len(reports), err, want)
	}
	for _, rep := range reports {
		if !rep.OK() {
			t.Fatalf("doctor: %+v", rep)
		}
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A file a newer workrail wrote is refused, read-only too, with both
// schema versions and what to do, and left as it was.
func TestNewerFileIsRefused(t *testing.T) {
	store.UncheckedSessions(t, "it marks the file as a newer build's, which doctor refuses")
	path := filepath.Join(t.TempDir(), "w.db")
	s := mustOpen(t, path)
	seed(t, s, 2)
	s.Close()
	setSchema(t, path, store.SchemaVersion+1)
	before := readFile(t, path)
	for _, ro := range []bool{false, true} {
		_, err := store.Open(path, store.Options{ReadOnly: ro})
		if !errors.Is(err, store.ErrNewerSchema) {
			t.Fatalf("read-only %v: Open = %v; want ErrNewerSchema", ro, err)
		}
		for _, want := range []string{"schema 7", "schema 6 at most", "newer workrail", "copy made before the upgrade"} {
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("the refusal does not say %q: %v", want, err)
			}
		}
	}
	if !bytes.Equal(readFile(t, path), before) {
		t.Fatal("refusing the file changed it")
	}
}

// setSchema writes schema version v into the file's meta bucket.
func setSchema(t *testing.T, path string, v uint64) {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(tx *bbolt.Tx) error {
		return tx.Bucket([]byte("meta")).Put([]byte("schema"), binary.BigEndian.AppendUint64(nil, v))
	}); err != nil {
		t.Fatal(err)
	}
}

// projectionIsTheFold holds every run's stored projection of session id
// to a fold of its log in memory.
func projectionIsTheFold(t *testing.T, st *store.Store, id engine.SessionID) {
	t.Helper()
	evs, _, err := st.Events(id)
	if err != nil {
		t.Fatal(err)
	}
	snap := func(ref engine.SnapshotRef) (s run.Snapshot, err error) {
		err = st.View(id, func(tx execute.ReadTx) error { s, err = tx.Snapshot(ref); return err })
		return s, err
	}
	f, err := project.FoldAll(id, evs, snap)
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.Projections(id)
	if err != nil || len(got) != len(f.Lineage.Runs()) || len(got) == 0 {
		t.Fatalf("%s: %d projections, %v; the log has %d runs", id, len(got), err, len(f.Lineage.Runs()))
	}
	for _, p := range got {
		want, err := f.Projection(p.Run)
		if err != nil || !reflect.DeepEqual(p, want) {
			t.Fatalf("%s %s: the stored projection is not the fold of the log (%v)", id, p.Run, err)
		}
	}
}
