package executetest

import (
	"context"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
)

// cancelledWritesLeaveNothing: a request whose context ends while its
// write runs, before that write appends anything or after it appended
// part of what it would, is answered CANCELLED (not an internal error: nothing failed) and leaves the store
// as it was; the same call sent again then runs as if the first had
// never been made.
func cancelledWritesLeaveNothing(t *testing.T, s Store) {
	wf := Long(t, 5)
	live := execute.New(s, Ring(t), wf, workflow.Preferences{}, Clock, t.Logf)
	first, ok := live.Start(t.Context(), []byte(`{"workflowId":"wr.long"}`)).(protocol.StepResult)
	if !ok {
		t.Fatal("start failed")
	}
	id := first.Session.SessionID
	advance := mustJSON(t, NextArgs(t, first))
	for _, midway := range []bool{false, true} {
		ctx, cancel := context.WithCancel(t.Context())
		x := execute.New(cancelling{Store: s, cancel: cancel, midway: midway}, Ring(t), wf, workflow.Preferences{}, Clock, t.Logf)
		before, _ := s.Digest(id)
		sessions, _ := s.SessionIDs()
		for name, res := range map[string]protocol.Result{
			"advance": x.Continue(ctx, advance),
			"start":   x.Start(ctx, []byte(`{"workflowId":"wr.long"}`)),
		} {
			e, ok := res.(protocol.ErrorResult)
			if !ok || e.Error.Code != engine.CodeCancelled || e.Error.Retry.Kind != engine.RetryableImmediately || !strings.Contains(e.Error.Message, "cancelled") {
				t.Errorf("cancelled %s (midway %v) answered:\n%s", name, midway, res.RenderedText())
			}
		}
		if after, _ := s.Digest(id); after != before {
			t.Errorf("a cancelled advance (midway %v) changed the log", midway)
		}
		if again, _ := s.SessionIDs(); len(again) != len(sessions) {
			t.Errorf("a cancelled start (midway %v) left a session: %v", midway, again)
		}
	}
	if res, ok := live.Continue(t.Context(), advance).(protocol.StepResult); !ok || res.Pending.StepID == first.Pending.StepID {
		t.Fatalf("the advance sent again after its cancellations did not advance:\n%s", res.RenderedText())
	}
}

// cancelling is a store whose write transactions end the request's
// context: as they begin, or (midway) once the first event is appended.
type cancelling struct {
	Store
	cancel context.CancelFunc
	midway bool
}

func (c cancelling) Update(id engine.SessionID, fn func(execute.Tx) error) error {
	return c.Store.Update(id, func(tx execute.Tx) error { return fn(c.wrap(tx)) })
}

func (c cancelling) Create(fn func(execute.Tx) error) (engine.SessionID, error) {
	return c.Store.Create(func(tx execute.Tx) error { return fn(c.wrap(tx)) })
}

func (c cancelling) wrap(tx execute.Tx) execute.Tx {
	if !c.midway {
		c.cancel()
		return tx
	}
	return cancelOnAppend{Tx: tx, cancel: c.cancel}
}

// cancelOnAppend ends the context as soon as an event is appended.
type cancelOnAppend struct {
	execute.Tx
	cancel context.CancelFunc
}

func (a cancelOnAppend) Append(r engine.RunID, n engine.NodeID, p event.Payload) (event.Event, error) {
	ev, err := a.Tx.Append(r, n, p)
	a.cancel()
	return ev, err
}
