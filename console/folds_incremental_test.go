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

// TestRunPageReadsNoLog: the run page reads the run's projection, which
// the store keeps with every append: no view reads the log, the first nor
// one after a step, and each shows what the log holds.
func TestRunPageReadsNoLog(t *testing.T) {
	st := &counting{Store: openStore(t, filepath.Join(t.TempDir(), "w.db"))}
	x := execute.New(st, executetest.Ring(t), executetest.Catalog(t, workflows.FS), workflow.Preferences{}, executetest.Clock, t.Logf)
	s := x.Start(context.Background(), json.RawMessage(`{"workflowId":"wr.hello"}`)).(protocol.StepResult)
	h := serve(t, st, executetest.Catalog(t, workflows.FS))
	const page = "/sessions/ses_1/runs/run_1"
	if _, body := getPath(t, h, page); !strings.Contains(body, `next: <span data-testid="next-title">Greet the user</span>`) {
		t.Fatalf("the first view does not show the pending step:\n%s", body)
	}
	args := s.NextCall.Arguments
	args.Output = &protocol.Output{NotesMarkdown: "Said hello."}
	raw, _ := json.Marshal(args)
	if _, ok := x.Continue(context.Background(), raw).(protocol.StepResult); !ok {
		t.Fatal("continue failed")
	}
	_, body := getPath(t, h, page)
	if !strings.Contains(body, `title="Greet the user">Greet the user</a>`) || !strings.Contains(body, `next: <span data-testid="next-title">Look around the workspace</span>`) {
		t.Errorf("the second view does not show the step done:\n%s", body)
	}
	if st.whole.Load() != 0 || st.after.Load() != 0 {
		t.Errorf("the views read the whole log %d times and its tail %d times; want neither", st.whole.Load(), st.after.Load())
	}
}
