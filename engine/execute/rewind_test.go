package execute_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/golden"
	"github.com/workrail/workrail/engine/protocol"
)

// A chat rewound to a node the run already went on from: its rehydrate
// records nothing and says what continuing from there will do; the
// advance from it says it started a new branch, and its replay answers
// the same bytes. Both texts are pinned (testdata/golden/rewind.txt).
func TestRewindSaysWhatItDid(t *testing.T) {
	r := newRig(t, nil)
	s1 := r.step(t, "start", map[string]any{"workflowId": "wr.hello"})
	r.step(t, "continue", withNotes(s1, "Greeted the user."))
	before := len(r.events(t, s1.Session.SessionID))
	re := r.step(t, "continue", map[string]any{"stateToken": s1.StateToken})
	if n := len(r.events(t, s1.Session.SessionID)); n != before {
		t.Fatalf("the rehydrate appended %d events", n-before)
	}
	if re.Fork == nil || !strings.Contains(re.Text, "Continuing from here starts a new branch; the earlier ones are kept:") ||
		strings.Contains(re.Text, "Your call started") {
		t.Errorf("the rehydrate's branches:\n%s", re.Text)
	}
	args := withNotes(re, "Greeted the user again, differently.")
	forked, first := r.call(t, "continue", args)
	b, ok := forked.(protocol.StepResult)
	if !ok || b.Fork == nil || !strings.Contains(b.Text, "Your call started a new branch; the earlier ones are kept:") {
		t.Fatalf("the advance from the rehydrate:\n%s", first)
	}
	if _, again := r.call(t, "continue", args); !bytes.Equal(again, first) {
		t.Fatalf("the replay differs:\n%s\n---\n%s", again, first)
	}
	golden.Check(t, filepath.Join("testdata", "golden", "rewind.txt"),
		[]byte("======== rehydrate\n"+re.Text+"\n======== advance\n"+b.Text))
}
