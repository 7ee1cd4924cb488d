package run_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

func TestSubstitute(t *testing.T) {
	scope := map[string]any{"branch": "main", "slice": map[string]any{"name": "auth", "files": []any{"a.go", "b.go"}},
		"n": json.Number("3"), "ok": true, "empty": nil}
	for _, tc := range []struct{ in, want string }{
		{"no references", "no references"},
		{"on {{branch}}", "on main"},
		{"{{ branch }} and {{slice.name}}", "main and auth"},
		{"first {{slice.files.0}}, all {{slice.files}}", `first a.go, all ["a.go","b.go"]`},
		{"n={{n}} ok={{ok}}", "n=3 ok=true"},
		{"{{slice}}", `{"files":["a.go","b.go"],"name":"auth"}`},
		{"{{missing}} {{slice.owner}} {{slice.files.7}} {{empty}}", "[unset: missing] [unset: slice.owner] [unset: slice.files.7] [unset: empty]"},
		{"{{wr.refs.x}} stays", "{{wr.refs.x}} stays"},
		{"{{not a reference}} {single}", "{{not a reference}} {single}"},
	} {
		if got := run.Substitute(tc.in, scope); got != tc.want {
			t.Errorf("Substitute(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

func mustRender(t *testing.T, c compile.Compiled, s run.Snapshot, p run.Place) run.Rendered {
	t.Helper()
	r, err := run.Render(c, s, p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Render decides the prompt, title and confirmation from the snapshot:
// fragments whose conditions hold (in declaration order, loop variables
// included), {{}} references, delegations whose conditions hold, and the
// notes and assessment requirements.
func TestRender(t *testing.T) {
	const wf = `"notes":"required","context":[{"name":"depth","type":"string","description":"d"},{"name":"risky","type":"boolean","description":"r"}],
		"assessments":[{"id":"quality","purpose":"How good the work is.","dimensions":[{"id":"coverage","purpose":"Tests cover the change","levels":["low","high"]}]}],`
	cases := []struct {
		name, step string
		ctx        map[string]any
		title      string
		prompt     string
		confirm    bool
	}{
		{name: "plain step unchanged", step: `{"id":"a","title":"A","prompt":"Do it.\n"}`,
			title: "A", prompt: "Notes are required at this step: write in output.notesMarkdown what you did and what you found.", confirm: false},
		{name: "fragments and templates", step: `{"id":"a","title":"Review {{depth}}","prompt":"Review at {{depth}} depth.","notesOptional":true,
			"promptFragments":[{"id":"deep","when":{"var":"depth","equals":"deep"},"text":"Read every file."},{"id":"always","text":"Cite lines."},{"id":"quick","when":{"var":"depth","equals":"quick"},"text":"Skim."}]}`,
			ctx: map[string]any{"depth": "deep"}, title: "Review deep", prompt: "Review at deep depth.\n\nRead every file.\n\nCite lines."},
		{name: "confirmation as a condition that holds", step: `{"id":"a","title":"A","prompt":"p","notesOptional":true,"requireConfirmation":{"var":"risky","equals":true}}`,
			ctx: map[string]any{"risky": true}, title: "A", prompt: "p", confirm: true},
		{name: "confirmation as a condition that does not", step: `{"id":"a","title":"A","prompt":"p","notesOptional":true,"requireConfirmation":{"var":"risky","equals":true}}`,
			ctx: map[string]any{"risky": false}, title: "A", prompt: "p", confirm: false},
		{name: "criteria listed when their conditions hold", step: `{"id":"a","title":"A","prompt":"p","validationCriteria":[
			{"type":"contains","value":"Root cause","message":"Name the root cause"},
			{"type":"length","min":40,"condition":{"var":"depth","equals":"deep"}},
			{"type":"regex","pattern":"^## ","flags":"m","condition":{"var":"depth","equals":"quick"}}]}`,
			ctx: map[string]any{"depth": "deep"}, title: "A",
			prompt: "p\n\nYour notes (output.notesMarkdown) must:\n- contain \"Root cause\" (Name the root cause)\n- be at least 40 characters long"},
		{name: "assessment requirements", step: `{"id":"a","title":"A","prompt":"p","assessmentRefs":["quality"],
			"assessmentConsequences":[{"when":{"anyEqualsLevel":"low"},"effect":{"kind":"require_followup","guidance":"Add tests."}}]}`,
			title: "A", prompt: "p\n\nAssessment: add to output.artifacts one wr.assessment artifact, rating every dimension with exactly one of its levels, as you judge it:\n" +
				"- quality: How good the work is.\n  - coverage: Tests cover the change. Levels: low | high\n" +
				`Shaped like this, each <<fill: …>> replaced by your rating: {"kind":"wr.assessment","dimensions":{"coverage":"<<fill: coverage: one of low | high>>"},"summary":"<<fill: (optional) one line: why these ratings>>"}` + "\n" +
				"Rate honestly: some ratings keep this step pending for a follow-up."},
		{name: "delegations whose conditions hold", step: `{"id":"a","title":"A","notesOptional":true,"parallelDelegations":[
			{"workflowId":"wr.routine-review","goal":"Review the {{depth}} way","contextMapping":{"mode":"depth","owner":"nobody"},"args":{"family":"security"},"allowedTools":["read","grep"]},
			{"workflowId":"wr.routine-other","runCondition":{"var":"risky","equals":true}}]}`,
			ctx: map[string]any{"depth": "deep", "risky": false}, title: "A",
			prompt: "Delegate: start each piece of work below as a subagent (in parallel when you can), each running the named workflow with start_workflow and the inputs given as its context. Wait for all of them, then merge what they found into your notes.\n" +
				`1. Workflow wr.routine-review. Goal: Review the deep way. Inputs: {"family":"security","mode":"deep","owner":"[unset: nobody]"}. Allowed tools: read, grep.`},
		{name: "no delegation applies", step: `{"id":"a","title":"A","notesOptional":true,"parallelDelegations":[{"workflowId":"wr.routine-other","runCondition":{"var":"risky","equals":true}}]}`,
			title: "A", prompt: "No delegation applies at this point: continue with this step yourself, without starting any subagent."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := canonical(t, wf, "["+tc.step+"]")
			m, err := run.Start(c, tc.ctx, workflow.Preferences{})
			if err != nil {
				t.Fatal(err)
			}
			p, _ := run.PendingStep(c, m.Snapshot)
			r := mustRender(t, c, m.Snapshot, p)
			want := run.Rendered{Title: tc.title, Prompt: tc.prompt, RequireConfirmation: tc.confirm}
			if tc.name == "plain step unchanged" {
				want.Prompt = "Do it.\n\n" + tc.prompt
			}
			if r != want {
				t.Fatalf("Render =\n%q\n%q %v\nwant\n%q\n%q %v", r.Title, r.Prompt, r.RequireConfirmation, want.Title, want.Prompt, want.RequireConfirmation)
			}
		})
	}
}

// Inside a loop, fragments and references read the loop's variables, and
// the same snapshot always renders the same bytes.
func TestRenderInsideLoops(t *testing.T) {
	c := canonical(t, `"context":[{"name":"slices","type":"array","description":"s"}],`, `[{"id":"l","title":"Slices","loop":{"kind":"forEach","over":"slices","as":"slice","indexVar":"i","maxIterations":5},"body":[
		{"id":"impl","title":"Slice {{i}}: {{slice.name}}","prompt":"Implement {{slice.name}} ({{currentIteration}} of the slices).",
		 "promptFragments":[{"id":"first","when":{"var":"i","equals":0},"text":"Set up the branch first."},{"id":"later","when":{"var":"i","gt":0},"text":"Rebase on slice {{i}}'s predecessor."}]}]}]`)
	m, err := run.Start(c, map[string]any{"slices": []any{map[string]any{"name": "auth"}, map[string]any{"name": "api"}}}, workflow.Preferences{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for m.Snapshot.Position.Kind == run.Pending {
		p, _ := run.PendingStep(c, m.Snapshot)
		r := mustRender(t, c, m.Snapshot, p)
		if again := mustRender(t, c, m.Snapshot, p); again != r {
			t.Fatalf("two renders of one snapshot differ: %+v / %+v", r, again)
		}
		got = append(got, r.Title+" | "+r.Prompt)
		if m, err = run.Advance(c, m.Snapshot, nil, false); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		"Slice 0: auth | Implement auth (1 of the slices).\n\nSet up the branch first.",
		"Slice 1: api | Implement api (2 of the slices).\n\nRebase on slice 1's predecessor.",
	}
	if strings.Join(got, "\n---\n") != strings.Join(want, "\n---\n") {
		t.Fatalf("renders:\n%s\nwant:\n%s", strings.Join(got, "\n---\n"), strings.Join(want, "\n---\n"))
	}
}

// TestLoopGuidance: under the workrail-ts dialect's rules a step of a
// loop's body is told of its pass as the TypeScript WorkRail tells it:
// what ends the loop on the first pass; then the pass of how many, what
// to look at (what the first pass missed; gaps and regressions; on the
// last, whether the earlier changes landed); nothing on the deciding step
// or in a forEach loop, and nothing in a canonical file.
func TestLoopGuidance(t *testing.T) {
	work := `{"id":"w","title":"Work","prompt":"Work."}`
	decide := `{"id":"d","title":"Decide","prompt":"Decide.","output":{"contractRef":"wr.contracts.loop_control"}}`
	for _, tc := range []struct {
		name, loop string
		ts         bool
		want       []string // per pass of w, what its prompt opens with ("" for nothing)
		decision   bool
	}{
		{"a loop its deciding step drives", `{"kind":"while","maxIterations":4},"body":[` + work + `,` + decide + `]`, true, []string{
			"This step is in a loop of at most 4 passes: after your work, the loop's deciding step says whether another pass is needed.",
			"Pass 2 of at most 4. Look for what the first pass missed; do not reopen what it settled.",
			"Pass 3 of at most 4. Expect less to find now: look at gaps and regressions, not new ground.",
			"Pass 4 of at most 4. This is the last pass: check that the changes of the earlier passes landed correctly"}, true},
		{"a counted loop", `{"kind":"for","count":3,"maxIterations":5},"body":[` + work + `]`, true, []string{
			"This is pass 1 of 3 of a loop: the same work is done again in each pass.",
			"Pass 2 of 3. Look for what the first pass missed",
			"Pass 3 of 3. This is the last pass"}, false},
		{"a forEach loop", `{"kind":"forEach","over":"items","as":"it","maxIterations":5},"body":[` + work + `]`, true, []string{"", ""}, false},
		{"a canonical file", `{"kind":"for","count":2,"maxIterations":2},"body":[` + work + `]`, false, []string{"", ""}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dialect(t, tc.ts, `[{"id":"l","title":"L","loop":`+tc.loop+`}]`)
			m, err := run.Start(c, map[string]any{"items": []any{"a", "b"}}, workflow.Preferences{})
			if err != nil {
				t.Fatal(err)
			}
			for pass := 0; m.Snapshot.Position.Kind == run.Pending; {
				p, _ := run.PendingStep(c, m.Snapshot)
				r, err := run.Render(c, m.Snapshot, p)
				if err != nil {
					t.Fatal(err)
				}
				switch p.Step.ID {
				case "w":
					want := tc.want[pass]
					if want == "" && !strings.HasPrefix(r.Prompt, "Work.") || want != "" && !strings.HasPrefix(r.Prompt, want) {
						t.Errorf("pass %d opens:\n%s\nwant %q", pass+1, r.Prompt, want)
					}
					pass++
				case "d":
					if !strings.HasPrefix(r.Prompt, "Decide.") {
						t.Errorf("the deciding step is told of its pass:\n%s", r.Prompt)
					}
				}
				if m, err = run.Advance(c, m.Snapshot, nil, false); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
