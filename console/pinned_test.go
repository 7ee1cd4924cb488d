package console_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
)

// A run page links the snapshot its run is pinned to; the snapshot is
// read from the store, so it still opens, titled with the pinned
// version, after the file is edited and then removed.
func TestPinnedSnapshot(t *testing.T) {
	disk := &folders{user: fstest.MapFS{"greet.json": greet("1", "Say hi.")}}
	st := memstore.New()
	h := serve(t, st, disk)
	x := execute.New(st, executetest.Ring(t), disk, workflow.Preferences{}, executetest.Clock, t.Logf)
	if _, ok := x.Start(context.Background(), []byte(`{"workflowId":"user.greet"}`)).(protocol.StepResult); !ok {
		t.Fatal("start failed")
	}
	_, run := getPath(t, h, "/sessions/ses_1/runs/run_1")
	link := between(run, `· pinned to <a href="`, `"`)
	if !strings.HasPrefix(link, "/workflows/user.greet?view=pinned&amp;hash=sha256:") {
		t.Fatalf("the run page links its pin as %q", link)
	}
	link = strings.ReplaceAll(link, "&amp;", "&")

	for _, tc := range []struct {
		name string
		user fstest.MapFS
		want []string
		not  []string
	}{
		{"edited", fstest.MapFS{"greet.json": greet("2", "Say hello.")},
			[]string{"pinned version 1 ·", "the current definition is version 2", "Say hi.", "pinned → current"}, []string{"Say hello."}},
		{"removed", fstest.MapFS{},
			[]string{"pinned version 1 ·", "no workflow source defines <code>user.greet</code> any more", "Say hi.", "△ removed"},
			[]string{"pinned → current", `data-testid="edit"`, ">source</a>"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			disk.user = tc.user
			code, page := getPath(t, h, link)
			if code != http.StatusOK {
				t.Fatalf("GET %s = %d", link, code)
			}
			for _, want := range tc.want {
				if !strings.Contains(page, want) {
					t.Errorf("the pinned view lacks %q", want)
				}
			}
			for _, not := range tc.not {
				if strings.Contains(page, not) {
					t.Errorf("the pinned view shows %q", not)
				}
			}
		})
	}
	// Once removed, only the pinned view of a pinned hash exists.
	for _, path := range []string{"/workflows/user.greet", "/workflows/user.greet?view=compiled",
		strings.Replace(link, "view=pinned", "view=diff", 1),
		"/workflows/user.greet?view=pinned&hash=sha256:" + strings.Repeat("0", 64)} {
		if code, _ := getPath(t, h, path); code != http.StatusNotFound {
			t.Errorf("GET %s = %d; want 404", path, code)
		}
	}
}
