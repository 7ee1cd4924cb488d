package console_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/store"
	"github.com/workrail/workrail/workflows"
)

// counting is a real store that counts whole-log reads and the events
// read after an index.
type counting struct {
	*store.Store
	whole, after, tail atomic.Int64
}

func (c *counting) Events(id engine.SessionID) ([]event.Event, execute.Health, error) {
	c.whole.Add(1)
	return c.Store.Events(id)
}

func (c *counting) EventsAfter(id engine.SessionID, from engine.EventIndex) ([]event.Event, execute.Health, error) {
	evs, h, err := c.Store.EventsAfter(id, from)
	c.after.Add(1)
	c.tail.Add(int64(len(evs)))
	return evs, h, err
}

// TestRunPageFoldsOnlyWhatWasAdded: once a run page was shown, a step
// more reads (and verifies) the events it added, not the whole log, and
// the page shows them.
func TestRunPageFoldsOnlyWhatWasAdded(t *testing.T) {
	st := &counting{Store: openStore(t, filepath.Join(t.TempDir(), "w.db"))}
	x := execute.New(st, executetest.Ring(t), executetest.Catalog(t, workflows.FS), workflow.Preferences{}, executetest.Clock, t.Logf)
	s := x.Start(context.Background(), json.RawMessage(`{"workflowId":"wr.hello"}`)).(protocol.StepResult)
	h := serve(t, st, executetest.Catalog(t, workflows.FS))
	const page = "/sessions/ses_1/runs/run_1"
	if _, body := getPath(t, h, page); !strings.Contains(body, "next: Greet the user") {
		t.Fatalf("the first view does not show the pending step:\n%s", body)
	}
	if st.whole.Load() != 1 {
		t.Fatalf("the first view read the whole log %d times; want 1", st.whole.Load())
	}
	args := s.NextCall.Arguments
	args.Output = &protocol.Output{NotesMarkdown: "Said hello."}
	raw, _ := json.Marshal(args)
	if _, ok := x.Continue(context.Background(), raw).(protocol.StepResult); !ok {
		t.Fatal("continue failed")
	}
	_, body := getPath(t, h, page)
	if !strings.Contains(body, `data-testid="row-step">Greet the user</a>`) || !strings.Contains(body, "next: Look around the workspace") {
		t.Errorf("the second view does not show the step done:\n%s", body)
	}
	if st.whole.Load() != 1 || st.after.Load() != 1 {
		t.Errorf("the second view read the whole log %d times and its tail %d times; want 1 and 1", st.whole.Load(), st.after.Load())
	}
	if n := st.tail.Load(); n == 0 || n > 10 {
		t.Errorf("the second view read %d events after the first; want the few one step added", n)
	}
}
