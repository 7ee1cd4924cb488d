package console_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/workflows"
)

// Sessions are listed the most recently written first. Refreshed in
// place, a page puts an older session written since on top (it is the
// most recently active) and counts new sessions in the pill, rows kept.
func TestSessionsInOrderOfRecentActivity(t *testing.T) {
	st := memstore.New()
	x := execute.New(st, executetest.Ring(t), executetest.Catalog(t, workflows.FS), workflow.Preferences{}, executetest.Clock, t.Logf)
	var first protocol.StepResult
	for i := range 3 {
		s, ok := x.Start(context.Background(), json.RawMessage(`{"workflowId":"wr.hello"}`)).(protocol.StepResult)
		if !ok {
			t.Fatal("start failed")
		}
		if i == 0 {
			first = s
		}
	}
	h := serve(t, st, executetest.Catalog(t, workflows.FS))
	_, page := getPath(t, h, "/")
	if ids, _, _ := listed(page); strings.Join(ids, " ") != "ses_3 ses_2 ses_1" {
		t.Fatalf("listed %v; want the latest written first", ids)
	}
	args := first.NextCall.Arguments
	args.Output = &protocol.Output{NotesMarkdown: "Greeted, later."}
	b, _ := json.Marshal(args)
	if _, ok := x.Continue(context.Background(), b).(protocol.StepResult); !ok {
		t.Fatal("continue failed")
	}
	if _, ok := x.Start(context.Background(), json.RawMessage(`{"workflowId":"wr.hello"}`)).(protocol.StepResult); !ok {
		t.Fatal("start failed")
	}
	_, page = getPath(t, h, "/?top=3&newest=ses_3") // the page as first read, refreshed
	ids, _, pill := listed(page)
	if strings.Join(ids, " ") != "ses_1 ses_3 ses_2" || pill != "1 new session — show" {
		t.Fatalf("refreshed: %v, pill %q; want ses_1 (written since) on top and ses_4 in the pill", ids, pill)
	}
	_, page = getPath(t, h, "/")
	if ids, _, _ := listed(page); strings.Join(ids, " ") != "ses_4 ses_1 ses_3 ses_2" {
		t.Fatalf("afresh: %v", ids)
	}
}
