package protocol_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/protocol"
)

const promptedWorkflow = `{"id":"user.prompted","name":"Prompted","description":"Takes typed inputs.","version":"1",
 "context":[{"name":"topic","type":"string","required":true,"description":"What to look at."},
            {"name":"rounds","type":"integer","required":true,"description":"How many rounds."},
            {"name":"ratio","type":"number","description":"A ratio."},
            {"name":"strict","type":"boolean","description":"Be strict."},
            {"name":"files","type":"array","description":"Files."},
            {"name":"depth","type":"string","enum":["quick","deep"],"description":"How deep."},
            {"name":"mood","type":"string","enum":["calm","busy"],"description":"The mood.","lenient":true},
            {"name":"done","type":"boolean","description":"Send true once it is done.","setDuringRun":true}],
 "steps":[{"id":"one","title":"One","prompt":"Go."}]}`

const routine = `{"id":"user.helper","kind":"routine","name":"Helper","description":"A routine.","version":"1",
 "steps":[{"id":"r","title":"R","prompt":"Help."}]}`

func promptCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	var entries []catalog.Entry
	for name, src := range map[string]string{"prompted.json": promptedWorkflow, "helper.json": routine} {
		e, p := catalog.Load([]byte(src), catalog.Source{Kind: catalog.User, Path: "/home/u/workflows"}, name)
		if p != nil {
			t.Fatalf("%s: %v", name, p)
		}
		entries = append(entries, e)
	}
	return catalog.New(entries, nil)
}

// Every startable workflow is a prompt with its inputs as arguments (not
// those set during the run), the type told where the argument's text is
// read as JSON; routines are not prompts.
func TestPromptsListWorkflowsNotRoutines(t *testing.T) {
	ps := protocol.Prompts(promptCatalog(t))
	if len(ps) != 1 || ps[0].Name != "user.prompted" || ps[0].Title != "Prompted" || ps[0].Description != "Takes typed inputs." {
		t.Fatalf("prompts %+v", ps)
	}
	want := []protocol.PromptArgument{
		{Name: "topic", Description: "What to look at.", Required: true},
		{Name: "rounds", Description: "How many rounds. (an integer, e.g. 3)", Required: true},
		{Name: "ratio", Description: "A ratio. (a number, e.g. 2.5)"},
		{Name: "strict", Description: "Be strict. (true or false)"},
		{Name: "files", Description: `Files. (an array, written as JSON: ["a","b"])`},
		{Name: "depth", Description: "How deep. (one of quick, deep)"},
		{Name: "mood", Description: "The mood. (one of calm, busy)"},
	}
	if len(ps[0].Arguments) != len(want) {
		t.Fatalf("arguments %+v, want %+v", ps[0].Arguments, want)
	}
	for i, a := range ps[0].Arguments {
		if a != want[i] {
			t.Errorf("argument %d: %+v, want %+v", i, a, want[i])
		}
	}
}

func TestPromptMessage(t *testing.T) {
	e, _ := promptCatalog(t).Get("user.prompted")
	tests := []struct {
		name      string
		args      map[string]string
		workspace string
		want      string // in the message's start call
		code      engine.Code
	}{
		{"required only", map[string]string{"topic": "the cache", "rounds": "2"}, "",
			`{"context":{"rounds":2,"topic":"the cache"},"workflowId":"user.prompted"}`, ""},
		{"typed values parse as JSON", map[string]string{"topic": "x", "rounds": "3", "ratio": "0.5", "strict": "false", "files": `["a.go"]`, "depth": "deep"}, "/w",
			`{"context":{"depth":"deep","files":["a.go"],"ratio":0.5,"rounds":3,"strict":false,"topic":"x"},"workflowId":"user.prompted","workspacePath":"/w"}`, ""},
		{"an empty optional argument is left out", map[string]string{"topic": "x", "rounds": "1", "ratio": " "}, "",
			`{"context":{"rounds":1,"topic":"x"},"workflowId":"user.prompted"}`, ""},
		{"a string keeps its text", map[string]string{"topic": `{"not":"json"}`, "rounds": "1"}, "",
			`{"context":{"rounds":1,"topic":"{\"not\":\"json\"}"},"workflowId":"user.prompted"}`, ""},
		{"missing required", map[string]string{"topic": "x"}, "", "", engine.CodeInvalidInput},
		{"not an integer", map[string]string{"topic": "x", "rounds": "2.5"}, "", "", engine.CodeInvalidInput},
		{"not a boolean", map[string]string{"topic": "x", "rounds": "1", "strict": "yes"}, "", "", engine.CodeInvalidInput},
		{"not an array", map[string]string{"topic": "x", "rounds": "1", "files": "a.go"}, "", "", engine.CodeInvalidInput},
		{"two values", map[string]string{"topic": "x", "rounds": "1 2"}, "", "", engine.CodeInvalidInput},
		{"unknown argument", map[string]string{"topic": "x", "rounds": "1", "colour": "red"}, "", "", engine.CodeInvalidInput},
		{"an input set during the run", map[string]string{"topic": "x", "rounds": "1", "done": "true"}, "", "", engine.CodeInvalidInput},
		{"outside the enum", map[string]string{"topic": "x", "rounds": "1", "depth": "bottomless"}, "", "", engine.CodeInvalidInput},
		{"the enum's case matters", map[string]string{"topic": "x", "rounds": "1", "depth": "Deep"}, "", "", engine.CodeInvalidInput},
		{"an integer past 2^53", map[string]string{"topic": "x", "rounds": "9007199254740993"}, "", "", engine.CodeInvalidInput},
		{"a number past a double", map[string]string{"topic": "x", "rounds": "1", "ratio": "1e400"}, "", "", engine.CodeInvalidInput},
		{"a lenient input's values are folded at start, not refused", map[string]string{"topic": "x", "rounds": "1", "mood": "Calm"}, "",
			`{"context":{"mood":"Calm","rounds":1,"topic":"x"},"workflowId":"user.prompted"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, err := protocol.PromptMessage(e, tt.args, tt.workspace)
			if tt.args["depth"] != "" && err != nil && !strings.Contains(err.Message, "send one of quick, deep") {
				t.Errorf("a value outside the enum is refused without the allowed values: %s", err.Message)
			}
			if tt.code != "" {
				if err == nil || err.Code != tt.code || err.Details["argument"] == nil {
					t.Fatalf("error %v, want %s naming the argument", err, tt.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			_, block, _ := strings.Cut(msg, "```json\n")
			block, _, _ = strings.Cut(block, "```")
			var got bytes.Buffer
			if err := json.Compact(&got, []byte(block)); err != nil || got.String() != tt.want {
				t.Errorf("start call %s (%v)\nwant       %s", got.String(), err, tt.want)
			}
			if !strings.Contains(msg, "`start_workflow`") || !strings.Contains(msg, `"user.prompted" (Prompted)`) {
				t.Errorf("message:\n%s", msg)
			}
		})
	}
}
