package execute_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
)

// Every event a use case appends records the clock's time and who wrote
// it: the agent's calls none, a Console fork or restart "console".
func TestEventsAreStampedWithTheClockAndOrigin(t *testing.T) {
	f := newForkRig(t)
	agentWrote := f.events(t, f.session())
	if _, at := f.x.Fork(context.Background(), f.at(3), []byte(`{"topic": "y", "depth": "quick"}`)); at != f.at(4) {
		t.Fatalf("fork left the run at %+v", at)
	}
	forked := f.events(t, f.session())
	if _, at := f.x.Restart(context.Background(), f.at(1), []byte(`{"topic": "z"}`)); at.Run == f.at(1).Run {
		t.Fatalf("restart left the run at %+v", at)
	}
	all := f.events(t, f.session())
	want := event.MillisOf(executetest.Clock())
	for i, e := range all {
		origin := event.OriginAgent
		if i >= len(agentWrote) {
			origin = event.OriginConsole
		}
		if e.Stamp() != (event.Stamp{At: want, Origin: origin}) {
			t.Errorf("event %d (%s) stamped %+v; want %v by %q", e.Index, e.Kind, e.Stamp(), want, origin)
		}
	}
	if len(forked) == len(agentWrote) || len(all) == len(forked) {
		t.Fatalf("the fork wrote %d events and the restart %d", len(forked)-len(agentWrote), len(all)-len(forked))
	}
}

// Times are informational: whatever the clock says, in any order, every
// answer (preferred tips, replays, resume ranking) and every derived
// record is the same, and the logs differ only by their times.
func TestTimesNeverChangeTipsOrRanking(t *testing.T) {
	base, baseLogs := clockScenario(t, executetest.Clock)
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		clock := func() time.Time { // any time, earlier or later than the last
			return time.UnixMilli(1_600_000_000_000 + rng.Int64N(400_000_000_000)).UTC()
		}
		got, logs := clockScenario(t, clock)
		if !reflect.DeepEqual(got, base) {
			for i := range got {
				if got[i] != base[i] {
					t.Fatalf("seed %d: answer %d differs with shuffled clocks:\n%s\nnot\n%s", seed, i, got[i], base[i])
				}
			}
			t.Fatalf("seed %d: %d answers, not %d", seed, len(got), len(base))
		}
		if !reflect.DeepEqual(logs, baseLogs) {
			t.Fatalf("seed %d: the logs differ beyond their times", seed)
		}
	}
}

// clockScenario drives three sessions under clock, rewinds and forks one
// from a chat and one from the Console, and returns every answer and
// overview as JSON, and the logs with their times left out.
func clockScenario(t *testing.T, clock func() time.Time) (answers []string, logs [][]event.Event) {
	t.Helper()
	s := memstore.New()
	r := &rig{store: s, x: execute.New(s, executetest.Ring(t), bundled(t), workflow.Preferences{}, clock, t.Logf)}
	keep := func(res protocol.Result) {
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		answers = append(answers, string(b))
	}
	var sessions []engine.SessionID
	for i := range 3 {
		s1 := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
		sessions = append(sessions, s1.Session.SessionID)
		s2 := r.step(t, "continue", s1.NextCall.Arguments)
		keep(s1)
		keep(s2)
		if i == 1 { // a rewound chat forks a branch that goes further
			re := r.step(t, "continue", map[string]any{"stateToken": s1.StateToken})
			b2 := r.step(t, "continue", re.NextCall.Arguments)
			keep(r.step(t, "continue", b2.NextCall.Arguments))
			keep(r.x.Continue(context.Background(), mustMarshal(t, s1.NextCall.Arguments))) // a replay
		}
		if i == 2 {
			res, _ := r.x.Fork(context.Background(), execute.Place{Session: s1.Session.SessionID, Run: s1.Session.RunID, Node: 2}, []byte(`{}`))
			keep(res)
		}
	}
	for _, q := range []string{`{}`, `{"query":"hello"}`} {
		keep(r.x.ResumeSession(context.Background(), []byte(q)))
	}
	for _, id := range sessions {
		ov, err := s.Overview(id)
		if err != nil {
			t.Fatal(err)
		}
		ov = withoutTimes(ov)
		b, _ := json.Marshal(ov)
		answers = append(answers, string(b))
		var log []event.Event
		for _, e := range r.events(t, id) {
			if d, ok := e.Data.(*event.SessionCreatedData); ok {
				c := *d
				c.CreatedAt = "" // the one time an earlier build recorded, in its payload
				e.Data = &c
			}
			log = append(log, e.Stamped(event.Stamp{Origin: e.Origin}))
		}
		logs = append(logs, log)
	}
	return answers, logs
}

// withoutTimes is ov with the times it shows left out.
func withoutTimes(ov project.Overview) project.Overview {
	ov.CreatedAt, ov.LastTime = "", 0
	for i := range ov.Runs {
		ov.Runs[i].StartedTime, ov.Runs[i].LastTime = 0, 0
	}
	return ov
}
