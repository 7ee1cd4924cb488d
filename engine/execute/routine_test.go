package execute_test

import (
	"context"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
)

const routineWorkflow = `{"id":"wr.routine-double-check","kind":"routine","name":"Double check","description":"d","version":"1",
 "steps":[{"id":"look","title":"Look","prompt":"look again"},{"id":"say","title":"Say","prompt":"say what you saw"}]}`

// TestRoutinesAreListedWithTheirKindAndStartByID: a routine is in
// list_workflows as kind routine, and start_workflow runs it by id to
// completion like any workflow.
func TestRoutinesAreListedWithTheirKindAndStartByID(t *testing.T) {
	r := newRig(t, catalogOf(t, map[string]string{"wr.routine-double-check.json": routineWorkflow}))
	list, ok := r.x.List(context.Background(), nil).(protocol.ListResult)
	if !ok || len(list.Workflows) != 1 || list.Workflows[0].Kind != workflow.KindRoutine {
		t.Fatalf("list %+v; want the routine with kind routine", list.Workflows)
	}
	conforms(t, schemaFor(t, protocol.ToolList), list)
	s := r.step(t, "start", map[string]any{"workflowId": "wr.routine-double-check"})
	if s.Pending.StepID != "look" {
		t.Fatalf("first step %s; want look", s.Pending.StepID)
	}
	s = r.step(t, "continue", s.NextCall.Arguments)
	if s.Pending.StepID != "say" {
		t.Fatalf("second step %s; want say", s.Pending.StepID)
	}
	if res, b := r.call(t, "continue", s.NextCall.Arguments); res.ResultKind() != protocol.KindComplete {
		t.Fatalf("want the routine complete, got %s", b)
	}
}

// TestLoadWarningsMatchTheOutputSchemas: list_workflows and
// inspect_workflow carry a file's load warnings, pointer included, within
// their declared output schemas.
func TestLoadWarningsMatchTheOutputSchemas(t *testing.T) {
	e, p := catalog.Load([]byte(`{"id":"old_flow","name":"Old","description":"d","version":"1",
 "steps":[{"id":"a","title":"A","prompt":"do a"}]}`), catalog.Source{Kind: catalog.User, Path: "/home/u/wf"}, "old.json")
	if p != nil {
		t.Fatal(p)
	}
	r := newRig(t, fixedCatalog{cat: catalog.New([]catalog.Entry{e}, nil)})
	list := r.x.List(context.Background(), nil)
	conforms(t, schemaFor(t, protocol.ToolList), list)
	w := list.(protocol.ListResult).Workflows
	if len(w) != 1 || len(w[0].Warnings) != 1 || w[0].Warnings[0].Pointer != "/id" {
		t.Fatalf("list %+v; want old_flow with its legacy-id warning at /id", w)
	}
	conforms(t, schemaFor(t, protocol.ToolInspect), r.x.Inspect(context.Background(), []byte(`{"workflowId":"old_flow"}`)))
}

// fixedCatalog serves one catalog to every workspace.
type fixedCatalog struct{ cat *catalog.Catalog }

func (f fixedCatalog) Catalog(string) *catalog.Catalog { return f.cat }

// TestStartCountsTheRewrites: a start of a file in the TypeScript format
// shows its rewrites as one warning that counts them, beside its other
// load warnings, not one warning each.
func TestStartCountsTheRewrites(t *testing.T) {
	src := []byte(`{"id":"user.ts","name":"TS","description":"d","version":"1","validatedAgainstSpecVersion":3,
 "steps":[{"id":"a","title":"A","prompt":"do a","runCondition":{"var":"size","not_equals":"big"}}]}`)
	e, p := catalog.Load(src, catalog.Source{Kind: catalog.User, Path: "/home/u/wf"}, "ts.json")
	if p != nil {
		t.Fatal(p)
	}
	r := newRig(t, fixedCatalog{cat: catalog.New([]catalog.Entry{e}, nil)})
	s := r.step(t, "start", map[string]any{"workflowId": "user.ts"})
	var legacy []protocol.Warning
	for _, w := range s.Warnings {
		if w.Code == event.NoticeLegacyFormat {
			legacy = append(legacy, w)
		}
	}
	if len(legacy) != 1 || !strings.Contains(legacy[0].Message, "read with 3 rewrites") {
		t.Fatalf("start warnings %+v; want one LEGACY_FORMAT counting 3 rewrites", s.Warnings)
	}
}
