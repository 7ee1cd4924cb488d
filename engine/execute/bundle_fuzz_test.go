package execute_test

import (
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/bundle"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/workflow"
)

// FuzzImport imports arbitrary bytes. Whatever arrives, nothing panics; a
// bundle that fails verification is refused with BUNDLE_INVALID (never
// INTERNAL) and writes nothing, on a dry run or not; one that verifies
// imports whole, as a session that exports a bundle that verifies. The
// committed seeds (testdata/fuzz/FuzzImport) are a small real bundle and
// damaged copies of it; a fresh export is added here, so the target
// starts from a valid bundle of the current format.
func FuzzImport(f *testing.F) {
	src := newRig(f, nil)
	hello := src.step(f, "start", map[string]any{"workflowId": "wr.hello"})
	src.step(f, "checkpoint", checkpointArgs(hello.StateToken, hello.CheckpointToken, "Looked around."))
	b, err := src.x.Export(hello.Session.SessionID, bundle.ExportOptions{})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	s := memstore.New()
	x := execute.New(s, executetest.Ring(f), bundled(f), workflow.Preferences{}, executetest.Clock, func(string, ...any) {})
	f.Fuzz(func(t *testing.T, b []byte) {
		before := s.Changes()
		_, dryErr := x.Import(b, true)
		if s.Changes() != before {
			t.Fatal("a dry run wrote")
		}
		rep, err := x.Import(b, false)
		if (err == nil) != (dryErr == nil) {
			t.Fatalf("the dry run said %v, the import %v", dryErr, err)
		}
		if err != nil {
			if codeOf(err) != engine.CodeBundleInvalid {
				t.Fatalf("refused with %v; want BUNDLE_INVALID", err)
			}
			if s.Changes() != before {
				t.Fatal("a bundle that fails verification wrote")
			}
			return
		}
		out, err := x.Export(rep.Session, bundle.ExportOptions{})
		if err != nil {
			t.Fatalf("the imported session does not export: %v", err)
		}
		if _, err := bundle.Read(out); err != nil {
			t.Fatalf("the imported session exports a bundle that does not verify: %v", err)
		}
	})
}
