package store_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/resume"
	"github.com/workrail/workrail/engine/token"
	"github.com/workrail/workrail/store"
)

// noted starts wr.long and acknowledges its first step with notes.
func (r *rig) noted(tb testing.TB, notes string) protocol.StepResult {
	tb.Helper()
	s := r.step(tb, r.x.Start, map[string]any{"workflowId": "wr.long"})
	args := s.NextCall.Arguments
	args.Output = &protocol.Output{NotesMarkdown: notes}
	return r.step(tb, r.x.Continue, args)
}

// tipOf is the node a step's stateToken names.
func tipOf(t *testing.T, s protocol.StepResult) engine.NodeID {
	t.Helper()
	c, err := executetest.Ring(t).Parse(s.StateToken, token.State)
	if err != nil {
		t.Fatal(err)
	}
	return c.Node
}

func (r *rig) ranked(tb testing.TB, q resume.Query) []resume.Match {
	tb.Helper()
	ranked, err := r.store.Resume(q)
	if err != nil {
		tb.Fatal(err)
	}
	return slices.Collect(ranked)
}

// resumeBytes reads every session's stored resume record.
func resumeBytes(t *testing.T, path string) map[engine.SessionID][]byte {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	out := map[engine.SessionID][]byte{}
	err = db.View(func(tx *bbolt.Tx) error {
		root := tx.Bucket([]byte("sessions"))
		return root.ForEachBucket(func(k []byte) error {
			out[engine.SessionID(binary.BigEndian.Uint64(k))] = bytes.Clone(root.Bucket(k).Get([]byte("resume")))
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The index kept by every commit is the one a rebuild writes, byte for
// byte; the in-memory copy follows each commit, and a restarted store
// loads the same from the file.
func TestResumeIndexRebuiltEqualsFolded(t *testing.T) {
	r := newRig(t, executetest.Long(t, 4))
	q := resume.NewQuery("auth bug", "", "", "")
	a := r.noted(t, "fixing the auth bug")
	r.noted(t, "reading the docs")
	if got := r.ranked(t, q); len(got) != 2 || got[0].Session != a.Session.SessionID || got[0].Tier != resume.TierNotes {
		t.Fatalf("ranked %+v", got)
	}
	// A commit after the first query moves the copy: a third session,
	// then a fork by a rewound chat, which makes the first session the
	// one written last.
	c := r.noted(t, "an auth bug elsewhere")
	if got := r.ranked(t, q); len(got) != 3 || got[0].Session != c.Session.SessionID || got[1].Session != a.Session.SessionID {
		t.Fatalf("after a third session: %+v", got)
	}
	re := r.step(t, r.x.Continue, map[string]any{"stateToken": a.StateToken})
	args := re.NextCall.Arguments
	args.Output = &protocol.Output{NotesMarkdown: "auth bug: second try"}
	fork := r.step(t, r.x.Continue, args)
	got := r.ranked(t, q)
	if len(got) != 3 || got[0].Session != a.Session.SessionID || got[0].Run.Tip != tipOf(t, fork) || got[0].Run.Snippet != "auth bug: second try" ||
		got[1].Session != c.Session.SessionID || got[2].Tier != resume.TierRecency {
		t.Fatalf("after the fork: %+v", got)
	}
	r.store.Close()
	folded := resumeBytes(t, r.path)

	r.open(t)
	if after := r.ranked(t, q); !reflect.DeepEqual(after, got) {
		t.Fatalf("after a restart:\n%+v\nbefore\n%+v", after, got)
	}
	ids, err := r.store.SessionIDs()
	if err != nil || len(ids) != 3 {
		t.Fatalf("SessionIDs = %v, %v; want 3 sessions", ids, err)
	}
	for _, id := range ids {
		if err := r.store.RebuildIndexes(id); err != nil {
			t.Fatal(err)
		}
	}
	if after := r.ranked(t, q); !reflect.DeepEqual(after, got) {
		t.Fatalf("after rebuilding:\n%+v\nbefore\n%+v", after, got)
	}
	r.store.Close()
	rebuilt := resumeBytes(t, r.path)
	if !reflect.DeepEqual(rebuilt, folded) || len(folded) != 3 {
		t.Fatalf("rebuilt records\n%q\nfolded\n%q", rebuilt, folded)
	}
}

// Only healthy sessions are offered: a session whose log is corrupt and
// one whose indexes are damaged rank above the healthy one but are left
// out of resume_session's answer.
func TestResumeOffersHealthySessionsOnly(t *testing.T) {
	store.UncheckedSessions(t, "it damages a session's log to see resume leave it out")
	r := newRig(t, executetest.Long(t, 3))
	// The session written last ranks first.
	good := r.noted(t, "the auth bug, healthy")
	damaged := r.noted(t, "the auth bug, damaged indexes")
	corrupt := r.noted(t, "the auth bug, corrupt log")
	r.store.Close()
	damage(t, r.path, corrupt.Session.SessionID, func(b *bbolt.Bucket) error {
		ev := b.Bucket([]byte("events"))
		k := binary.BigEndian.AppendUint64(nil, 6)
		v := bytes.Clone(ev.Get(k))
		v[10] ^= 0x20
		return ev.Put(k, v)
	})
	damage(t, r.path, damaged.Session.SessionID, func(b *bbolt.Bucket) error {
		return b.Bucket([]byte("runs")).Delete(binary.BigEndian.AppendUint32(nil, 1))
	})
	r.open(t)
	var ranked []engine.SessionID
	for _, m := range r.ranked(t, resume.NewQuery("auth bug", "", "", "")) {
		ranked = append(ranked, m.Session)
	}
	if want := []engine.SessionID{corrupt.Session.SessionID, damaged.Session.SessionID, good.Session.SessionID}; !reflect.DeepEqual(ranked, want) {
		t.Fatalf("ranked %v; want %v", ranked, want)
	}
	// The damaged indexes are rebuilt from the log the health check
	// verified: that session is offered again, the corrupt log is not.
	res, ok := r.call(t, r.x.ResumeSession, map[string]any{"query": "auth bug"}).(protocol.ResumeResult)
	if !ok || len(res.Candidates) != 2 || res.Candidates[0].Session.SessionID != damaged.Session.SessionID || res.Candidates[1].Session.SessionID != good.Session.SessionID {
		t.Fatalf("resume_session offered:\n%s", res.Text)
	}
	for id, want := range map[engine.SessionID]execute.HealthStatus{corrupt.Session.SessionID: execute.CorruptTail, damaged.Session.SessionID: execute.Healthy} {
		if h, err := r.store.Health(id); err != nil || h.Status != want {
			t.Fatalf("session %s: health %+v, %v; want %s", id, h, err, want)
		}
	}
}

// Opening a file of schema 2 folds a resume record for every session
// whose log verifies, once, and ranks as the file it was made from; a file
// of schema 3, whose records cut the newest note on its raw text, has its
// records folded again.
func TestOpenFoldsResumeRecordsOfAnOlderFile(t *testing.T) {
	for _, tc := range []struct {
		schema uint64
		record []byte // what the old file holds under "resume"; nil: nothing
	}{
		{2, nil},
		{3, []byte(`{"last":1}`)},
	} {
		t.Run(fmt.Sprintf("schema %d", tc.schema), func(t *testing.T) {
			r := newRig(t, executetest.Long(t, 3))
			r.noted(t, "fixing the auth bug")
			r.noted(t, "reading the docs")
			q := resume.NewQuery("auth bug", "", "", "")
			want := r.ranked(t, q)
			r.store.Close()
			folded := resumeBytes(t, r.path)
			db, err := bbolt.Open(r.path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = db.Update(func(tx *bbolt.Tx) error {
				sessions := tx.Bucket([]byte("sessions"))
				err := sessions.ForEachBucket(func(k []byte) error {
					if tc.record == nil {
						return sessions.Bucket(k).Delete([]byte("resume"))
					}
					return sessions.Bucket(k).Put([]byte("resume"), tc.record)
				})
				if err != nil {
					return err
				}
				return tx.Bucket([]byte("meta")).Put([]byte("schema"), binary.BigEndian.AppendUint64(nil, tc.schema))
			})
			db.Close()
			if err != nil {
				t.Fatal(err)
			}
			if got := resumeBytes(t, r.path); reflect.DeepEqual(got, folded) {
				t.Fatal("the records were not changed")
			}
			r.open(t)
			if got := r.ranked(t, q); !reflect.DeepEqual(got, want) {
				t.Fatalf("after the upgrade:\n%+v\nwant\n%+v", got, want)
			}
			if rep, err := r.store.Doctor(); err != nil || len(rep) != 2 || !rep[0].OK() || !rep[1].OK() {
				t.Fatalf("Doctor = %+v, %v", rep, err)
			}
			r.store.Close()
			if got := resumeBytes(t, r.path); !reflect.DeepEqual(got, folded) {
				t.Fatalf("upgraded records\n%q\nwant\n%q", got, folded)
			}
			if got := schemaOf(t, r.path); got != store.SchemaVersion {
				t.Fatalf("schema %d", got)
			}
		})
	}
}
