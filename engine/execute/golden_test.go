package execute_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/golden"
	"github.com/workrail/workrail/engine/protocol"
)

// The text of every result a guided agent sees, for every bundled
// workflow, is pinned: header, sections, prompts, blockers, next calls.
// A change is a deliberate golden update: go test ./engine/execute -run Golden -update.
func TestBundledStepTextGolden(t *testing.T) {
	list, _ := newRig(t, nil).x.List(context.Background(), nil).(protocol.ListResult)
	for _, w := range list.Workflows {
		t.Run(string(w.ID), func(t *testing.T) {
			var got bytes.Buffer
			for i, res := range executetest.Drive(t, newRig(t, nil).x, w.ID, "") {
				fmt.Fprintf(&got, "======== %02d %s\n%s\n", i, res.ResultKind(), res.RenderedText())
			}
			golden.Check(t, filepath.Join("testdata", "golden", string(w.ID)+".txt"), got.Bytes())
		})
	}
}
