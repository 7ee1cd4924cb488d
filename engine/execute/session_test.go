package execute_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
)

// seeing is an Observer that sees the same facts in every workspace and
// remembers which it was asked about.
type seeing struct {
	mu    sync.Mutex
	asked []string
	facts []event.ObservationRecordedData
}

func (o *seeing) Observe(workspace string) []event.ObservationRecordedData {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.asked = append(o.asked, workspace)
	return o.facts
}

var repoFacts = []event.ObservationRecordedData{
	{Key: event.ObsGitBranch, Value: "feature/auth"},
	{Key: event.ObsGitHeadSHA, Value: "0123456789abcdef0123456789abcdef01234567"},
	{Key: event.ObsRepoRoot, Value: "/src/app"},
}

func observedRig(tb testing.TB, o execute.Observer) *rig {
	tb.Helper()
	s := memstore.New()
	return &rig{store: s, x: execute.New(s, executetest.Ring(tb), bundled(tb), workflow.Preferences{}, executetest.Clock, tb.Logf, execute.WithObserver(o))}
}

// observations are a session's observation events, with their scope.
func observations(evs []event.Event) (out []event.ObservationRecordedData, scoped bool) {
	for _, e := range evs {
		if d, ok := e.Data.(*event.ObservationRecordedData); ok {
			out = append(out, *d)
			scoped = scoped || e.Run != 0 || e.Node != 0
		}
	}
	return out, scoped
}

// A start with a workspacePath records what the observer sees there, on
// the session, right after session_created; without one the observer is
// not asked and nothing is recorded.
func TestStartRecordsObservations(t *testing.T) {
	tests := []struct {
		name string
		args map[string]any
		want []event.ObservationRecordedData
	}{
		{"workspace", map[string]any{"workflowId": "wr.hello", "workspacePath": "/src/app/pkg"}, repoFacts},
		{"no workspace", map[string]any{"workflowId": "wr.hello"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &seeing{facts: repoFacts}
			r := observedRig(t, o)
			s := r.step(t, "start", tt.args)
			evs := r.events(t, s.Session.SessionID)
			got, scoped := observations(evs)
			if !reflect.DeepEqual(got, tt.want) || scoped {
				t.Errorf("observations %+v (scoped to a run or node: %v); want %+v on the session", got, scoped, tt.want)
			}
			if tt.want != nil {
				if evs[0].Kind != event.SessionCreated || evs[1].Kind != event.ObservationRecorded {
					t.Errorf("first events %s, %s; want session_created, then the observations", evs[0].Kind, evs[1].Kind)
				}
				if !slices.Equal(o.asked, []string{"/src/app/pkg"}) {
					t.Errorf("asked about %v", o.asked)
				}
			} else if len(o.asked) > 0 {
				t.Errorf("asked about %v with no workspace", o.asked)
			}
		})
	}
}

// An observer that sees nothing (no git, an odd .git) changes nothing
// about the start.
func TestStartWithNothingObserved(t *testing.T) {
	plain := newRig(t, nil).step(t, "start", map[string]any{"workflowId": "wr.hello", "workspacePath": "/w"})
	blind := observedRig(t, &seeing{}).step(t, "start", map[string]any{"workflowId": "wr.hello", "workspacePath": "/w"})
	if plain.Text != blind.Text {
		t.Errorf("a start that observed nothing answered differently:\n%s\n%s", plain.Text, blind.Text)
	}
}

// start_session starts a session whose one run is the notes workflow,
// records the workspace's observations, and hands out tokens that
// checkpoint_workflow takes; the session's title comes from the first
// checkpoint's notes, and continue_workflow closes it.
func TestStartSessionThenCheckpoint(t *testing.T) {
	r := observedRig(t, &seeing{facts: repoFacts})
	s := r.step(t, "start_session", map[string]any{"workspacePath": "/src/app"})
	if s.Workflow.ID != execute.SessionWorkflow || s.Pending.StepID != "work" {
		t.Fatalf("start_session answered %s at %s", s.Workflow.ID, s.Pending.StepID)
	}
	cp := r.step(t, "checkpoint", checkpointArgs(s.StateToken, s.CheckpointToken, "Auth bug: token refresh races the logout.\nNext: a lock."))
	cp2 := r.step(t, "checkpoint", checkpointArgs(cp.StateToken, cp.CheckpointToken, "Added the lock."))
	if cp2.Pending.StepID != "work" {
		t.Fatalf("the session's step moved to %s", cp2.Pending.StepID)
	}
	evs := r.events(t, s.Session.SessionID)
	if got, _ := observations(evs); !reflect.DeepEqual(got, repoFacts) {
		t.Errorf("observations %+v", got)
	}
	o, err := r.store.Overview(s.Session.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if o.Title != "Auth bug: token refresh races the logout." || o.GitBranch != "feature/auth" {
		t.Errorf("overview title %q, branch %q", o.Title, o.GitBranch)
	}
	res, b := r.call(t, "continue", cp2.NextCall.Arguments)
	if res.ResultKind() != protocol.KindComplete {
		t.Fatalf("closing the session: %s", b)
	}
}

func TestStartSessionErrors(t *testing.T) {
	tests := []struct {
		name string
		wf   execute.Workflows
		args string
		code engine.Code
	}{
		{"relative workspace", nil, `{"workspacePath":"src"}`, engine.CodeInvalidInput},
		{"unknown key", nil, `{"workflowId":"wr.hello"}`, engine.CodeUnknownKey},
		{"no notes workflow", catalogOf(t, map[string]string{}), `{}`, engine.CodeWorkflowNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, tt.wf)
			if got := errCode(t, r.x.StartSession(context.Background(), json.RawMessage(tt.args))); got != tt.code {
				t.Errorf("code %s; want %s", got, tt.code)
			}
		})
	}
}
