package sources_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/server/sources"
)

// rewrite writes body to dir/name and gives the file modification time
// at (its stamp changes even when the body keeps the size, whatever the
// filesystem's clock granularity).
func rewrite(t *testing.T, dir, name, body string, at time.Time) {
	t.Helper()
	writeFile(t, dir, name, body)
	if err := os.Chtimes(filepath.Join(dir, name), at, at); err != nil {
		t.Fatal(err)
	}
}

// While no file changes, a workspace's catalog is assembled once and
// answered again; each change a user can make is seen by the very next
// call.
func TestCatalogIsKeptUntilAFileChanges(t *testing.T) {
	root := t.TempDir()
	user, ws := filepath.Join(root, "user"), filepath.Join(root, "ws")
	project := filepath.Join(ws, ".workrail", "workflows")
	writeFile(t, user, "a.json", wfJSON("user.a", "Alpha", ""))
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	reg, err := sources.New(fstest.MapFS{}, []catalog.Source{{Kind: catalog.User, Path: user}})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		change func()
		want   string // the ids and names the catalog holds after the change, in its order
	}{
		{"first call", func() {}, "user.a=Alpha"},
		{"same size, new time", func() { rewrite(t, user, "a.json", wfJSON("user.a", "Alpha", ""), at) }, "user.a=Alpha"},
		{"edit keeping the size", func() { rewrite(t, user, "a.json", wfJSON("user.a", "Omega", ""), at.Add(time.Second)) }, "user.a=Omega"},
		{"new file", func() { writeFile(t, user, "b.json", wfJSON("user.b", "Beta", "")) }, "user.b=Beta user.a=Omega"},
		{"project folder created", func() { writeFile(t, project, "p.json", wfJSON("project.p", "Pi", "")) }, "project.p=Pi user.b=Beta user.a=Omega"},
		{"file removed", func() { os.Remove(filepath.Join(user, "b.json")) }, "project.p=Pi user.a=Omega"},
		{"file broken", func() { writeFile(t, user, "a.json", `{"id":"user.a"`) }, "project.p=Pi"},
		{"workspace removed", func() { os.RemoveAll(ws) }, ""},
	} {
		tc.change()
		cat := reg.Catalog(ws)
		var got []string
		for _, e := range cat.All() {
			got = append(got, string(e.Compiled.ID)+"="+e.Compiled.Name)
		}
		if strings.Join(got, " ") != tc.want {
			t.Fatalf("%s: catalog holds %q; want %q", tc.name, strings.Join(got, " "), tc.want)
		}
		if again := reg.Catalog(ws); again != cat {
			t.Errorf("%s: a call with no file changed assembled the catalog again", tc.name)
		}
	}
	if cat := reg.Catalog(ws); len(cat.Problems) != 2 {
		t.Errorf("problems %+v; want the broken file and the missing workspace", cat.Problems)
	}
}

// A run started from a file on disk, rehydrated until its catalog is
// kept, then the file edited in place to the same size: the very next
// rehydrate warns of the drift.
func TestDriftSeenOnTheRehydrateAfterAnEdit(t *testing.T) {
	root := t.TempDir()
	user, ws := filepath.Join(root, "user"), filepath.Join(root, "ws")
	writeFile(t, user, "greet.json", wfJSON("user.greet", "Greet", ""))
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	reg, err := sources.New(fstest.MapFS{}, []catalog.Source{{Kind: catalog.User, Path: user}})
	if err != nil {
		t.Fatal(err)
	}
	x := execute.New(memstore.New(), executetest.Ring(t), reg, workflow.Preferences{}, executetest.Clock, t.Logf)
	start, _ := json.Marshal(map[string]any{"workflowId": "user.greet", "workspacePath": ws})
	s, ok := x.Start(context.Background(), start).(protocol.StepResult)
	if !ok {
		t.Fatal("start failed")
	}
	rehydrate, _ := json.Marshal(map[string]any{"stateToken": s.StateToken})
	drift := func() []protocol.Warning {
		t.Helper()
		re, ok := x.Continue(context.Background(), rehydrate).(protocol.StepResult)
		if !ok {
			t.Fatal("rehydrate failed")
		}
		return re.Warnings
	}
	for range 3 {
		if w := drift(); len(w) != 0 {
			t.Fatalf("unchanged file: warnings %+v", w)
		}
	}
	rewrite(t, user, "greet.json", wfJSON("user.greet", "Hello", ""), time.Now().Add(time.Minute))
	if w := drift(); len(w) != 1 || w[0].Code != event.NoticePinnedWorkflowDrifted || !strings.Contains(w[0].Message, "(edited)") {
		t.Fatalf("after the edit: warnings %+v; want the drift", w)
	}
}
