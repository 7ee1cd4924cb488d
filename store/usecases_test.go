package store_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/token"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/store"
	"github.com/workrail/workrail/store/storetest"
	"github.com/workrail/workrail/workflows"
)

// rig is the use cases over a real bbolt file, as the daemon runs them.
type rig struct {
	path  string
	store *store.Store
	x     *execute.Service
	wf    execute.Workflows
	// ring signs and checks tokens: executetest.Ring when nil.
	ring *token.Ring
}

func newRig(tb testing.TB, wf execute.Workflows) *rig {
	tb.Helper()
	if wf == nil {
		wf = executetest.Catalog(tb, workflows.FS)
	}
	r := &rig{path: filepath.Join(tb.TempDir(), "workrail.db"), wf: wf}
	r.open(tb)
	return r
}

// open (re)opens the file, as a restarted daemon does.
func (r *rig) open(tb testing.TB) {
	tb.Helper()
	r.store = mustOpen(tb, r.path)
	r.x = newService(tb, r)
}

// newService is the use cases over r's store.
func newService(tb testing.TB, r *rig) *execute.Service {
	ring := r.ring
	if ring == nil {
		ring = executetest.Ring(tb)
	}
	return execute.New(r.store, ring, r.wf, workflow.Preferences{}, executetest.Clock, tb.Logf)
}

func (r *rig) call(tb testing.TB, fn func(context.Context, []byte) protocol.Result, args any) protocol.Result {
	tb.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		tb.Fatal(err)
	}
	return fn(context.Background(), raw)
}

func (r *rig) step(tb testing.TB, fn func(context.Context, []byte) protocol.Result, args any) protocol.StepResult {
	tb.Helper()
	res := r.call(tb, fn, args)
	s, ok := res.(protocol.StepResult)
	if !ok {
		tb.Fatalf("want a step, got:\n%s", res.RenderedText())
	}
	return s
}

func sessionBucket(tx *bbolt.Tx, id engine.SessionID) *bbolt.Bucket {
	return tx.Bucket([]byte("sessions")).Bucket(binary.BigEndian.AppendUint64(nil, uint64(id)))
}

// Damage found on a session's first touch stops execution with an error
// that says what is wrong; other sessions keep working.
func TestDamagedStoreRefusesExecution(t *testing.T) {
	cases := []struct {
		name   string
		damage func(tx *bbolt.Tx, id engine.SessionID) error
		want   engine.Code
		detail string // in the error's details
	}{
		{"flipped byte in event 3", func(tx *bbolt.Tx, id engine.SessionID) error {
			ev := sessionBucket(tx, id).Bucket([]byte("events"))
			k := binary.BigEndian.AppendUint64(nil, 3)
			v := append([]byte(nil), ev.Get(k)...)
			v[10] ^= 0x20
			return ev.Put(k, v)
		}, engine.CodeSessionCorrupt, `"firstBadIndex":3`},
		{"pinned workflow missing", func(tx *bbolt.Tx, id engine.SessionID) error {
			b := tx.Bucket([]byte("workflows"))
			k, _ := b.Cursor().First()
			return b.Delete(append([]byte(nil), k...))
		}, engine.CodePinnedMissing, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			store.UncheckedSessions(t, "each case damages the session's records")
			r := newRig(t, nil)
			s := r.step(t, r.x.Start, map[string]any{"workflowId": "wr.hello"})
			r.store.Close()
			db, err := bbolt.Open(r.path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Update(func(tx *bbolt.Tx) error { return c.damage(tx, s.Session.SessionID) }); err != nil {
				t.Fatal(err)
			}
			db.Close()
			r.open(t)
			for _, args := range []any{s.NextCall.Arguments, map[string]any{"stateToken": s.StateToken}} {
				res, ok := r.call(t, r.x.Continue, args).(protocol.ErrorResult)
				if !ok || res.Error.Code != c.want {
					t.Fatalf("want %s, got:\n%s", c.want, res.Text)
				}
				if b, _ := json.Marshal(res); !strings.Contains(string(b), c.detail) {
					t.Fatalf("error does not say %s: %s", c.detail, b)
				}
			}
			// A new run still works: damage stays contained.
			r.step(t, r.x.Start, map[string]any{"workflowId": "wr.hello"})
		})
	}
}

// Indexes that differ from a log that verifies are rebuilt from it on
// the session's first touch: the call runs from the refold, never from
// the damaged records, and nothing answers SESSION_CORRUPT.
func TestDamagedIndexesAreRebuiltOnFirstTouch(t *testing.T) {
	cases := []struct {
		name   string
		damage func(tx *bbolt.Tx, id engine.SessionID) error
		logged string
	}{
		{"attempts index forged", func(tx *bbolt.Tx, id engine.SessionID) error {
			// A forged record of attempt 0 on the root, if it were
			// read, would turn the first advance into a replay of
			// something never answered.
			at := sessionBucket(tx, id).Bucket([]byte("attempts"))
			return at.Put(binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 1), 0), binary.BigEndian.AppendUint64(nil, 1))
		}, "attempts index"},
		{"overview garbled", func(tx *bbolt.Tx, id engine.SessionID) error {
			return sessionBucket(tx, id).Put([]byte("overview"), []byte(`{"title":`))
		}, "overview index: differs"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, nil)
			s := r.step(t, r.x.Start, map[string]any{"workflowId": "wr.hello"})
			r.store.Close()
			db, err := bbolt.Open(r.path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Update(func(tx *bbolt.Tx) error { return c.damage(tx, s.Session.SessionID) }); err != nil {
				t.Fatal(err)
			}
			db.Close()
			var logged []string
			st := store.OpenChecked(t, r.path, store.Options{Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }})
			r.store = st
			r.x = execute.New(st, executetest.Ring(t), r.wf, workflow.Preferences{}, executetest.Clock, t.Logf)
			next := r.step(t, r.x.Continue, s.NextCall.Arguments)
			if next.Pending.StepID == s.Pending.StepID || next.StateToken == s.StateToken {
				t.Fatalf("the advance did not advance: %+v", next.Session)
			}
			again := r.step(t, r.x.Continue, s.NextCall.Arguments)
			if again.Text != next.Text {
				t.Fatalf("the replay differs from the answer:\n%s\n---\n%s", again.Text, next.Text)
			}
			if len(logged) != 1 || !strings.Contains(logged[0], c.logged) {
				t.Fatalf("logged %q; want a line naming %q", logged, c.logged)
			}
			if rep, err := st.Verify(s.Session.SessionID); err != nil || !rep.OK() {
				t.Fatalf("after the repair: %+v, %v", rep, err)
			}
		})
	}
}

// The indexes the store keeps call by call equal a refold of the log,
// after every bundled workflow in every mode and after forks.
func TestIndexesEqualARefold(t *testing.T) {
	r := newRig(t, nil)
	list, _ := r.x.List(context.Background(), nil).(protocol.ListResult)
	for _, w := range list.Workflows {
		for _, mode := range outcome.Modes() {
			executetest.Drive(t, r.x, w.ID, mode)
		}
	}
	// A rewound chat forks twice from the root of one more run.
	s1 := r.step(t, r.x.Start, map[string]any{"workflowId": "wr.hello"})
	r.step(t, r.x.Continue, s1.NextCall.Arguments)
	for i := 0; i < 2; i++ {
		re := r.step(t, r.x.Continue, map[string]any{"stateToken": s1.StateToken})
		r.step(t, r.x.Continue, re.NextCall.Arguments)
	}
	// The Console forks that run at a node and restarts it in its session.
	at := execute.Place{Session: s1.Session.SessionID, Run: s1.Session.RunID, Node: 2}
	for _, act := range []func(context.Context, execute.Place, []byte) (protocol.Result, execute.Place){r.x.Fork, r.x.Restart} {
		if res, _ := act(context.Background(), at, []byte(`{"hasWorkspace": false}`)); res.ResultKind() != protocol.KindStep {
			t.Fatalf("%s", res.RenderedText())
		}
	}
	reports, err := r.store.Doctor()
	if err != nil || len(reports) != len(list.Workflows)*len(outcome.Modes())+1 {
		t.Fatalf("doctor: %d reports, %v", len(reports), err)
	}
	for _, rep := range reports {
		if !rep.OK() {
			t.Fatalf("%s: %+v", rep.Session, rep)
		}
	}
}

// A full disk fails the write with an error the agent can act on, leaves
// nothing half-written, and the same call succeeds once space returns.
func TestFullDiskIsReportedAndRecovered(t *testing.T) {
	dir := storetest.SmallDisk(t, "4m")
	r := &rig{path: filepath.Join(dir, "workrail.db"), wf: executetest.Catalog(t, workflows.FS)}
	r.open(t)
	s := r.step(t, r.x.Start, map[string]any{"workflowId": "wr.hello"})
	free := storetest.Fill(t, dir)
	// Writes may land in pages the file already has; rewound chats keep
	// forking from the first step until one needs new space.
	var failed protocol.ErrorResult
	var args protocol.ContinueArgs
	for i := 0; i < 500; i++ {
		re := r.step(t, r.x.Continue, map[string]any{"stateToken": s.StateToken})
		args = re.NextCall.Arguments
		res := r.call(t, r.x.Continue, args)
		if e, ok := res.(protocol.ErrorResult); ok {
			failed = e
			break
		}
	}
	if failed.Error == nil {
		t.Fatal("500 forks fitted on a full disk")
	}
	if failed.Error.Code != engine.CodeStorageUnwritable || failed.Error.Retry.Kind != engine.RetryableAfterMs ||
		failed.Error.Details["reason"] != "disk_full" || !strings.Contains(failed.Text, "Free space") {
		t.Fatalf("a full disk was reported as:\n%s", failed.Text)
	}
	before, _ := r.store.Digest(s.Session.SessionID)
	if rep, err := r.store.Verify(s.Session.SessionID); err != nil || !rep.OK() {
		t.Fatalf("after the failed write: %+v, %v", rep, err)
	}
	free()
	if _, ok := r.call(t, r.x.Continue, args).(protocol.StepResult); !ok {
		t.Fatal("the same call did not succeed once space returned")
	}
	if after, _ := r.store.Digest(s.Session.SessionID); after == before {
		t.Fatal("the retried call recorded nothing")
	}
	if rep, err := r.store.Verify(s.Session.SessionID); err != nil || !rep.OK() {
		t.Fatalf("after recovery: %+v, %v", rep, err)
	}
}
