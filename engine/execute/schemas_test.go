package execute_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/workrail/workrail/engine/protocol"
)

func schemaFor(t *testing.T, tool protocol.ToolName) *jsonschema.Schema {
	t.Helper()
	var out []byte
	for _, tl := range protocol.Tools(protocol.Features{CheckpointWorkflow: true, ResumeSession: true, StartSession: true}) {
		if tl.Name == tool {
			out = tl.Output
		}
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(string(tool)+".json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(string(tool) + ".json")
	if err != nil {
		t.Fatalf("%s output schema does not compile: %v", tool, err)
	}
	return s
}

func conforms(t *testing.T, s *jsonschema.Schema, r protocol.Result) {
	t.Helper()
	b, _ := json.Marshal(r)
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(v); err != nil {
		t.Fatalf("%s result does not match the output schema: %v\n%s", r.ResultKind(), err, b)
	}
}

// Every kind of result each tool returns matches that tool's declared
// output schema, blocked payloads included.
func TestResultsMatchOutputSchemas(t *testing.T) {
	r := autonomyRig(t)
	exec := schemaFor(t, protocol.ToolContinue)
	raw := func(v any) []byte { b, _ := json.Marshal(v); return b }

	conforms(t, schemaFor(t, protocol.ToolList), r.x.List(context.Background(), nil))
	conforms(t, schemaFor(t, protocol.ToolList), r.x.List(context.Background(), raw(map[string]any{"bogus": 1})))
	conforms(t, schemaFor(t, protocol.ToolInspect), r.x.Inspect(context.Background(), raw(map[string]any{"workflowId": "wr.auto", "mode": "preview"})))
	conforms(t, schemaFor(t, protocol.ToolInspect), r.x.Inspect(context.Background(), raw(map[string]any{"workflowId": "nope.x"})))

	kinds := map[protocol.Kind]bool{}
	for _, mode := range []string{"wr.modes.guided", "wr.modes.full_auto_never_stop"} {
		res := r.x.Start(context.Background(), raw(map[string]any{"workflowId": "wr.auto", "mode": mode}))
		for i := 0; i < 20; i++ {
			conforms(t, exec, res)
			kinds[res.ResultKind()] = true
			var next any
			switch v := res.(type) {
			case protocol.StepResult:
				next = map[string]any{"stateToken": v.StateToken, "ackToken": v.AckToken}
			case protocol.BlockedResult:
				next = v.NextCall.Arguments
			default:
				i = 20
				continue
			}
			res = r.x.Continue(context.Background(), raw(next))
		}
	}
	conforms(t, exec, r.x.Continue(context.Background(), raw(map[string]any{"stateToken": "st.v1.garbage"})))

	notes := newRig(t, nil)
	session := notes.x.StartSession(context.Background(), raw(map[string]any{"workspacePath": "/w"}))
	conforms(t, schemaFor(t, protocol.ToolStartSession), session)
	conforms(t, schemaFor(t, protocol.ToolStartSession), notes.x.StartSession(context.Background(), raw(map[string]any{"workspacePath": "w"})))
	st := session.(protocol.StepResult)
	cp := schemaFor(t, protocol.ToolCheckpoint)
	conforms(t, cp, notes.x.Checkpoint(context.Background(), raw(map[string]any{"stateToken": st.StateToken, "checkpointToken": st.CheckpointToken, "output": map[string]any{"notesMarkdown": "n"}})))
	conforms(t, cp, notes.x.Checkpoint(context.Background(), raw(map[string]any{"stateToken": st.StateToken, "checkpointToken": st.AckToken, "output": map[string]any{"notesMarkdown": "n"}})))
	kinds[protocol.KindError] = true
	for _, k := range []protocol.Kind{protocol.KindStep, protocol.KindBlocked, protocol.KindComplete} {
		if !kinds[k] {
			t.Errorf("no %s result was checked", k)
		}
	}
}
