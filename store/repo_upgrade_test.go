package store_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/bundle"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/workflows"
)

// repoCatalog is the bundled workflows and one a repository defines.
type repoCatalog struct{ cat *catalog.Catalog }

func (c repoCatalog) Catalog(string) *catalog.Catalog { return c.cat }

// A session of a file the build before run_started's repo wrote takes a
// run of a repository's workflow: the new event sits in the old log, the
// file stays healthy across a reopen, its runs' records name the
// repository only for that run, and the session exports and imports.
func TestRepositoryRunInAnUpgradedFile(t *testing.T) {
	dir := filepath.Join("testdata", "upgrade", "schema-6")
	var c corpusEntry
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, "corpus.json")), &c); err != nil {
		t.Fatal(err)
	}
	entries, _ := catalog.LoadFS(workflows.FS, catalog.Source{Kind: catalog.Bundled})
	commit := strings.Repeat("c0ffee", 6) + "0123"
	src := catalog.Source{Kind: catalog.Repo, Path: "/cache/flows/" + commit, Repo: catalog.RepoRef{URL: "https://example.com/flows.git", Commit: commit}}
	e, p := catalog.Load([]byte(`{"id":"team.note","name":"Note","description":"d","version":"1","steps":[{"id":"a","title":"A","prompt":"do a"}]}`), src, "note.json")
	if p != nil {
		t.Fatal(p)
	}
	r := corpusRig(t, dir)
	r.wf = repoCatalog{catalog.New(append(entries, e), nil)}
	r.open(t)
	old := c.Sessions[0]
	res := r.step(t, r.x.Start, map[string]any{"workflowId": "team.note", "stateToken": old.Next.StateToken})
	if res.Session.SessionID != old.ID {
		t.Fatalf("started in %s, not %s", res.Session.SessionID, old.ID)
	}
	mustAllOK(t, r.store, len(c.Sessions))
	r.store.Close()
	r.open(t)
	mustAllOK(t, r.store, len(c.Sessions))
	b, err := r.x.Export(old.ID, bundle.ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got bundle.Bundle
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for _, run := range got.Runs {
		want := event.RepoPin{}
		if run.ID == res.Session.RunID {
			want = event.RepoPin{URL: "https://example.com/flows.git", Commit: commit}
		}
		if run.Repo != want {
			t.Errorf("%s reads from %+v, want %+v", run.ID, run.Repo, want)
		}
	}
	to := newRig(t, nil)
	if _, err := to.x.Import(b, false); err != nil {
		t.Fatalf("import: %v", err)
	}
}
