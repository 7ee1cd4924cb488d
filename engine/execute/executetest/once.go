package executetest

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
)

// startsOnceUnderARetryKey: a start whose answer was lost (its daemon went
// away after the commit) and that its shim sends again under the same
// retry key is answered with the run it made, byte for byte as a second
// answer of it, and makes nothing; a new session, a start_session and a
// run started in a session all alike. Without a key, with another key,
// or with other arguments, a start is a new run, as ever.
func startsOnceUnderARetryKey(t *testing.T, s Store) {
	x := execute.New(s, Ring(t), Catalog(t, fstest.MapFS{
		"wr.t.json": {Data: []byte(`{"id":"wr.t","name":"T","description":"d","version":"1","context":[{"name":"fast","type":"boolean","description":"skip the check"}],
			"steps":[{"id":"check","title":"Check","prompt":"check","runCondition":{"var":"fast","not_equals":true}},{"id":"do","title":"Do","prompt":"do"}]}`)},
		"wr.session.json": {Data: []byte(`{"id":"wr.session","name":"S","description":"d","version":"1","steps":[{"id":"work","title":"Work","prompt":"work"}]}`)},
	}), workflow.Preferences{}, Clock, t.Logf)
	keyed := func(k string) context.Context { return protocol.WithRetryKey(context.Background(), k) }
	count := func() int {
		ids, err := s.SessionIDs()
		must(t, err)
		return len(ids)
	}
	twice := func(name string, call func(context.Context, []byte) protocol.Result, ctx context.Context, args string) protocol.Result {
		t.Helper()
		before := count()
		first, again := call(ctx, []byte(args)), call(ctx, []byte(args))
		b1, b2 := mustJSON(t, first), mustJSON(t, again)
		if first.ResultKind() != protocol.KindStep || string(b1) != string(b2) {
			t.Fatalf("%s sent again under its key:\n%s\n%s\nwant the first answer again", name, b1, b2)
		}
		if n := count(); n != before+1 && name != "a run in a session" {
			t.Fatalf("%s sent again under its key made %d sessions; want 1", name, n-before)
		}
		return first
	}
	// The condition skips the first step: the answer again says so.
	first := twice("start_workflow", x.Start, keyed("aaaaaaaaaaaaaaaa-1"), `{"workflowId":"wr.t","context":{"fast":true}}`)
	if len(first.(protocol.StepResult).Skipped) != 1 {
		t.Fatalf("the start skipped %+v; want the check", first.(protocol.StepResult).Skipped)
	}
	twice("start_session", x.StartSession, keyed("aaaaaaaaaaaaaaaa-2"), `{}`)
	st := first.(protocol.StepResult).StateToken
	sid := first.(protocol.StepResult).Session.SessionID
	beside := twice("a run in a session", x.Start, keyed("aaaaaaaaaaaaaaaa-3"), `{"workflowId":"wr.t","stateToken":"`+st+`"}`)
	evs, _, err := s.Events(sid)
	must(t, err)
	runs := 0
	for _, e := range evs {
		if e.Kind == "run_started" {
			runs++
		}
	}
	if runs != 2 || beside.(protocol.StepResult).Session.SessionID != sid {
		t.Fatalf("a run started in %s, sent again under its key, made %d runs there; want 2 in all", sid, runs)
	}

	// Anything else is a start of its own.
	before := count()
	for _, c := range []struct {
		ctx  context.Context
		args string
	}{
		{context.Background(), `{"workflowId":"wr.t"}`},
		{context.Background(), `{"workflowId":"wr.t"}`},
		{keyed("aaaaaaaaaaaaaaaa-1"), `{"workflowId":"wr.t","context":{"fast":false}}`},
		{keyed("aaaaaaaaaaaaaaaa-4"), `{"workflowId":"wr.t","context":{"fast":true}}`},
		{keyed("not a key"), `{"workflowId":"wr.t"}`},
		{keyed("not a key"), `{"workflowId":"wr.t"}`},
	} {
		if r := x.Start(c.ctx, []byte(c.args)); r.ResultKind() != protocol.KindStep {
			t.Fatalf("start %s: %s", c.args, mustJSON(t, r))
		}
	}
	if n := count(); n != before+6 {
		t.Fatalf("6 starts without a key, under a new key or with other arguments made %d sessions; want 6", n-before)
	}
}

// latestStartsKept: past execute.StartsKept later starts, a start's
// record may be gone; the latest are always found.
func latestStartsKept(t *testing.T, s Store) {
	id := seed(t, s)
	keyOf := func(i int) execute.StartKey { return execute.StartKey(engine.Sum([]byte{byte(i), byte(i >> 8)})) }
	err := s.Update(id, func(tx execute.Tx) error {
		for i := range execute.StartsKept + 10 {
			if err := tx.RecordStart(keyOf(i), execute.Started{Session: id, Run: engine.RunID(i + 1)}); err != nil {
				return err
			}
		}
		return nil
	})
	must(t, err)
	must(t, s.Update(id, func(tx execute.Tx) error {
		for _, i := range []int{10, execute.StartsKept + 9} {
			r, ok, err := tx.StartedBy(keyOf(i))
			if err != nil || !ok || r != (execute.Started{Session: id, Run: engine.RunID(i + 1)}) {
				t.Errorf("start %d of the latest %d: %+v, %v, %v; want it found", i, execute.StartsKept, r, ok, err)
			}
		}
		if _, ok, _ := tx.StartedBy(execute.StartKey{}); ok {
			t.Error("a key never recorded was found")
		}
		return nil
	}))
}
