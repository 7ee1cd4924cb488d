package console_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/store"
)

// BenchmarkEventsPage measures the event history of a session of 5,000
// events in a bbolt file: its first and a middle page (the Console's
// fold cached, as for every page after the first view), and the whole
// log as events.json.
func BenchmarkEventsPage(b *testing.B) {
	st, err := store.Open(filepath.Join(b.TempDir(), "w.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	x := execute.New(st, executetest.Ring(b), executetest.Long(b, 2000), workflow.Preferences{}, executetest.Clock, b.Logf)
	s := x.Start(context.Background(), []byte(`{"workflowId":"wr.long"}`)).(protocol.StepResult)
	for {
		var head int
		st.View(s.Session.SessionID, func(tx execute.ReadTx) error { head = int(tx.Head()); return nil })
		if head >= 5000 {
			break
		}
		s = x.Continue(context.Background(), executetest.BareArgs(b, s)).(protocol.StepResult)
	}
	h := serveBench(b, st)
	b.Run("first-page", func(b *testing.B) { benchGet(b, h, "/sessions/ses_1/events", false) })
	b.Run("middle-page", func(b *testing.B) { benchGet(b, h, "/sessions/ses_1/events?from=2500", false) })
	b.Run("json", func(b *testing.B) { benchGet(b, h, "/sessions/ses_1/events.json", false) })
}
