package protocol_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/golden"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
)

func drifts() []catalog.Drift {
	pinned := engine.WorkflowHash(engine.Sum([]byte("greet v1")))
	current := engine.WorkflowHash(engine.Sum([]byte("greet v2")))
	user := catalog.Source{Kind: catalog.User, Path: "/home/u/.local/share/workrail/workflows"}
	project := catalog.Source{Kind: catalog.Project, Path: "/ws/.workrail/workflows"}
	return []catalog.Drift{
		// Files as the daemon's sources name them (full paths) and as
		// LoadFS names them (relative to the folder).
		{Kind: catalog.DriftEdited, WorkflowID: "user.greet", PinnedHash: pinned, CurrentHash: current, CurrentVersion: "1.1.0",
			Current: catalog.Place{Source: user, File: "/home/u/.local/share/workrail/workflows/greet.json"}},
		{Kind: catalog.DriftShadowed, WorkflowID: "user.greet", PinnedHash: pinned, CurrentHash: current, CurrentVersion: "1.1.0",
			Current: catalog.Place{Source: user, File: "greet.json"}, PinnedAt: catalog.Place{Source: project, File: "greet.json"}},
		{Kind: catalog.DriftRemoved, WorkflowID: "user.greet", PinnedHash: pinned},
		{Kind: catalog.DriftUnloadable, WorkflowID: "user.greet", PinnedHash: pinned,
			Current:  catalog.Place{Source: user, File: "greet.json"},
			Problems: workflow.Problems{{Line: 2, Column: 11, Message: "invalid JSON: unexpected EOF"}, {Message: "not shown"}}},
		{Kind: catalog.DriftUnloadable, WorkflowID: "user.greet", PinnedHash: pinned, Current: catalog.Place{Source: catalog.Source{Kind: catalog.Bundled}, File: "greet.json"}},
	}
}

// The warning a rehydrate of a drifted run carries, for every kind:
// testdata/golden/drift_warnings.txt.
func TestDriftWarningGolden(t *testing.T) {
	var b bytes.Buffer
	kinds := map[catalog.DriftKind]bool{}
	for _, d := range drifts() {
		w := protocol.DriftWarning("1.0.0", d)
		if w.Code != event.NoticePinnedWorkflowDrifted {
			t.Errorf("%s: code %s", d.Kind, w.Code)
		}
		for _, must := range []string{"continues on its pinned version of user.greet", "version 1.0.0", protocol.ShortHash(d.PinnedHash),
			"(" + string(d.Kind) + ")", "Nothing to fix"} {
			if !strings.Contains(w.Message, must) {
				t.Errorf("%s: message lacks %q:\n%s", d.Kind, must, w.Message)
			}
		}
		kinds[d.Kind] = true
		fmt.Fprintf(&b, "%s\n%s: %s\n\n", d.Kind, w.Code, w.Message)
	}
	for _, k := range catalog.DriftKinds() {
		if !kinds[k] {
			t.Errorf("no golden case for drift kind %s", k)
		}
	}
	golden.Check(t, filepath.Join("testdata", "golden", "drift_warnings.txt"), b.Bytes())
}

func TestShortHash(t *testing.T) {
	h := engine.WorkflowHash(engine.Sum([]byte("x")))
	if got, want := protocol.ShortHash(h), h.String()[:len("sha256:")+12]; got != want || len(got) != 19 {
		t.Errorf("ShortHash = %q; want %q", got, want)
	}
}
