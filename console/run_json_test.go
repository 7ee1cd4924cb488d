package console_test

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/golden"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
)

// runs/{run}.json serves the run's projection with the field names the
// Console promises (verdict, openGaps, stepsDone, branches with letter,
// state, origin and nodes, rows with nodeId, stepId, title, branch,
// blockedAttempts, done, loop and outcomes), over a run with a blocked
// attempt, a loop, a rewound chat's fork and a Console fork; the whole
// document is pinned in testdata/run.json.
func TestRunJSON(t *testing.T) {
	st := memstore.New()
	wf := executetest.Catalog(t, fstest.MapFS{"wr.json.json": {Data: []byte(`{"id":"wr.json","name":"JSON","description":"d","version":"1",
		"context":[{"name":"topic","type":"string","description":"what to look at"}],
		"steps":[{"id":"ask","title":"Ask","prompt":"ask the user","userDependency":{"reason":"needs_user_approval","summary":"approve","requestedFromUser":"Approve?"}},
		{"id":"again","title":"Again","loop":{"kind":"for","count":2,"maxIterations":2},"body":[{"id":"work","title":"Work","prompt":"work"}]},
		{"id":"end","title":"End","prompt":"end"}]}`)}})
	h := serve(t, st, wf)
	x := execute.New(st, executetest.Ring(t), wf, workflow.Preferences{}, executetest.Clock, t.Logf)
	ctx := context.Background()
	call := func(v any) protocol.Result {
		t.Helper()
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return x.Continue(ctx, b)
	}
	first := x.Start(ctx, []byte(`{"workflowId":"wr.json","context":{"topic":"parser"}}`)).(protocol.StepResult)
	blocked := call(first.NextCall.Arguments).(protocol.BlockedResult)
	var s protocol.Result = call(executetest.NextArgs(t, blocked))
	for range 2 { // the loop's two iterations
		s = call(executetest.NextArgs(t, s))
	}
	if got := s.(protocol.StepResult).Pending.StepID; got != "end" {
		t.Fatalf("after the loop the run pends %s; want end", got)
	}
	re := call(map[string]string{"stateToken": first.StateToken}).(protocol.StepResult) // a rewound chat
	call(executetest.NextArgs(t, re))
	if r, _ := x.Fork(ctx, execute.Place{Session: 1, Run: 1, Node: 2}, []byte(`{"topic":"lexer"}`)); r.ResultKind() != protocol.KindStep {
		t.Fatalf("Console fork: %s", r.RenderedText())
	}

	code, body := getPath(t, h, "/sessions/ses_1/runs/run_1.json")
	if code != http.StatusOK {
		t.Fatalf("GET runs/run_1.json = %d", code)
	}
	golden.Check(t, filepath.Join("testdata", "run.json"), []byte(body))
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatal(err)
	}
	hasKeys(t, "the document", doc, "verdict", "openGaps", "stepsDone", "branches", "rows")
	var verdict string
	var branches, rows []map[string]json.RawMessage
	for k, v := range map[string]any{"verdict": &verdict, "branches": &branches, "rows": &rows} {
		if err := json.Unmarshal(doc[k], v); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
	}
	if verdict != "in_progress" {
		t.Errorf("verdict %q; want in_progress", verdict)
	}
	var origins []string
	for _, b := range branches {
		hasKeys(t, "a branch", b, "letter", "state", "origin", "nodes")
		var o string
		json.Unmarshal(b["origin"], &o)
		origins = append(origins, o)
	}
	if want := []string{"first", "rewound", "console_fork"}; !slices.Equal(origins, want) {
		t.Errorf("origins %v; want %v", origins, want)
	}
	var loops []string
	for _, r := range rows {
		hasKeys(t, "a row", r, "nodeId", "stepId", "title", "branch", "blockedAttempts", "done", "loop", "outcomes")
		loops = append(loops, string(r["loop"]))
	}
	if want := []string{"null", `{"loopId":"again","iteration":1}`, `{"loopId":"again","iteration":2}`}; len(loops) < 3 || !slices.Equal(loops[:3], want) {
		t.Errorf("the first rows' loops %v; want %v", loops, want)
	}
	var ask struct {
		BlockedAttempts int  `json:"blockedAttempts"`
		Done            bool `json:"done"`
	}
	json.Unmarshal(mustRaw(t, rows[0]), &ask)
	if ask.BlockedAttempts != 1 || !ask.Done {
		t.Errorf("the first row %+v; want its blocked attempt on it, done", ask)
	}
}

func hasKeys(t *testing.T, what string, m map[string]json.RawMessage, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Errorf("%s lacks %q: %v", what, k, slices.Sorted(maps.Keys(m)))
		}
	}
}

func mustRaw(t *testing.T, m map[string]json.RawMessage) []byte {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
