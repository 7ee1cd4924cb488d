package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/store"
)

// BenchmarkRunPageOutcomes measures the run page of a 1,000-node run
// with an outcome on every row: each step reports a gap (every tenth
// critical), every 50th a chat rewound by one step forks a branch. The
// page shows the first rows' outcomes and the header sums them all; the
// gaps filter opens every fold holding one.
func BenchmarkRunPageOutcomes(b *testing.B) {
	st, err := store.Open(filepath.Join(b.TempDir(), "w.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	x := execute.New(st, executetest.Ring(b), executetest.Long(b, 1000), workflow.Preferences{}, executetest.Clock, b.Logf)
	executetest.RewoundRun(b, x, 1000, func(s protocol.StepResult, i int) []byte { return withGap(b, s, i) })
	h := serveBench(b, st)
	// What is measured is a page that sums every gap and opens their folds.
	for path, want := range map[string]string{
		"/sessions/ses_1/runs/run_1":             "999 open gaps (99 critical)",
		"/sessions/ses_1/runs/run_1?filter=gaps": `data-kind="node" data-step=`,
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if !strings.Contains(rec.Body.String(), want) {
			b.Fatalf("GET %s lacks %q", path, want)
		}
	}
	b.Run("folded", func(b *testing.B) { benchGet(b, h, "/sessions/ses_1/runs/run_1", false) })
	b.Run("gaps-filter", func(b *testing.B) { benchGet(b, h, "/sessions/ses_1/runs/run_1?filter=gaps", false) })
	b.Run("with-panel", func(b *testing.B) { benchGet(b, h, "/sessions/ses_1/runs/run_1?node=node_500", false) })
}

// withGap is the next call of s with a gap reported in its output.
func withGap(b *testing.B, s protocol.StepResult, i int) []byte {
	severity := "warning"
	if i%10 == 0 {
		severity = "critical"
	}
	gaps := fmt.Sprintf(`{"kind":"wr.contracts.gaps","gaps":[{"summary":"Step %d assumed the input was sorted.","severity":%q}]}`, i, severity)
	a := s.NextCall.Arguments
	a.Output = &protocol.Output{NotesMarkdown: fmt.Sprintf("Did step %d.", i), Artifacts: []json.RawMessage{json.RawMessage(gaps)}}
	raw, err := json.Marshal(a)
	if err != nil {
		b.Fatal(err)
	}
	return raw
}

// BenchmarkRunPageAfterAStep measures the run page of a 1,000-node run
// viewed again after each step an agent takes: the page folds the few
// events the step added, not the whole log (the step itself is not
// timed).
func BenchmarkRunPageAfterAStep(b *testing.B) {
	st, err := store.Open(filepath.Join(b.TempDir(), "w.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	const steps = 1000
	x := execute.New(st, executetest.Ring(b), executetest.Long(b, 4*steps), workflow.Preferences{}, executetest.Clock, b.Logf)
	s := x.Start(context.Background(), []byte(`{"workflowId":"wr.long"}`)).(protocol.StepResult)
	for i := 1; i < steps; i++ {
		s = x.Continue(context.Background(), withGap(b, s, i)).(protocol.StepResult)
	}
	h := serveBench(b, st)
	const page = "/sessions/ses_1/runs/run_1"
	get := func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, page, nil))
		if rec.Code != http.StatusOK {
			b.Fatalf("GET %s = %d", page, rec.Code)
		}
	}
	get() // folded once, as a reader's first view does
	i := steps
	for b.Loop() {
		b.StopTimer()
		if i++; i >= 4*steps {
			b.Fatal("the workflow ran out of steps")
		}
		s = x.Continue(context.Background(), withGap(b, s, i)).(protocol.StepResult)
		b.StartTimer()
		get()
	}
}
