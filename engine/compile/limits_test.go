package compile_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/workflow"
)

// unlimited compiles without limits: what a build before them compiled.
var unlimited = compile.Limits{Steps: math.MaxInt, Bytes: math.MaxInt, Prompt: math.MaxInt}

// limitsFile parses testdata/limits/name.
func limitsFile(t *testing.T, name string) workflow.Workflow {
	t.Helper()
	b, err := os.ReadFile("testdata/limits/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return mustParse(t, string(b))
}

// routinesOf finds the routines given by id.
func routinesOf(rs ...workflow.Workflow) func(engine.WorkflowID) (workflow.Workflow, bool) {
	return func(id engine.WorkflowID) (workflow.Workflow, bool) {
		for _, r := range rs {
			if r.ID == id {
				return r, true
			}
		}
		return workflow.Workflow{}, false
	}
}

// overBy is the limit err reports, when it is a *LimitError of kind.
func overBy(err error, kind compile.LimitKind) (*compile.LimitError, bool) {
	var le *compile.LimitError
	return le, errors.As(err, &le) && le.Kind == kind
}

// TestLimitsAtTheirBoundary: each limit, set to what a workflow measures
// (N), lets it through; set to N-1, refuses it with that measure, the
// limit and where the count passed it.
func TestLimitsAtTheirBoundary(t *testing.T) {
	steps := func(c compile.Compiled, _ error) int {
		n := 0
		compile.Walk(c.Steps, func(compile.Node) { n++ })
		return n
	}
	prompts := func(c compile.Compiled, _ error) (total int) {
		compile.Walk(c.Steps, func(n compile.Node) {
			if n.Step != nil {
				total += len(n.Step.Title) + len(n.Step.Prompt)
			}
		})
		return total
	}
	longest := func(c compile.Compiled, _ error) (most int) {
		compile.Walk(c.Steps, func(n compile.Node) {
			if n.Step != nil {
				most = max(most, len(n.Step.Title)+len(n.Step.Prompt))
			}
		})
		return most
	}
	// What the routine calls copy is counted before they are expanded:
	// a limit of 0 bytes reports it.
	copies := func(_ compile.Compiled, err error) int {
		le, _ := overBy(err, compile.LimitCopies)
		return le.Size
	}
	cases := []struct {
		file    string
		kind    compile.LimitKind
		measure func(compile.Compiled, error) int
		set     func(*compile.Limits, int)
		pointer string
	}{
		{"calls.json", compile.LimitSteps, steps, func(l *compile.Limits, n int) { l.Steps = n }, "/steps/3"},
		{"calls.json", compile.LimitCopies, copies, func(l *compile.Limits, n int) { l.Bytes = n }, "/steps/3"},
		{"calls.json", compile.LimitBytes, func(c compile.Compiled, _ error) int { return len(c.Canonical) }, func(l *compile.Limits, n int) { l.Bytes = n }, ""},
		{"calls.json", compile.LimitPrompt, longest, func(l *compile.Limits, n int) { l.Prompt = n }, "/steps/2"},
		{"contract.json", compile.LimitPrompts, prompts, func(l *compile.Limits, n int) { l.Bytes = n }, "/steps/2"},
		{"contract.json", compile.LimitPrompt, longest, func(l *compile.Limits, n int) { l.Prompt = n }, "/steps/0"},
		{"functions.json", compile.LimitPrompts, prompts, func(l *compile.Limits, n int) { l.Bytes = n }, "/steps/2"},
		{"features.json", compile.LimitSteps, steps, func(l *compile.Limits, n int) { l.Steps = n }, ""},
		{"features.json", compile.LimitBytes, func(c compile.Compiled, _ error) int { return len(c.Canonical) }, func(l *compile.Limits, n int) { l.Bytes = n }, ""},
	}
	find := routinesOf(limitsFile(t, "routine.json"))
	for _, tc := range cases {
		t.Run(tc.file+"/"+string(tc.kind), func(t *testing.T) {
			src := limitsFile(t, tc.file)
			compileWithin := func(l compile.Limits) (compile.Compiled, error) {
				c, _, err := compile.CompileWith(src, compile.Options{Routines: find, Limits: l})
				return c, err
			}
			measuring := unlimited
			if tc.kind == compile.LimitCopies {
				measuring.Bytes = 0
				measuring.Steps = math.MaxInt // a zero Limits means the defaults
			}
			n := tc.measure(compileWithin(measuring))
			if n <= 0 {
				t.Fatalf("measured %d", n)
			}
			at := unlimited
			tc.set(&at, n)
			if _, err := compileWithin(at); err != nil {
				if _, over := overBy(err, tc.kind); over || tc.kind == compile.LimitSteps || tc.kind == compile.LimitPrompt {
					t.Fatalf("refused at a limit of %d, its own measure: %v", n, err)
				}
			}
			tc.set(&at, n-1)
			_, err := compileWithin(at)
			le, over := overBy(err, tc.kind)
			if !over {
				t.Fatalf("a limit of %d (%d measured): err = %v; want a %s *LimitError", n-1, n, err, tc.kind)
			}
			if le.Size != n || le.Limit != n-1 || le.Pointer != tc.pointer {
				t.Errorf("LimitError %+v; want size %d, limit %d, pointer %q", le, n, n-1, tc.pointer)
			}
			if !strings.Contains(le.Error(), " to "+compile.Grouped(n)+" ") || !strings.Contains(le.Error(), "over the limit of "+compile.Grouped(n-1)) {
				t.Errorf("message %q does not say what it expands to and the limit", le.Error())
			}
		})
	}
}

// TestDefaultLimits: the limits every workflow is compiled under, each at
// its boundary: MaxSteps steps, a title and prompt of MaxPromptBytes, a
// compiled form of MaxBytes pass; one more is refused.
func TestDefaultLimits(t *testing.T) {
	stepsOf := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, `,{"id":"s%d","title":"S","prompt":"Do it."}`, i)
		}
		return b.String()[1:]
	}
	doc := func(about, steps string) workflow.Workflow {
		return mustParse(t, `{"id":"user.big","name":"Big","description":"d","version":"1","about":`+about+`,"steps":[`+steps+`]}`)
	}
	quoted := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	one := func(prompt string) string { return `{"id":"s","title":"S","prompt":` + quoted(prompt) + `}` }
	base, err := compile.Compile(doc(`"a"`, one("x")))
	if err != nil {
		t.Fatal(err)
	}
	// The about text is pinned as it is: each byte of it is one more.
	filler := strings.Repeat("a", compile.MaxBytes-len(base.Canonical)+1)
	cases := []struct {
		name       string
		fits, over workflow.Workflow
		kind       compile.LimitKind
	}{
		{"steps", doc(`""`, stepsOf(compile.MaxSteps)), doc(`""`, stepsOf(compile.MaxSteps+1)), compile.LimitSteps},
		{"prompt", doc(`""`, one(strings.Repeat("p", compile.MaxPromptBytes-len("S")))), doc(`""`, one(strings.Repeat("p", compile.MaxPromptBytes-len("S")+1))), compile.LimitPrompt},
		{"bytes", doc(quoted(filler), one("x")), doc(quoted(filler+"a"), one("x")), compile.LimitBytes},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := compile.Compile(tc.fits); err != nil {
				t.Fatalf("at the limit: %v", err)
			}
			_, err := compile.Compile(tc.over)
			if _, over := overBy(err, tc.kind); !over {
				t.Fatalf("one over the limit: err = %v; want a %s *LimitError", err, tc.kind)
			}
		})
	}
}

// TestBombsAreCountedNotBuilt: workflows that repeat a long text in
// every step are refused having allocated a small part of what they
// would build (each would build hundreds of megabytes): routine calls
// are counted before they are expanded, and prompts measured before
// they are written.
func TestBombsAreCountedNotBuilt(t *testing.T) {
	long := strings.Repeat("Look at every file once more. ", 200_000/30) // 200 KB
	quoted := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	routine := func(steps string) workflow.Workflow {
		return mustParse(t, `{"id":"user.r","kind":"routine","name":"R","description":"d","version":"1","steps":[`+steps+`]}`)
	}
	calls := func(n int, step string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, `,`+step, i)
		}
		return b.String()[1:]
	}
	doc := func(extra, steps string) workflow.Workflow {
		return mustParse(t, `{"id":"user.bomb","name":"Bomb","description":"d","version":"1"`+extra+`,"steps":[`+steps+`]}`)
	}
	criteria := `[` + strings.Repeat(`{"type":"contains","value":"evidence","message":"Cite the evidence."},`, 3000) + `{"type":"length","min":1,"message":"Write something."}]`
	inList := `[` + strings.Repeat(`"an allowed value",`, 10_000) + `"x"]`
	cases := []struct {
		name    string
		src     workflow.Workflow
		routine workflow.Workflow
		kind    compile.LimitKind
	}{
		{"3,000 calls of a long routine", doc("", calls(3000, `{"id":"c%d","title":"C","template":{"id":"user.r"}}`)),
			routine(`{"id":"s","title":"S","prompt":` + quoted(long) + `}`), compile.LimitSteps},
		{"arguments written into a long text", doc("", calls(900, `{"id":"c%d","title":"C","template":{"id":"user.r","args":{"topic":"x"}}}`)),
			routine(`{"id":"s","title":"S","prompt":` + quoted(long+"{topic}") + `}`), compile.LimitCopies},
		{"a long routine shared by 900 calls", doc("", calls(900, `{"id":"c%d","title":"C","template":{"id":"user.r"}}`)),
			routine(`{"id":"s","title":"S","prompt":` + quoted(long) + `}`), compile.LimitPrompts},
		{"notes checks repeated by every call", doc("", calls(900, `{"id":"c%d","title":"C","template":{"id":"user.r"}}`)),
			routine(`{"id":"s","title":"S","prompt":"p","validationCriteria":` + criteria + `}`), compile.LimitCopies},
		{"a caller's condition on every step of its routine", doc(`,"context":[{"name":"v","type":"string","description":"d"}]`,
			`{"id":"c","title":"C","runCondition":{"var":"v","in":`+inList+`},"template":{"id":"user.r"}}`),
			routine(calls(900, `{"id":"s%d","title":"S","prompt":"p"}`)), compile.LimitCopies},
		{"a function every step references", doc(`,"functionDefinitions":[{"name":"f","definition":`+quoted(long)+`}]`,
			calls(900, `{"id":"s%d","title":"S","prompt":"p","functionReferences":["f"]}`)), workflow.Workflow{}, compile.LimitPrompts},
		{"a contract every step repeats", doc(`,"contracts":{"user.c":{"description":`+quoted(long)+`,"schema":{"type":"object"},"example":{"kind":"user.c"}}}`,
			calls(900, `{"id":"s%d","title":"S","prompt":"p","output":{"contractRef":"user.c"}}`)), workflow.Workflow{}, compile.LimitPrompts},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, _, err := compile.CompileWith(tc.src, compile.Options{Routines: routinesOf(tc.routine)})
			runtime.ReadMemStats(&after)
			if _, over := overBy(err, tc.kind); !over {
				t.Fatalf("err = %v; want a %s *LimitError", err, tc.kind)
			}
			if built := after.TotalAlloc - before.TotalAlloc; built > 32<<20 {
				t.Errorf("refused after allocating %d MiB; the limits are 4 MiB", built>>20)
			}
		})
	}
}
