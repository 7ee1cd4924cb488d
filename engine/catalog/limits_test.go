package catalog_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/compile"
)

// Files of both formats calling a two-step routine, one step a line from
// line 2 on, so that a problem's place can be checked exactly.
const (
	tsRoutine = `{"id":"routine-survey","name":"Survey","version":"1","description":"Surveys {area}.",
"steps":[{"id":"map","title":"Map {area}","prompt":"Map {area}."},{"id":"flag","title":"Flag","prompt":"Flag what is off in {area}."}]}`
	tsCall     = `{"id":"c%d","title":"Call","templateCall":{"templateId":"wr.templates.routine.survey","args":{"area":"the API"}}}`
	ownRoutine = `{"id":"user.survey","kind":"routine","name":"Survey","version":"1","description":"Surveys {area}.",
"steps":[{"id":"map","title":"Map {area}","prompt":"Map {area}."},{"id":"flag","title":"Flag","prompt":"Flag what is off in {area}."}]}`
	ownCall = `{"id":"c%d","title":"Call","template":{"id":"user.survey","args":{"area":"the API"}}}`
	step    = `{"id":"s%d","title":"Step","prompt":%q}`
)

// caller is a workflow file of the given steps, one a line.
func caller(id string, steps []string) []byte {
	return []byte(`{"id":"` + id + `","name":"Caller","version":"1","description":"Calls.","steps":[
` + strings.Join(steps, ",\n") + "\n]}\n")
}

func repeat(format string, n int, arg func(int) any) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(format, arg(i))
	}
	return out
}

func index(i int) any { return i }

// TestOverLimitsIsALocatedProblem: a file that expands past a limit loads
// as a problem saying what it expands to and the limit, at the step where
// the count passed it; one at the limit loads.
func TestOverLimitsIsALocatedProblem(t *testing.T) {
	calls := func(format string, n int) []string { return repeat(format, n, index) }
	longPrompt := func(n int) []string { return []string{fmt.Sprintf(step, 0, strings.Repeat("p", n-len("Step")))} }
	cases := []struct {
		name             string
		routine          string
		fits, over       []string
		message, pointer string
		line             int
	}{
		{"TypeScript format, steps", tsRoutine, calls(tsCall, 500), append(calls(tsCall, 500), fmt.Sprintf(step, 1, "one more")),
			"expands to 1,001 steps once its routine calls are expanded, over the limit of 1,000", "/steps/500", 502},
		{"canonical, steps", ownRoutine, calls(ownCall, 500), append(calls(ownCall, 500), fmt.Sprintf(step, 1, "one more")),
			"expands to 1,001 steps once its routine calls are expanded, over the limit of 1,000", "/steps/500", 502},
		{"canonical, one prompt", ownRoutine, longPrompt(compile.MaxPromptBytes), longPrompt(compile.MaxPromptBytes + 1),
			"step s0: its title and prompt expand to 262,145 bytes, over the limit of 262,144 (256 KiB) for one prompt", "/steps/0", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := catalog.Source{Kind: catalog.Project, Path: "/repo/.workrail/workflows"}
			load := func(steps []string) ([]catalog.Entry, []catalog.LoadProblem) {
				return catalog.LoadSet([]catalog.File{{Name: "routine.json", Data: []byte(tc.routine)},
					{Name: "caller.json", Data: caller("project.caller", steps)}}, src, nil)
			}
			if entries, problems := load(tc.fits); len(entries) != 2 || len(problems) != 0 {
				t.Fatalf("at the limit: %d entries, problems %v", len(entries), problems)
			}
			entries, problems := load(tc.over)
			if len(entries) != 1 || len(problems) != 1 {
				t.Fatalf("over the limit: %d entries, problems %+v", len(entries), problems)
			}
			p := problems[0]
			if p.File != "caller.json" || p.ID != "project.caller" || len(p.Problems) != 1 {
				t.Fatalf("problem %+v", p)
			}
			got := p.Problems[0]
			if !strings.HasPrefix(got.Message, tc.message) || got.Pointer != tc.pointer || got.Line != tc.line || got.Column != 1 {
				t.Errorf("problem %+v; want %q at %s, line %d column 1", got, tc.message, tc.pointer, tc.line)
			}
		})
	}
}
