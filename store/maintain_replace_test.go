package store_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/store"
)

// holdingSecrets creates a session whose snapshot context and notes hold
// secrets, the notes written over several transactions (so that older
// copies of its pages are freed as it grows), beside others.
func holdingSecrets(t *testing.T, s *store.Store, secrets []string) engine.SessionID {
	t.Helper()
	seed(t, s, 3)
	wf, err := compile.Seal(compile.Workflow{ID: "wr.x", Name: "x", Description: "x", Version: "1"})
	if err != nil {
		t.Fatal(err)
	}
	id, err := s.Create(func(tx execute.Tx) error {
		if _, err := tx.Append(0, 0, &event.SessionCreatedData{CreatedAt: "2026-01-01T00:00:00Z"}); err != nil {
			return err
		}
		if err := tx.PinWorkflow(wf); err != nil {
			return err
		}
		rid, _ := tx.NewRunID()
		if _, err := tx.Append(rid, 0, &event.RunStartedData{WorkflowID: "wr.x", WorkflowHash: wf.Hash}); err != nil {
			return err
		}
		nid, _ := tx.NewNodeID()
		ref, err := tx.PutSnapshot(run.Snapshot{WorkflowHash: wf.Hash, Position: run.Position{Kind: run.Complete}, Context: map[string]any{"token": secrets[0]}})
		if err != nil {
			return err
		}
		_, err = tx.Append(rid, nid, &event.NodeCreatedData{NodeKind: event.NodeStep, Snapshot: ref})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, secret := range secrets[1:] {
		err := s.Update(id, func(tx execute.Tx) error {
			_, err := tx.Append(1, 1, &event.NodeOutputAppendedData{StepID: "s", NotesMarkdown: fmt.Sprintf("note %d: %s", i, secret)})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		seed(t, s, 1) // other sessions' writes share and move pages
	}
	return id
}

func stored(t *testing.T, path string, secrets []string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range secrets {
		if bytes.Contains(b, []byte(s)) {
			n++
		}
	}
	return n
}

// A session replaced by a copy is gone in the same write the copy
// appears in; its old pages keep its bytes until Wipe overwrites the
// free pages, which it does only with no reader open. Afterwards no
// byte of the file holds a secret, every session still verifies, and a
// lookup of the replaced session names its copy.
func TestReplaceThenWipeLeavesNoCopy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	s := mustOpen(t, path)
	var secrets []string
	for i := range 30 {
		secrets = append(secrets, fmt.Sprintf("SECRET-%02d-%x", i, []byte(fmt.Sprint(i*7919))))
	}
	id := holdingSecrets(t, s, secrets)
	refused := errors.New("refused")
	if _, err := s.Replace(id, func(execute.ReadTx, execute.Tx) error { return refused }); !errors.Is(err, refused) {
		t.Fatalf("a replace whose fn fails: %v", err)
	}
	if _, err := s.Health(id); err != nil {
		t.Fatalf("a failed replace deleted the session: %v", err)
	}
	var head engine.EventIndex
	copyID, err := s.Replace(id, func(old execute.ReadTx, tx execute.Tx) error {
		head = old.Head()
		_, err := tx.Append(0, 0, &event.SessionCreatedData{CreatedAt: "2026-01-01T00:00:00Z"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if head != 32 { // session_created, run_started, node_created and 29 notes
		t.Errorf("fn read the session at event %d; it has 32", head)
	}
	var re *execute.ReplacedError
	if _, err := s.Health(id); !errors.As(err, &re) || re.By != copyID || !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("the replaced session's health: %v", err)
	}
	n := stored(t, path, secrets)
	if n == 0 {
		t.Fatal("the deleted session left nothing in the file: the test shows nothing")
	}
	t.Logf("after the replace, %d of %d secrets are in the file's free pages", n, len(secrets))

	release := make(chan struct{})
	reading := make(chan struct{})
	go s.View(copyID, func(execute.ReadTx) error { close(reading); <-release; return nil })
	<-reading
	w, err := s.Wipe(context.Background(), 50*time.Millisecond)
	if err != nil || !w.Held || w.Pages != 0 {
		t.Fatalf("a wipe with a reader open: %+v, %v", w, err)
	}
	close(release)
	w, err = s.Wipe(context.Background(), 5*time.Second)
	if err != nil || w.Held || w.Pages == 0 || w.Bytes != int64(w.Pages)*4096 {
		t.Fatalf("wipe: %+v, %v", w, err)
	}
	if n := stored(t, path, secrets); n > 0 {
		t.Errorf("%d of %d secrets are still in the file", n, len(secrets))
	}
	s.Close()
	s = mustOpen(t, path)
	reports, err := s.Doctor()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reports {
		if !r.OK() {
			t.Errorf("after the wipe: %+v", r)
		}
	}
	if _, err := s.Health(id); !errors.As(err, &re) || re.By != copyID {
		t.Errorf("after reopening, the replaced session's health: %v", err)
	}
}
