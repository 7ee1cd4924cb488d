package workflow_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/workflow"
)

// doc builds a workflow document from a base with some top-level keys
// replaced: the table below states only what is wrong.
func doc(t *testing.T, overrides map[string]string) []byte {
	t.Helper()
	base := map[string]json.RawMessage{
		"id": json.RawMessage(`"user.sample"`), "name": json.RawMessage(`"Sample"`),
		"description": json.RawMessage(`"d"`), "version": json.RawMessage(`"1"`),
		"context": json.RawMessage(`[{"name":"depth","type":"string","enum":["quick","deep"],"description":"how deep"},
			{"name":"files","type":"array","description":"files"},{"name":"n","type":"integer","description":"count"}]`),
		"steps": json.RawMessage(`[{"id":"a","title":"A","prompt":"do a"}]`),
	}
	for k, v := range overrides {
		if v == "" {
			delete(base, k)
			continue
		}
		base[k] = json.RawMessage(v)
	}
	b, err := json.MarshalIndent(base, "", "  ")
	if err != nil {
		t.Fatalf("bad test document: %v", err)
	}
	return b
}

func TestParseRejects(t *testing.T) {
	cases := []struct {
		name       string
		overrides  map[string]string
		raw        string // used instead of overrides when set
		pointer    string
		message    string
		didYouMean string
	}{
		{name: "malformed JSON", raw: `{"id": "user.x",`, message: "invalid JSON"},
		{name: "trailing data", raw: `{} {}`, message: "trailing data"},
		{name: "not UTF-8", raw: "{\"id\": \"user.x\",\n \"name\": \"caf\xe9\"}", message: "not valid UTF-8"},
		{name: "not an object", raw: `[1]`, message: "must be an object"},
		{name: "unknown top-level key", overrides: map[string]string{"variables": `{}`}, pointer: "/variables", message: "unknown key"},
		{name: "misspelt key", overrides: map[string]string{"descripton": `"x"`}, pointer: "/descripton", didYouMean: "description"},
		{name: "missing id", overrides: map[string]string{"id": ""}, pointer: "/id", message: "namespace.name"},
		{name: "bad id", overrides: map[string]string{"id": `"User.X"`}, pointer: "/id", message: "namespace.name"},
		{name: "two dots", overrides: map[string]string{"id": `"a.b.c"`}, pointer: "/id"},
		{name: "empty steps", overrides: map[string]string{"steps": `[]`}, pointer: "/steps", message: "at least one step"},
		{name: "wrong type", overrides: map[string]string{"steps": `[{"id":"a","title":"A","prompt":"p","requireConfirmation":"yes"}]`}, pointer: "/steps/0/requireConfirmation", message: "true, false or a condition"},
		{name: "duplicate step ids", overrides: map[string]string{"steps": `[{"id":"a","title":"A","prompt":"p"},{"id":"a","title":"B","prompt":"q"}]`}, pointer: "/steps/1/id", message: "duplicate"},
		{name: "reserved step id", overrides: map[string]string{"steps": `[{"id":"wr-x","title":"A","prompt":"p"}]`}, pointer: "/steps/0/id", message: "reserved"},
		{name: "prompt and blocks", overrides: map[string]string{"steps": `[{"id":"a","title":"A","prompt":"p","promptBlocks":{"goal":"g"}}]`}, pointer: "/steps/0", message: "exactly one of prompt"},
		{name: "no prompt", overrides: map[string]string{"steps": `[{"id":"a","title":"A"}]`}, pointer: "/steps/0", message: "exactly one of prompt"},
		{name: "blocks without goal", overrides: map[string]string{"steps": `[{"id":"a","title":"A","promptBlocks":{"procedure":["x"]}}]`}, pointer: "/steps/0/promptBlocks/goal"},
		{name: "loop without maxIterations", overrides: map[string]string{"steps": `[{"id":"l","title":"L","loop":{"kind":"for","count":2},"body":[{"id":"a","title":"A","prompt":"p"}]}]`}, pointer: "/steps/0/loop/maxIterations", message: "maxIterations"},
		{name: "loop over the bound", overrides: map[string]string{"steps": `[{"id":"l","title":"L","loop":{"kind":"for","count":2,"maxIterations":101},"body":[{"id":"a","title":"A","prompt":"p"}]}]`}, pointer: "/steps/0/loop/maxIterations", message: "between 1 and 100"},
		{name: "while without condition", overrides: map[string]string{"steps": `[{"id":"l","title":"L","loop":{"kind":"while","maxIterations":3},"body":[{"id":"a","title":"A","prompt":"p"}]}]`}, pointer: "/steps/0/loop/condition"},
		{name: "for with condition", overrides: map[string]string{"steps": `[{"id":"l","title":"L","loop":{"kind":"for","count":1,"maxIterations":3,"condition":{"var":"n","exists":true}},"body":[{"id":"a","title":"A","prompt":"p"}]}]`}, pointer: "/steps/0/loop/condition", message: "does not apply"},
		{name: "forEach over a string", overrides: map[string]string{"steps": `[{"id":"l","title":"L","loop":{"kind":"forEach","over":"depth","as":"f","maxIterations":3},"body":[{"id":"a","title":"A","prompt":"p"}]}]`}, pointer: "/steps/0/loop/over", message: "array"},
		{name: "empty loop body", overrides: map[string]string{"steps": `[{"id":"l","title":"L","loop":{"kind":"for","count":1,"maxIterations":3},"body":[]}]`}, pointer: "/steps/0/body"},
		{name: "undeclared variable", overrides: map[string]string{"steps": `[{"id":"a","title":"A","prompt":"p","runCondition":{"var":"dept","equals":"quick"}}]`}, pointer: "/steps/0/runCondition/var", didYouMean: "depth"},
		{name: "value outside enum", overrides: map[string]string{"steps": `[{"id":"a","title":"A","prompt":"p","runCondition":{"var":"depth","equals":"medium"}}]`}, pointer: "/steps/0/runCondition/equals", message: "allowed values"},
		{name: "wrong operand type", overrides: map[string]string{"steps": `[{"id":"a","title":"A","prompt":"p","runCondition":{"var":"n","equals":"3"}}]`}, pointer: "/steps/0/runCondition/equals", message: "want integer"},
		{name: "gt on a string", overrides: map[string]string{"steps": `[{"id":"a","title":"A","prompt":"p","runCondition":{"var":"depth","gt":3}}]`}, pointer: "/steps/0/runCondition/gt", message: "compares numbers"},
		{name: "two operators", overrides: map[string]string{"steps": `[{"id":"a","title":"A","prompt":"p","runCondition":{"var":"n","gt":1,"lt":3}}]`}, pointer: "/steps/0/runCondition", message: "exactly one operator"},
		{name: "nested bad condition", overrides: map[string]string{"steps": `[{"id":"a","title":"A","prompt":"p","runCondition":{"and":[{"var":"n","gt":1},{"not":{"var":"zz","exists":true}}]}}]`}, pointer: "/steps/0/runCondition/and/1/not/var", message: "not declared"},
		{name: "choice without choiceKind", overrides: map[string]string{"steps": `[{"id":"a","title":"A","prompt":"p","userDependency":{"reason":"needs_user_choice","summary":"s","requestedFromUser":"r"}}]`}, pointer: "/steps/0/userDependency/choiceKind", message: "requires choiceKind"},
		{name: "unknown dependency reason", overrides: map[string]string{"steps": `[{"id":"a","title":"A","prompt":"p","userDependency":{"reason":"needs_user_secret","summary":"s","requestedFromUser":"r"}}]`}, pointer: "/steps/0/userDependency/reason", didYouMean: "needs_user_secret_or_token"},
		{name: "unknown feature", overrides: map[string]string{"features": `["wr.features.durable_note"]`}, pointer: "/features/0", didYouMean: "wr.features.durable_notes"},
		{name: "unknown contract pack", overrides: map[string]string{"steps": `[{"id":"a","title":"A","prompt":"p","output":{"contractRef":"wr.contracts.gap"}}]`}, pointer: "/steps/0/output/contractRef", didYouMean: "wr.contracts.gaps"},
		{name: "unknown template", overrides: map[string]string{"steps": `[{"id":"a","title":"A","template":{"id":"wr.templates.probe"}}]`}, pointer: "/steps/0/template/id"},
		{name: "probe without capability", overrides: map[string]string{"steps": `[{"id":"a","title":"A","template":{"id":"wr.templates.capability_probe","args":{}}}]`}, pointer: "/steps/0/template/args/capability"},
		{name: "unknown capability", overrides: map[string]string{"capabilities": `{"browsing":"required"}`}, pointer: "/capabilities/browsing", didYouMean: ""},
		{name: "bad need", overrides: map[string]string{"capabilities": `{"delegation":"always"}`}, pointer: "/capabilities/delegation"},
		{name: "bad autonomy", overrides: map[string]string{"recommendedPreferences": `{"autonomy":"auto"}`}, pointer: "/recommendedPreferences/autonomy"},
		{name: "enum of wrong type", overrides: map[string]string{"context": `[{"name":"n","type":"integer","enum":["a"],"description":"x"}]`}, pointer: "/context/0/enum/0"},
		{name: "bad kind", overrides: map[string]string{"kind": `"macro"`}, pointer: "/kind"},
		{name: "number out of range", overrides: map[string]string{"context": `[{"name":"n","type":"number","enum":[1,1e400],"description":"x"}]`}, pointer: "/context/0/enum/1", message: "range of an IEEE-754 double"},
		{name: "integer past 2^53", overrides: map[string]string{"context": `[{"name":"n","type":"integer","enum":[9007199254740993],"description":"x"}]`}, pointer: "/context/0/enum/0", message: "larger than 2^53"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := []byte(c.raw)
			if c.raw == "" {
				src = doc(t, c.overrides)
			}
			w, err := workflow.Parse(src)
			if err == nil {
				t.Fatalf("Parse accepted it: %+v", w)
			}
			problems, ok := err.(workflow.Problems)
			if !ok || len(problems) == 0 {
				t.Fatalf("error %T %v; want Problems", err, err)
			}
			for _, p := range problems {
				if p.Pointer == c.pointer && strings.Contains(p.Message, c.message) && p.DidYouMean == c.didYouMean {
					if p.Line == 0 {
						t.Errorf("problem %v has no line", p)
					}
					return
				}
			}
			t.Fatalf("no problem at %q containing %q (didYouMean %q); got:\n%v", c.pointer, c.message, c.didYouMean, problems)
		})
	}
}

func TestParseAcceptsAFullDocument(t *testing.T) {
	src := doc(t, map[string]string{
		"kind":         `"routine"`,
		"agentRole":    `"a careful engineer"`,
		"features":     `["wr.features.final_review","wr.features.durable_notes"]`,
		"capabilities": `{"web_browsing":"preferred","delegation":"required"}`,
		"steps": `[
			{"id":"a","title":"A","promptBlocks":{"goal":"g","constraints":["c"],"procedure":["p"],"outputRequired":["o"],"verify":["v"]},
			 "runCondition":{"or":[{"var":"depth","in":["quick","deep"]},{"var":"n","gte":2}]},"requireConfirmation":true,
			 "output":{"contractRef":"wr.contracts.gaps","hints":["short"]},
			 "userDependency":{"reason":"needs_user_choice","choiceKind":"scope_boundary","summary":"s","requestedFromUser":"r","options":["x","y"]}},
			{"id":"each","title":"Each file","loop":{"kind":"forEach","over":"files","as":"file","maxIterations":10},
			 "body":[{"id":"b","title":"B","prompt":"look"}]},
			{"id":"probe","title":"Probe","template":{"id":"wr.templates.capability_probe","args":{"capability":"web_browsing"}}}]`,
	})
	w, err := workflow.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Steps) != 3 || w.Steps[1].Loop == nil || w.Steps[1].Loop.Body[0].Step.ID != "b" || w.Kind != workflow.KindRoutine {
		t.Fatalf("parsed %+v", w)
	}
}

func TestProblemLineAndColumn(t *testing.T) {
	src := []byte("{\n  \"id\": \"user.x\",\n  \"name\": \"x\",\n  \"description\": \"d\",\n  \"version\": \"1\",\n  \"stepz\": [],\n  \"steps\": [{\"id\": \"a\", \"title\": \"A\", \"prompt\": \"p\", \"runCondition\": {\"var\": \"q\", \"exists\": true}}]\n}")
	_, err := workflow.Parse(src)
	got := err.(workflow.Problems)
	want := []string{"6:3: /stepz: unknown key \"stepz\" (did you mean \"steps\"?)",
		"7:71: /steps/0/runCondition/var: condition reads \"q\", which is not declared in context: declare it so agents are told to send it"}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i].String() != want[i] {
			t.Errorf("problem %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}

func TestConditionEval(t *testing.T) {
	ctx := map[string]any{"depth": "deep", "n": json.Number("3"), "f": 2.5, "flag": true, "nothing": nil}
	cases := []struct {
		cond string
		want bool
	}{
		{`{"var":"depth","equals":"deep"}`, true},
		{`{"var":"depth","notEquals":"deep"}`, false},
		{`{"var":"missing","notEquals":"deep"}`, false},
		{`{"var":"depth","in":["quick","deep"]}`, true},
		{`{"var":"n","equals":3.0}`, true},
		{`{"var":"n","gt":2}`, true},
		{`{"var":"n","gte":3}`, true},
		{`{"var":"n","lt":3}`, false},
		{`{"var":"f","lte":2.5}`, true},
		{`{"var":"missing","gt":0}`, false},
		{`{"var":"missing","exists":false}`, true},
		{`{"var":"nothing","exists":true}`, false},
		{`{"var":"flag","equals":true}`, true},
		{`{"and":[{"var":"flag","equals":true},{"var":"n","lt":10}]}`, true},
		{`{"or":[{"var":"missing","exists":true},{"var":"depth","equals":"quick"}]}`, false},
		{`{"not":{"var":"missing","equals":1}}`, true},
	}
	for _, c := range cases {
		var cond workflow.Condition
		if err := json.Unmarshal([]byte(c.cond), &cond); err != nil {
			t.Fatal(err)
		}
		if got := cond.Eval(ctx); got != c.want {
			t.Errorf("%s (%s) = %v; want %v", c.cond, cond, got, c.want)
		}
	}
}

// A syntax error is located at the offending character, not one past it.
func TestSyntaxErrorLocation(t *testing.T) {
	cases := []struct {
		src       string
		line, col int
	}{
		{"{\n  \"version\": \"1\"\n  \"steps\": []\n}", 3, 3}, // comma missing before "steps"
		{"id: team.yaml", 1, 1},
		{"{\"id\": \"user.x\", \"name\": }", 1, 26},
		{"{\"id\": \"user.x\",", 1, 17}, // unexpected end: at the end
	}
	for _, c := range cases {
		_, err := workflow.Parse([]byte(c.src))
		p, ok := err.(workflow.Problems)
		if !ok || len(p) != 1 || p[0].Line != c.line || p[0].Column != c.col {
			t.Errorf("Parse(%q) = %v; want one problem at %d:%d", c.src, err, c.line, c.col)
		}
	}
}
