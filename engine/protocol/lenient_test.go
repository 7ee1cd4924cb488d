package protocol_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
)

// lenientWorkflow declares lenient inputs (as the normalizer synthesizes
// them: no enum) whose spellings and types come from the conditions that
// read them, in every place a condition can sit.
const lenientWorkflow = `{"id":"user.l","name":"L","description":"d","version":"1",
	"context":[
		{"name":"size","type":"string","description":"s","lenient":true},
		{"name":"count","type":"number","description":"c","lenient":true},
		{"name":"flag","type":"boolean","description":"f","lenient":true},
		{"name":"kind","type":"string","description":"k","lenient":true},
		{"name":"strict","type":"string","enum":["Small"],"description":"not lenient"}],
	"steps":[
		{"id":"a","title":"A","prompt":"p","runCondition":{"or":[{"var":"size","equals":"Small"},{"var":"size","in":["Large","x-large"]}]},
		 "requireConfirmation":{"var":"count","gt":2},
		 "promptFragments":[{"id":"f","when":{"var":"flag","equals":true},"text":"t"}]},
		{"id":"l","title":"L","loop":{"kind":"while","condition":{"not":{"var":"kind","equals":"Done"}},"maxIterations":2},"body":[
			{"id":"b","title":"B","prompt":"p","validationCriteria":[{"type":"contains","value":"x","condition":{"var":"kind","equals":"bug"}}]}]}]}`

func TestLenientInputsAreCanonicalised(t *testing.T) {
	var src workflow.Workflow
	if err := json.Unmarshal([]byte(lenientWorkflow), &src); err != nil {
		t.Fatal(err)
	}
	c, err := compile.Compile(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		in, out any
		key     string
		notice  bool
	}{
		{"case folded to the literal", " small ", "Small", "size", true},
		{"case folded among in", "X-LARGE", "x-large", "size", true},
		{"already canonical", "Small", "Small", "size", false},
		{"unmatched text is trimmed", " medium ", "medium", "size", true},
		{"numeric text to a number", " 3 ", json.Number("3"), "count", true},
		{"not a number stays text", "three", "three", "count", false},
		{"yes is true", "Yes", true, "flag", true},
		{"0 is false", "0", false, "flag", true},
		{"a real boolean is kept", true, true, "flag", false},
		{"a literal read in a loop and a criterion condition", "BUG", "bug", "kind", true},
		{"a loop condition's literal", "done", "Done", "kind", true},
		{"values that are not text are kept", map[string]any{"a": 1}, map[string]any{"a": 1}, "size", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := map[string]any{tc.key: tc.in}
			ws, e := protocol.CheckContext(c.Workflow, ctx, false)
			if e != nil {
				t.Fatalf("refused: %v", e)
			}
			if !reflect.DeepEqual(ctx[tc.key], tc.out) {
				t.Fatalf("context.%s = %#v; want %#v", tc.key, ctx[tc.key], tc.out)
			}
			if got := len(ws) == 1 && ws[0].Code == event.NoticeContextValueCanonicalized; got != tc.notice || (!tc.notice && len(ws) > 0) {
				t.Fatalf("warnings %+v; want a notice: %v", ws, tc.notice)
			}
		})
	}
	// Strict inputs are unchanged: the same loose value is refused.
	if _, e := protocol.CheckContext(c.Workflow, map[string]any{"strict": " small "}, false); e == nil {
		t.Fatal("a strict input accepted a value outside its enum")
	}
}

// Under the workrail-ts dialect's rules a value is read as the
// TypeScript WorkRail compares it: a text becomes a number only where a
// condition compares it by equality with a number (in order, gt and the
// like compare numbers only there, and a loop's count is a number or
// nothing), and a number or a boolean compared only with texts becomes
// the one text it equals there ("3" for 3, "yes" for true).
func TestLenientInputsUnderTheTypeScriptRules(t *testing.T) {
	var src workflow.Workflow
	if err := json.Unmarshal([]byte(`{"id":"user.l","name":"L","description":"d","version":"1",
	"context":[
		{"name":"depth","type":"number","description":"d","lenient":true},
		{"name":"score","type":"number","description":"s","lenient":true},
		{"name":"rounds","type":"number","description":"r","lenient":true},
		{"name":"answer","type":"string","description":"a","lenient":true},
		{"name":"tier","type":"string","description":"t","lenient":true}],
	"steps":[
		{"id":"a","title":"A","prompt":"p","runCondition":{"or":[{"var":"depth","gte":2},{"var":"score","equals":3},
			{"var":"answer","in":["yes","later"]},{"var":"tier","equals":"2"}]}},
		{"id":"l","title":"L","loop":{"kind":"for","countVar":"rounds","maxIterations":3},"body":[{"id":"b","title":"B","prompt":"p"}]}]}`), &src); err != nil {
		t.Fatal(err)
	}
	c, _, err := compile.CompileWith(src, compile.Options{Dialect: compile.DialectTS})
	if err != nil {
		t.Fatal(err)
	}
	if !c.TSRules() {
		t.Fatal("a workflow compiled in the dialect does not run under its rules")
	}
	for _, tc := range []struct {
		name    string
		key     string
		in, out any
	}{
		{"compared in order, a text stays a text", "depth", "2", "2"},
		{"a count, a text stays a text", "rounds", "3", "3"},
		{"compared by equality with a number, it is one", "score", " 3 ", json.Number("3")},
		{"true equals yes among texts", "answer", true, "yes"},
		{"a number equals its text", "tier", json.Number("2"), "2"},
		{"a number equal to no text is kept", "tier", json.Number("5"), json.Number("5")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := map[string]any{tc.key: tc.in}
			ws, e := protocol.CheckContext(c.Workflow, ctx, false)
			if e != nil {
				t.Fatalf("refused: %v", e)
			}
			if !reflect.DeepEqual(ctx[tc.key], tc.out) {
				t.Fatalf("context.%s = %#v; want %#v", tc.key, ctx[tc.key], tc.out)
			}
			if changed := !reflect.DeepEqual(tc.in, tc.out); changed != (len(ws) == 1) {
				t.Fatalf("warnings %+v for a value changed: %v", ws, changed)
			}
		})
	}
}
