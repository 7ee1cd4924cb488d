package store_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/store"
)

// cutTitles is definition B of the overview: titles of at most 60 runes
// (this build keeps 80), cut as headline cuts them.
func cutTitles(o *project.Overview) {
	cut := func(s string) string {
		if utf8.RuneCountInString(s) <= 60 {
			return s
		}
		return strings.TrimRightFunc(string([]rune(s)[:59]), unicode.IsSpace) + "…"
	}
	o.Title = cut(o.Title)
	for i := range o.Runs {
		o.Runs[i].Title = cut(o.Runs[i].Title)
	}
}

// definitionRun is one session of the test: its last answer, the call
// that gave it, and its title's first words.
type definitionRun struct {
	id     engine.SessionID
	answer protocol.StepResult
	call   protocol.ContinueArgs
}

// reopenAs reopens r's file as a build whose overview definition is
// version v, shaped by shape, logging into logged.
func reopenAs(t *testing.T, r *rig, v uint32, shape func(*project.Overview), logged *lines) {
	t.Helper()
	r.store.Close()
	t.Cleanup(store.SetOverviewDefinition(v, shape))
	st := store.OpenChecked(t, r.path, store.Options{Logf: logged.add})
	r.store = st
	r.x = newService(t, r)
}

type lines struct {
	mu sync.Mutex
	l  []string
}

func (l *lines) add(f string, a ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.l = append(l.l, fmt.Sprintf(f, a...))
}

func (l *lines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.l...)
}

// A change to a derived record's definition strands no session: written
// under definition A, reopened under B, every session goes on (its
// recorded answers replay byte for byte, its tip rehydrates and
// advances), the overview shows B's value once rebuilt, doctor finds
// every session healthy and nothing answers SESSION_CORRUPT (r.step
// fails on any error); going back to A works the same way, and so does
// a change made without bumping the version (repaired, and logged).
func TestDefinitionChangeKeepsEverySessionRunning(t *testing.T) {
	store.UncheckedSessions(t, "another build's overview definition writes some of its overviews")
	r := newRig(t, executetest.Long(t, 8))
	long := "Investigated the flaky upload path across the three storage backends and the retry policy"
	var runs []definitionRun
	for i := range 6 {
		s := r.step(t, r.x.Start, map[string]any{"workflowId": "wr.long"})
		args := s.NextCall.Arguments
		args.Output = &protocol.Output{NotesMarkdown: fmt.Sprintf("%s, take %d\n\nMore below.", long, i)}
		answer := r.step(t, r.x.Continue, args)
		runs = append(runs, definitionRun{id: answer.Session.SessionID, answer: answer, call: args})
	}
	// What the Console's list of sessions shows: the walk of overviews.
	titleUnder := func(want int) {
		t.Helper()
		listed := walk(t, r.store, 0)
		for _, run := range runs {
			o, err := listed.overviews[run.id], listed.errs[run.id]
			if err != nil {
				t.Fatal(err)
			}
			if n := utf8.RuneCountInString(o.Title); n != want || !strings.HasSuffix(o.Title, "…") || utf8.RuneCountInString(o.Runs[0].Title) != want {
				t.Fatalf("session %s: title %q (%d runes); want %d", run.id, o.Title, n, want)
			}
		}
	}
	titleUnder(80)

	goOn := func(phase string) {
		t.Helper()
		for i, run := range runs {
			if again := r.step(t, r.x.Continue, run.call); again.Text != run.answer.Text {
				t.Fatalf("%s: session %s replays other bytes:\n%s\n---\n%s", phase, run.id, again.Text, run.answer.Text)
			}
			tip := r.step(t, r.x.Continue, map[string]any{"stateToken": run.answer.StateToken})
			args := tip.NextCall.Arguments
			args.Output = &protocol.Output{NotesMarkdown: "Went on: " + phase}
			runs[i].answer, runs[i].call = r.step(t, r.x.Continue, args), args
		}
	}
	healthy := func(phase string) {
		t.Helper()
		reports, err := r.store.Doctor()
		if err != nil || len(reports) != len(runs) {
			t.Fatalf("%s: doctor %d reports, %v", phase, len(reports), err)
		}
		for _, rep := range reports {
			if !rep.OK() {
				t.Fatalf("%s: doctor %+v", phase, rep)
			}
		}
	}

	// B, a newer build: the first session is touched by an agent before
	// the background pass, which rebuilds the others meanwhile.
	var logged lines
	reopenAs(t, r, project.OverviewVersion+1, cutTitles, &logged)
	first := r.step(t, r.x.Continue, map[string]any{"stateToken": runs[0].answer.StateToken})
	if first.Text == "" {
		t.Fatal("no rehydrate")
	}
	if n, err := r.store.RefreshDerived(context.Background()); err != nil || n != len(runs)-1 {
		t.Fatalf("RefreshDerived rebuilt %d sessions, %v; want %d (one was rebuilt on its first touch)", n, err, len(runs)-1)
	}
	titleUnder(60)
	goOn("B")
	healthy("B")
	if n, _ := r.store.RefreshDerived(context.Background()); n != 0 {
		t.Fatalf("a second pass rebuilt %d sessions", n)
	}

	// Back to A, an older build meeting B's records: it rebuilds them in
	// its own definition instead of failing.
	reopenAs(t, r, project.OverviewVersion, nil, &logged)
	goOn("A again")
	if _, err := r.store.RefreshDerived(context.Background()); err != nil {
		t.Fatal(err)
	}
	titleUnder(80)
	healthy("A again")
	if l := logged.all(); len(l) != 0 {
		t.Fatalf("a version change logged %q; it is no damage", l)
	}

	// B's rule without its version bump: the health check finds each
	// session's overview different from a refold, logs it and rebuilds.
	reopenAs(t, r, project.OverviewVersion, cutTitles, &logged)
	if n, _ := r.store.RefreshDerived(context.Background()); n != 0 {
		t.Fatalf("records of this build's version rebuilt in the background: %d", n)
	}
	goOn("B unbumped")
	titleUnder(60)
	healthy("B unbumped")
	if l := logged.all(); len(l) != len(runs) || !strings.Contains(l[0], "overview index: differs") {
		t.Fatalf("logged %q; want one repair per session", l)
	}
}

// The background pass rebuilds every session of another definition but
// one whose log does not verify, which it leaves as it is; a write to a
// session of another definition rebuilds its records first, so the pass
// finds nothing left to do there; a second pass finds nothing at all.
func TestRefreshDerivedLeavesDamagedLogs(t *testing.T) {
	store.UncheckedSessions(t, "it damages a log to see the refresh leave it alone")
	path := filepath.Join(t.TempDir(), "w.db")
	s := mustOpen(t, path)
	ids := []engine.SessionID{seed(t, s, 3), seed(t, s, 3), seed(t, s, 3), seed(t, s, 3)}
	s.Close()
	broken, written := ids[1], ids[2]
	damage(t, path, broken, func(b *bbolt.Bucket) error {
		ev := b.Bucket([]byte("events"))
		k := binary.BigEndian.AppendUint64(nil, 4)
		v := bytes.Clone(ev.Get(k))
		v[10] ^= 0x20
		return ev.Put(k, v)
	})
	t.Cleanup(store.SetOverviewDefinition(project.OverviewVersion+1, cutTitles))
	s = mustOpen(t, path)
	err := s.Update(written, func(tx execute.Tx) error {
		_, err := tx.Append(1, 1, &event.NodeOutputAppendedData{StepID: "s", NotesMarkdown: "written under the new definition"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := s.RefreshDerived(context.Background()); err != nil || n != 2 {
		t.Fatalf("RefreshDerived rebuilt %d sessions, %v; want 2 (one was written, one is damaged)", n, err)
	}
	if n, err := s.RefreshDerived(context.Background()); err != nil || n != 0 {
		t.Fatalf("a second pass rebuilt %d sessions, %v", n, err)
	}
	if h, err := s.Health(broken); err != nil || h.Status != execute.CorruptTail {
		t.Fatalf("the damaged session: %+v, %v", h, err)
	}
	for _, id := range ids {
		if rep, err := s.Verify(id); err != nil || id != broken && !rep.OK() {
			t.Fatalf("session %s: %+v, %v", id, rep, err)
		}
	}
}

// A cancelled pass stops between two transactions and says so.
func TestRefreshDerivedStopsWhenCancelled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	s := mustOpen(t, path)
	seed(t, s, 2)
	s.Close()
	t.Cleanup(store.SetOverviewDefinition(project.OverviewVersion+1, nil))
	s = mustOpen(t, path)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if n, err := s.RefreshDerived(ctx); !errors.Is(err, context.Canceled) || n != 0 {
		t.Fatalf("a cancelled pass rebuilt %d sessions, %v", n, err)
	}
}
