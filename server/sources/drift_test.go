package sources_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/server/sources"
)

// A run started from a file on disk, rehydrated after each change a user
// makes to that file: the warning names each kind of drift. The broken
// file is known by the id it names (LoadProblem.ID), so it reads as
// unloadable, not removed.
func TestRehydrateAfterEditsOnDisk(t *testing.T) {
	root := t.TempDir()
	user, ws := filepath.Join(root, "user"), filepath.Join(root, "ws")
	writeFile(t, filepath.Join(ws, ".workrail", "workflows"), "keep.json", wfJSON("project.keep", "Keep", ""))
	writeFile(t, user, "greet.json", wfJSON("user.greet", "Greet", ""))
	reg, err := sources.New(fstest.MapFS{}, []catalog.Source{{Kind: catalog.User, Path: user}})
	if err != nil {
		t.Fatal(err)
	}
	x := execute.New(memstore.New(), executetest.Ring(t), reg, workflow.Preferences{}, executetest.Clock, t.Logf)
	start, _ := json.Marshal(map[string]any{"workflowId": "user.greet", "workspacePath": ws})
	s, ok := x.Start(context.Background(), start).(protocol.StepResult)
	if !ok {
		t.Fatal("start failed")
	}
	rehydrate, _ := json.Marshal(map[string]any{"stateToken": s.StateToken})
	for _, tc := range []struct {
		name, body string
		want       catalog.DriftKind
	}{
		{"unchanged", wfJSON("user.greet", "Greet", ""), ""},
		{"edited", wfJSON("user.greet", "Greet, edited", ""), catalog.DriftEdited},
		{"broken", `{"id":"user.greet","name":"Greet",`, catalog.DriftUnloadable},
		{"renamed", wfJSON("user.hello", "Hello there", ""), catalog.DriftRemoved},
	} {
		writeFile(t, user, "greet.json", tc.body)
		re, ok := x.Continue(context.Background(), rehydrate).(protocol.StepResult)
		if !ok {
			t.Fatalf("%s: rehydrate failed", tc.name)
		}
		if tc.want == "" {
			if len(re.Warnings) != 0 {
				t.Errorf("%s: warnings %+v", tc.name, re.Warnings)
			}
			continue
		}
		if len(re.Warnings) != 1 || re.Warnings[0].Code != event.NoticePinnedWorkflowDrifted ||
			!strings.Contains(re.Warnings[0].Message, "("+string(tc.want)+")") {
			t.Errorf("%s: warnings %+v; want one of drift %s", tc.name, re.Warnings, tc.want)
		}
		if d, ok := x.Drift(ws, "user.greet", s.Workflow.Hash); !ok || d.Kind != tc.want {
			t.Errorf("%s: Drift = %+v, %v", tc.name, d, ok)
		}
	}
}
