package console_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
)

// A note an agent corrected (supersedesOutputId) is still shown whole,
// marked "replaced by" the correction, which is marked "replaces" it,
// each naming the other's node and linking the row whose step it is of:
// on the session page and in the panel of the row that recorded it.
func TestCorrectedNotesShowBothWays(t *testing.T) {
	st := memstore.New()
	wf := executetest.Long(t, 4)
	x := execute.New(st, executetest.Ring(t), wf, workflow.Preferences{}, executetest.Clock, t.Logf)
	ctx := context.Background()
	send := func(r protocol.Result, notes string, replaces engine.EventID) protocol.StepResult {
		t.Helper()
		args := r.(protocol.StepResult).NextCall.Arguments
		args.Output = &protocol.Output{NotesMarkdown: notes, SupersedesOutputID: replaces}
		b, _ := json.Marshal(args)
		s, ok := x.Continue(ctx, b).(protocol.StepResult)
		if !ok {
			t.Fatalf("%q was refused", notes)
		}
		return s
	}
	s2 := send(x.Start(ctx, []byte(`{"workflowId":"wr.long"}`)), "The cache holds **12** entries.", "")
	re, _ := json.Marshal(map[string]string{"stateToken": s2.StateToken})
	first := x.Continue(ctx, re).(protocol.StepResult).Recap.Entries[0].Output
	send(s2, "Counted again: the cache holds 21 entries.", first)
	h := serve(t, st, wf)

	code, page := getPath(t, h, "/sessions/ses_1")
	if code != http.StatusOK {
		t.Fatalf("GET /sessions/ses_1 = %d", code)
	}
	for _, want := range []string{
		`<li data-node="node_2" class="replaced">`,
		`<p class="correction" data-testid="replaced-by">Replaced by the output recorded at <a href="/sessions/ses_1/runs/run_1?node=node_2">node_3</a> <small class="code-note"><code>evt_1_12</code></small></p>`,
		`<strong>12</strong> entries.`, // the replaced note, still whole
		`<p class="correction" data-testid="replaces">Replaces the output recorded at <a href="/sessions/ses_1/runs/run_1?node=node_1">node_2</a> <small class="code-note"><code>` + string(first) + `</code></small></p>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the session page lacks %s", want)
		}
	}
	for node, want := range map[string]string{
		"node_1": `data-testid="replaced-by">Replaced by the output recorded at <a href="/sessions/ses_1/runs/run_1?node=node_2">node_3</a>`,
		"node_2": `data-testid="replaces">Replaces the output recorded at <a href="/sessions/ses_1/runs/run_1?node=node_1">node_2</a>`,
	} {
		code, panel := getPath(t, h, "/sessions/ses_1/runs/run_1?node="+node)
		if code != http.StatusOK || !strings.Contains(panel, want) {
			t.Errorf("the panel of %s (%d) lacks %s", node, code, want)
		}
	}
	if _, panel := getPath(t, h, "/sessions/ses_1/runs/run_1?node=node_1"); !strings.Contains(panel, `<div class="output replaced">`) ||
		!strings.Contains(panel, `<strong>12</strong> entries.`) {
		t.Error("the panel of node_1 does not show the replaced note whole, marked")
	}
}
