package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
)

// The workflows of the TypeScript WorkRail's authoring format, run as they
// are: the fixtures folder (and its routines) are workflowPaths entries of
// config.json, and a deciding agent drives every fixture through the shim in
// each of the three modes. The agent sends the nextCall it was given with
// every marker filled (fills): notes of its own, a loop's decision continue
// the first time and stop after, a rating at a level that fires the step's
// follow-up the first time and at one that does not after, and the first
// option or its own text wherever else it is asked.

// legacyDir is the folder of fixtures, relative to this package.
const legacyDir = "../workflows/testdata/legacy"

// modes are the three autonomy presets every fixture runs in.
var modes = []string{"wr.modes.guided", "wr.modes.full_auto_stop_on_user_deps", "wr.modes.full_auto_never_stop"}

func neverStop(mode string) bool { return mode == "wr.modes.full_auto_never_stop" }

// legacyHome is a home whose config.json lists the fixtures' folder as
// it is laid out (its routines in routines/, the twins in WorkRail's own
// format in canonical/) as a workflowPaths entry, with a shim started on
// it.
func legacyHome(t *testing.T) (string, *client.Client) {
	t.Helper()
	home := newHome(t)
	dir, err := filepath.Abs(legacyDir)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"workflowPaths": []string{dir}})
	if err := os.WriteFile(filepath.Join(home, "config.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	return home, startShim(t, home)
}

// fixture is one fixture file as the test reads it: its steps by id (loop
// bodies included) and its assessments, which the agent needs to rate.
type fixture struct {
	steps       map[string]map[string]any
	assessments map[string][]dimension
	inLoop      map[string]bool // steps of a loop's body, which may run in one pass and be skipped in another
}

type dimension struct {
	id     string
	levels []string
}

func readFixture(t *testing.T, file string) fixture {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(legacyDir, file))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Steps       []map[string]any `json:"steps"`
		Assessments []struct {
			ID         string `json:"id"`
			Dimensions []struct {
				ID     string   `json:"id"`
				Levels []string `json:"levels"`
			} `json:"dimensions"`
		} `json:"assessments"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	f := fixture{steps: map[string]map[string]any{}, assessments: map[string][]dimension{}, inLoop: map[string]bool{}}
	var walk func([]map[string]any, bool)
	walk = func(nodes []map[string]any, inLoop bool) {
		for _, n := range nodes {
			f.steps[n["id"].(string)] = n
			f.inLoop[n["id"].(string)] = inLoop
			switch body := n["body"].(type) {
			case []any:
				var inner []map[string]any
				for _, b := range body {
					inner = append(inner, b.(map[string]any))
				}
				walk(inner, true)
			case string:
				f.inLoop[body] = true
			}
		}
	}
	walk(doc.Steps, false)
	for _, a := range doc.Assessments {
		for _, d := range a.Dimensions {
			f.assessments[a.ID] = append(f.assessments[a.ID], dimension{d.ID, d.Levels})
		}
	}
	return f
}

// consequence is one assessmentConsequences entry of a step.
type consequence struct{ level, forAssessment, guidance string }

func (f fixture) consequences(stepID string) (refs []string, cs []consequence) {
	st := f.steps[stepID]
	for _, r := range asList(st["assessmentRefs"]) {
		refs = append(refs, r.(string))
	}
	for _, c := range asList(st["assessmentConsequences"]) {
		m := c.(map[string]any)
		cs = append(cs, consequence{str(m, "when", "anyEqualsLevel"), str(m, "when", "forAssessment"), str(m, "effect", "guidance")})
	}
	return refs, cs
}

func asList(v any) []any { l, _ := v.([]any); return l }

// legacyCase is one fixture's run: the context it starts with, what must
// run and be skipped, and checks of its own.
type legacyCase struct {
	file    string
	id      string // the id it loads under from workflowPaths
	context map[string]any
	// ran is the sequence of steps the run must present, in order
	// (loop bodies once per iteration); nil checks only that it completes.
	ran []string
	// skipped are steps or loops the run must pass over.
	skipped []string
	// exits are the loop exits the log must record, loop id → reason.
	exits map[string]string
	// followups are the steps whose first assessment fires a follow-up.
	followups []string
	// notes overrides the agent's notes: at the attempt-th answer (from 0)
	// of a step; ok false keeps the agent's own. "" sends no notes.
	notes func(stepID string, attempt int) (string, bool)
	// loopArtifact rewrites a loop decision before it is sent.
	loopArtifact func(map[string]any) map[string]any
	// sends is the context the agent sends with its first answer of a
	// step, by step id.
	sends map[string]map[string]any
	check func(t *testing.T, mode string, r *legacyRun)
}

// legacyRun is what the literal agent saw during one run.
type legacyRun struct {
	c        *client.Client
	steps    []result // every step answer, in order
	blocked  []result
	gaps     []map[string]any
	skipped  []string
	warnings []string // codes of every warning shown
	late     []string // steps run after they were skipped (the format reconsiders a skip)
	start    result
	complete result
	session  string
	calls    []sentCall // every continue_workflow call and its answer
}

type sentCall struct {
	args   map[string]any
	answer []byte
}

func (r *legacyRun) ran() []string {
	var ids []string
	for _, s := range r.steps {
		ids = append(ids, str(s.S, "pending", "stepId"))
	}
	return ids
}

// step returns the n-th answer (from 0) presenting stepID.
func (r *legacyRun) step(t *testing.T, stepID string, n int) result {
	t.Helper()
	for _, s := range r.steps {
		if str(s.S, "pending", "stepId") == stepID {
			if n == 0 {
				return s
			}
			n--
		}
	}
	t.Fatalf("step %s was not presented %d time(s); ran %v", stepID, n+1, r.ran())
	return result{}
}

func (r *legacyRun) prompt(t *testing.T, stepID string, n int) string {
	t.Helper()
	return str(r.step(t, stepID, n).S, "pending", "prompt")
}

// mustContain fails unless s holds every one of want.
func mustContain(t *testing.T, what, s string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, s)
		}
	}
}

func mustNotContain(t *testing.T, what, s string, unwanted ...string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(s, w) {
			t.Errorf("%s holds %q:\n%s", what, w, s)
		}
	}
}

// agentNotes are the notes the literal agent writes for a step.
func agentNotes(stepID, title string) string {
	return fmt.Sprintf("Step %s (%s): did what it asked; the outcome is recorded here.\n\n- result: done", stepID, title)
}

// driveLegacy runs workflowID in mode to completion as the literal agent.
func driveLegacy(t *testing.T, c *client.Client, tc legacyCase, f fixture, mode string) *legacyRun {
	t.Helper()
	run := &legacyRun{c: c}
	r := call(t, c, "start_workflow", map[string]any{"workflowId": tc.id, "mode": mode, "context": tc.context})
	run.start = r
	run.session = str(r.S, "session", "sessionId")
	answered := map[string]int{}  // step id → answers sent
	decisions := map[string]int{} // step id → loop decisions sent
	for i := 0; ; i++ {
		if i > 300 {
			t.Fatalf("no completion within 300 calls; ran %v", run.ran())
		}
		for _, w := range asList(r.S["warnings"]) {
			run.warnings = append(run.warnings, str(w.(map[string]any), "code"))
			if str(w.(map[string]any), "code") == "SKIPPED_STEP_RUNS_LATE" {
				run.late = append(run.late, str(r.S, "pending", "stepId"))
			}
		}
		for _, g := range asList(r.S["gapsRecorded"]) {
			run.gaps = append(run.gaps, g.(map[string]any))
		}
		for _, s := range asList(r.S["skipped"]) {
			run.skipped = append(run.skipped, str(s.(map[string]any), "stepId"))
		}
		switch r.kind() {
		case "complete":
			run.complete = r
			return run
		case "step":
			run.steps = append(run.steps, r)
		case "blocked":
			run.blocked = append(run.blocked, r)
		default:
			t.Fatalf("call %d answered %s; ran %v:\n%s", i, r.kind(), run.ran(), r.Text)
		}
		stepID, title := str(r.S, "pending", "stepId"), str(r.S, "pending", "title")
		notes, ok := agentNotes(stepID, title), false
		if tc.notes != nil {
			var n string
			if n, ok = tc.notes(stepID, answered[stepID]); ok {
				notes = n
			}
		}
		first := answered[stepID] == 0
		args := fillCall(t, r, func(fill map[string]any) any {
			return agentAnswer(tc, f, stepID, first, notes, fill, decisions)
		})
		out := args["output"].(map[string]any)
		if notes == "" {
			delete(out, "notesMarkdown")
		}
		if tc.loopArtifact != nil {
			for i, a := range asList(out["artifacts"]) {
				if m := a.(map[string]any); strings.HasSuffix(str(m, "kind"), "loop_control") {
					out["artifacts"].([]any)[i] = tc.loopArtifact(m)
				}
			}
		}
		if ctx := tc.sends[stepID]; ctx != nil && first {
			args["context"] = ctx
		}
		answered[stepID]++
		r = call(t, c, "continue_workflow", args)
		run.calls = append(run.calls, sentCall{args, r.Raw})
	}
}

// agentAnswer is what the agent writes in one fill of stepID's call: its
// notes; a loop decision of continue the first time and stop after; a
// rating that fires the step's follow-ups the first time only; the user's
// answer or a contract's values as plainAnswer writes them.
func agentAnswer(tc legacyCase, f fixture, stepID string, first bool, notes string, fill map[string]any, decisions map[string]int) any {
	ptr := str(fill, "pointer")
	switch {
	case ptr == "/output/notesMarkdown":
		return notes
	case strings.HasSuffix(ptr, "/decision"):
		decisions[stepID]++
		if decisions[stepID] == 1 {
			return "continue"
		}
		return "stop"
	case strings.Contains(ptr, "/dimensions/"):
		return rating(f, stepID, first, ptr[strings.LastIndex(ptr, "/")+1:])
	}
	return plainAnswer(fill, fmt.Sprintf("Answer of step %s.", stepID))
}

// rating is the level the agent gives dimension dim at stepID: one that
// fires a follow-up of the step the first time (when one can), else the
// first level that fires none.
func rating(f fixture, stepID string, first bool, dim string) string {
	refs, cs := f.consequences(stepID)
	triggers := map[string]bool{}
	for _, c := range cs {
		triggers[c.level] = true
	}
	for _, ref := range refs {
		for _, d := range f.assessments[ref] {
			if d.id != dim {
				continue
			}
			for _, c := range cs {
				if first && (c.forAssessment == "" || c.forAssessment == ref) && slices.Contains(d.levels, c.level) {
					return c.level
				}
			}
			return calmLevel(d.levels, triggers)
		}
	}
	return ""
}

// replaysIdentical sends every call of the run again: each is a replay of
// an attempt already recorded and must answer byte for byte as it did,
// fragments, templates, assessments and loop variables included.
func (r *legacyRun) replaysIdentical(t *testing.T) {
	t.Helper()
	for i, sc := range r.calls {
		again := call(t, r.c, "continue_workflow", sc.args)
		if string(again.Raw) != string(sc.answer) {
			t.Errorf("call %d answered differently on replay:\n%s\n%s", i, sc.answer, again.Raw)
			return
		}
	}
}

// calmLevel is the first level no consequence of the step fires on.
func calmLevel(levels []string, triggers map[string]bool) string {
	for _, l := range levels {
		if !triggers[l] {
			return l
		}
	}
	return levels[len(levels)-1]
}

// loopExits reads the loop exits the session's log records: loop id →
// reason (the last one, for a loop that ran more than once).
func loopExits(t *testing.T, home, session string) map[string]string {
	t.Helper()
	code, out, stderr := command(t, home, "export", session)
	if code != 0 {
		t.Fatalf("export %s: exit %d: %s", session, code, stderr)
	}
	var b struct {
		Events []struct {
			Kind string `json:"kind"`
			Data struct {
				LoopExits []struct {
					LoopID string `json:"loopId"`
					Reason string `json:"reason"`
				} `json:"loopExits"`
			} `json:"data"`
		} `json:"events"`
	}
	if err := json.Unmarshal([]byte(out), &b); err != nil {
		t.Fatalf("export: %v", err)
	}
	exits := map[string]string{}
	for _, e := range b.Events {
		for _, x := range e.Data.LoopExits {
			exits[x.LoopID] = x.Reason
		}
	}
	return exits
}

// blockedAt lists the steps the run was blocked at, in order.
func (r *legacyRun) blockedAt() []string {
	var ids []string
	for _, b := range r.blocked {
		ids = append(ids, str(b.S, "pending", "stepId"))
	}
	return ids
}

// blockerText is every blocker's message and suggested fix of the run.
func (r *legacyRun) blockerText() string {
	var sb strings.Builder
	for _, b := range r.blocked {
		for _, x := range asList(b.S["blockers"]) {
			m := x.(map[string]any)
			fmt.Fprintf(&sb, "%s: %s %s\n", str(m, "code"), str(m, "message"), str(m, "suggestedFix"))
		}
	}
	return sb.String()
}

// criticalGapsAt lists the steps of the run's critical gaps.
func (r *legacyRun) criticalGapsAt() []string {
	var ids []string
	for _, g := range r.gaps {
		if str(g, "severity") == "critical" {
			ids = append(ids, str(g, "relatedStepId"))
		}
	}
	return ids
}

// TestLegacyWorkflowsLiteralAgent: every fixture completes in every mode
// for the literal agent, running and skipping what its context says, with
// follow-ups blocking in the stopping modes and becoming critical gaps in
// full_auto_never_stop.
func TestLegacyWorkflowsLiteralAgent(t *testing.T) {
	home, c := legacyHome(t)
	for _, tc := range legacyCases() {
		f := readFixture(t, tc.file)
		for _, mode := range modes {
			t.Run(tc.file+"/"+strings.TrimPrefix(mode, "wr.modes."), func(t *testing.T) {
				run := driveLegacy(t, c, tc, f, mode)
				t.Logf("ran %v; blocked at %v; critical gaps at %v; skipped %v", run.ran(), run.blockedAt(), run.criticalGapsAt(), run.skipped)
				if tc.ran != nil && !slices.Equal(run.ran(), tc.ran) {
					t.Errorf("ran %v\nwant %v", run.ran(), tc.ran)
				}
				for _, s := range tc.skipped {
					if !slices.Contains(run.skipped, s) {
						t.Errorf("%s was not skipped; skipped %v", s, run.skipped)
					}
				}
				for _, s := range run.skipped {
					if slices.Contains(run.ran(), s) && !f.inLoop[s] && !slices.Contains(run.late, s) {
						t.Errorf("%s both ran and was skipped", s)
					}
				}
				checkFollowups(t, mode, tc, f, run)
				if len(tc.exits) > 0 {
					got := loopExits(t, home, run.session)
					for loop, reason := range tc.exits {
						if got[loop] != reason {
							t.Errorf("loop %s exited %q, want %q (all exits: %v)", loop, got[loop], reason, got)
						}
					}
				}
				if tc.check != nil {
					tc.check(t, mode, run)
				}
				if mode == modes[0] {
					run.replaysIdentical(t)
				}
			})
		}
	}
	healthyDoctor(t, home)
}

// checkFollowups: in the stopping modes each follow-up step is blocked
// exactly once, with the author's guidance; in full_auto_never_stop it is
// never blocked and leaves a critical gap instead.
func checkFollowups(t *testing.T, mode string, tc legacyCase, f fixture, run *legacyRun) {
	t.Helper()
	var blockedFollowups []string
	for _, id := range run.blockedAt() {
		if _, cs := f.consequences(id); len(cs) > 0 {
			blockedFollowups = append(blockedFollowups, id)
		}
	}
	if neverStop(mode) {
		if len(run.blocked) > 0 {
			t.Errorf("full_auto_never_stop was blocked at %v:\n%s", run.blockedAt(), run.blockerText())
		}
		gaps := run.criticalGapsAt()
		for _, id := range tc.followups {
			if !slices.Contains(gaps, id) {
				t.Errorf("no critical gap for %s's follow-up; critical gaps at %v", id, gaps)
			}
		}
		return
	}
	if !slices.Equal(blockedFollowups, tc.followups) {
		t.Errorf("follow-ups blocked at %v, want %v:\n%s", blockedFollowups, tc.followups, run.blockerText())
	}
	for _, id := range tc.followups {
		_, cs := f.consequences(id)
		mustContain(t, "the blockers", run.blockerText(), cs[0].guidance)
	}
}

var twoModules = []any{map[string]any{"name": "auth", "owner": "kim"}, map[string]any{"name": "billing", "owner": "ravi"}}

// stepsOf repeats a loop body's steps n times.
func stepsOf(n int, body ...string) []string {
	var out []string
	for range n {
		out = append(out, body...)
	}
	return out
}

func cat(parts ...[]string) []string { return slices.Concat(parts...) }

func legacyCases() []legacyCase {
	return []legacyCase{
		{file: "metadata.json", id: "legacy.metadata", ran: []string{"read-changelog", "write-plan"},
			check: func(t *testing.T, mode string, r *legacyRun) {
				mustContain(t, "the start", r.start.Text, "Read the dependency's changelog before planning", "Dependency upgrade policy")
				mustNotContain(t, "the second step", r.steps[1].Text, "Read the dependency's changelog before planning")
				again := rehydrate(t, r.c, str(r.steps[1].S, "stateToken"))
				mustContain(t, "a rehydrate", again.Text, "Read the dependency's changelog before planning", "Dependency upgrade policy")
				// The document the workflow reads from its package (the
				// fixtures' folder stands for it) is found, and its path given.
				guide, _ := filepath.Abs(filepath.Join(legacyDir, "guides", "reading-changelogs.md"))
				mustContain(t, "the start", r.start.Text, "[from the package, at "+guide+"]")
				mustContain(t, "a rehydrate", again.Text, "[from the package, at "+guide+"]")
			}},
		{file: "prompt-blocks.json", id: "legacy.prompt-blocks", ran: []string{"frame-rule", "challenge-rule"},
			check: func(t *testing.T, mode string, r *legacyRun) {
				p := r.prompt(t, "frame-rule", 0)
				mustContain(t, "frame-rule", p, "Decide how long order records are kept", "retentionTable", "openQuestions", "Write your reasoning to the notes as you go.")
				mustNotContain(t, "frame-rule", p, "refId", `"kind"`)
				mustContain(t, "challenge-rule", r.prompt(t, "challenge-rule", 0), "Attack the proposed retention rule", "revisedTable", "Reconcile the two arguments.")
			}},
		{file: "conditions.json", id: "legacy.conditions",
			// "80" is a text: the TypeScript WorkRail compares only numbers
			// with gte, so coverage-ok is skipped there, and here.
			context: map[string]any{"teamSize": " Large ", "channel": "email", "labels": []any{"Backend", "docs"}, "riskScore": 7, "coverage": "80", "dryRun": "yes"},
			ran:     []string{"triage-large-team", "find-approver", "backend-tickets", "mail-templates", "written-channel", "high-risk", "dry-run-review", "report"},
			skipped: []string{"triage-small-team", "non-email-channel", "coverage-ok"}},
		{file: "prompt-fragments.json", id: "legacy.prompt-fragments",
			context: map[string]any{"audience": "Executives", "depth": "deep",
				"regions": []any{map[string]any{"name": "North", "stores": 12}, map[string]any{"name": "South", "stores": 4}}},
			ran:   []string{"draft-summary", "review-region", "review-region", "send-summary"},
			exits: map[string]string{"region-loop": "items_done"},
			check: func(t *testing.T, mode string, r *legacyRun) {
				p := r.prompt(t, "draft-summary", 0)
				mustContain(t, "draft-summary", p, "List the figures' sources", "lead with three numbers", "month-by-month breakdown")
				mustNotContain(t, "draft-summary", p, "explain how each figure was computed")
				first, second := r.prompt(t, "review-region", 0), r.prompt(t, "review-region", 1)
				mustContain(t, "the first region", first, "Review the North region, which has 12 stores.", "This is the first region")
				mustNotContain(t, "the first region", first, "Pass ")
				mustContain(t, "the second region", second, "Review the South region, which has 4 stores.", "Pass 2: keep the layout of the first region and compare South with it.")
				mustNotContain(t, "the second region", second, "This is the first region")
				mustContain(t, "send-summary", r.prompt(t, "send-summary", 0), "one-slide version")
			}},
		{file: "templates.json", id: "legacy.templates",
			context: map[string]any{"featureBranch": "feature/invoice-export", "owner": map[string]any{"name": "Priya", "team": "billing"}},
			ran:     []string{"checkout-branch", "request-review"},
			check: func(t *testing.T, mode string, r *legacyRun) {
				s := r.step(t, "checkout-branch", 0)
				if got := str(s.S, "pending", "title"); got != "Check out feature/invoice-export" {
					t.Errorf("title %q", got)
				}
				mustContain(t, "checkout-branch", r.prompt(t, "checkout-branch", 0), "Check out feature/invoice-export and rebase", "belongs to Priya of the billing team")
				p := r.prompt(t, "request-review", 0)
				mustContain(t, "request-review", p, "[unset: reviewer]", "review feature/invoice-export", "in the billing channel")
				mustNotContain(t, "request-review", p, "{{")
			}},
		{file: "confirmation.json", id: "legacy.confirmation", context: map[string]any{"environment": "production"},
			ran: []string{"list-keys", "issue-new-keys", "swap-keys", "watch-errors", "revoke-old-keys", "close-rotation"},
			check: func(t *testing.T, mode string, r *legacyRun) {
				for id, want := range map[string]bool{"list-keys": true, "issue-new-keys": false, "swap-keys": true, "watch-errors": false, "close-rotation": false} {
					if got := dig(r.step(t, id, 0).S, "pending", "requireConfirmation"); got != want {
						t.Errorf("%s: requireConfirmation %v, want %v", id, got, want)
					}
				}
			}},
		{file: "loop-while-artifact.json", id: "legacy.loop-while-artifact",
			ran:   []string{"first-draft", "polish-round", "polish-decision", "polish-round", "polish-decision", "publish"},
			exits: map[string]string{"polish-loop": "stop_requested"},
			// Each pass is told where it stands, as the format's loops tell it.
			check: func(t *testing.T, mode string, r *legacyRun) {
				mustContain(t, "the first pass", r.prompt(t, "polish-round", 0), "the loop's deciding step says whether another pass is needed")
				mustContain(t, "the second pass", r.prompt(t, "polish-round", 1), "Pass 2 of at most", "Look for what the first pass missed")
				mustNotContain(t, "the deciding step", r.prompt(t, "polish-decision", 1), "Pass 2 of")
			},
			// The decision is sent as the TypeScript format's prompt asks for it.
			loopArtifact: func(a map[string]any) map[string]any {
				return map[string]any{"kind": "wr.loop_control", "decision": a["decision"], "metadata": map[string]any{"reason": "the draft was read once more"}}
			}},
		{file: "loop-while-implicit.json", id: "legacy.loop-while-implicit",
			ran:   []string{"pick-logs", "sample-batch", "batch-verdict", "sample-batch", "batch-verdict", "explain-pattern"},
			exits: map[string]string{"sampling-loop": "stop_requested"}},
		{file: "loop-foreach.json", id: "legacy.loop-foreach", context: map[string]any{"modules": twoModules},
			ran:   []string{"list-modules", "audit-module", "audit-module", "summarize-audit"},
			exits: map[string]string{"module-loop": "items_done"},
			check: func(t *testing.T, mode string, r *legacyRun) {
				for i, m := range []string{"auth", "billing"} {
					s := r.step(t, "audit-module", i)
					if got := str(s.S, "pending", "title"); got != "Audit "+m {
						t.Errorf("title %q, want Audit %s", got, m)
					}
					mustContain(t, "audit-module", str(s.S, "pending", "prompt"), fmt.Sprintf("Audit module %s, owned by", m),
						fmt.Sprintf("It is number %d in the list (counting from zero) and this is pass %d.", i, i+1))
				}
			}},
		{file: "loop-run-condition.json", id: "legacy.loop-run-condition", context: map[string]any{"includeTranslations": "no"},
			ran:     []string{"collect-strings", "proofread-pass", "ship-strings"},
			skipped: []string{"translate-loop"},
			exits:   map[string]string{"proofread-loop": "max_iterations"}},
		{file: "assessments.json", id: "legacy.assessments",
			ran: []string{"gather-evidence", "check-plan", "recommend"}, followups: []string{"gather-evidence", "check-plan"}},
		{file: "template-call.json", id: "legacy.template-call", context: map[string]any{"depth": 3},
			ran: []string{"intake", "run-checklist--scan", "run-checklist--probe", "run-checklist--record", "wrap-up"},
			check: func(t *testing.T, mode string, r *legacyRun) {
				if got := str(r.step(t, "run-checklist--scan", 0).S, "pending", "title"); got != "Scan the sign-in form" {
					t.Errorf("routine title %q", got)
				}
				mustContain(t, "the probe", r.prompt(t, "run-checklist--probe", 0), "The caller asked for depth 2.", "from the scan of the sign-in form")
			}},
		{file: "parallel.json", id: "legacy.parallel",
			context: map[string]any{"reviewAreas": []any{"Security", "performance"}, "changeSummary": "Adds a CSV export"},
			ran:     []string{"frame-review", "fan-out", "merge-findings"},
			check: func(t *testing.T, mode string, r *legacyRun) {
				p := r.prompt(t, "fan-out", 0)
				mustContain(t, "fan-out", p, "read or change data they should not", "work the change adds to hot paths", "naming")
				mustNotContain(t, "fan-out", p, "screen reader")
			}},
		{file: "validation.json", id: "legacy.validation", context: map[string]any{"deployTarget": "staging"},
			ran: []string{"write-changelog", "write-risks", "announce"},
			notes: func(step string, attempt int) (string, bool) {
				good := map[string]string{
					"write-changelog": "## Changes\n\nRelease v2.3 adds invoice export and fixes two date bugs.",
					"write-risks":     "Risk review for this release:\n- the export may time out on very large accounts\n- dates before 1970 render oddly",
				}[step]
				return good, good != "" && attempt > 0
			},
			check: func(t *testing.T, mode string, r *legacyRun) {
				mustContain(t, "write-changelog's prompt", r.prompt(t, "write-changelog", 0), "Start the entry with a '## Changes' heading.")
				if neverStop(mode) {
					gaps := r.criticalGapsAt()
					if !slices.Contains(gaps, "write-changelog") || !slices.Contains(gaps, "write-risks") {
						t.Errorf("critical gaps at %v, want write-changelog and write-risks", gaps)
					}
					return
				}
				if got := r.blockedAt(); !slices.Equal(got, []string{"write-changelog", "write-risks"}) {
					t.Errorf("blocked at %v", got)
				}
				mustContain(t, "the blockers", r.blockerText(), "Start the entry with a '## Changes' heading.", "Say 'Risk' where the risks start.")
				mustNotContain(t, "the blockers", r.blockerText(), "Rollback")
			}},
		{file: "notes-optional.json", id: "legacy.notes-optional",
			ran: []string{"clear-cache", "explain-size"},
			notes: func(step string, attempt int) (string, bool) {
				return "", step == "clear-cache" || attempt == 0 // none where optional, and none the first time where required
			},
			check: func(t *testing.T, mode string, r *legacyRun) {
				if neverStop(mode) {
					if got := r.criticalGapsAt(); !slices.Equal(got, []string{"explain-size"}) {
						t.Errorf("critical gaps at %v, want explain-size", got)
					}
					return
				}
				if got := r.blockedAt(); !slices.Equal(got, []string{"explain-size"}) {
					t.Errorf("blocked at %v, want explain-size (missing notes) only", got)
				}
			}},
		{file: "output-contracts.json", id: "legacy.output-contracts",
			ran: []string{"discover", "differentiate", "shape", "build", "review"},
			check: func(t *testing.T, mode string, r *legacyRun) {
				if len(r.blocked) > 0 || len(r.gaps) > 0 {
					t.Errorf("the contracts, filled, did not pass: blocked at %v, gaps %v\n%s", r.blockedAt(), r.gaps, r.blockerText())
				}
			}},
		{file: "features.json", id: "legacy.features", ran: []string{"reproduce-flake", "fix-flake"},
			// The format's two features reach promptBlocks steps only:
			// both speak of subagents, which neither step's own text does.
			check: func(t *testing.T, mode string, r *legacyRun) {
				mustContain(t, "the promptBlocks step", strings.ToLower(r.prompt(t, "reproduce-flake", 0)), "subagent")
				mustNotContain(t, "the plain prompt step", strings.ToLower(r.prompt(t, "fix-flake", 0)), "subagent")
			}},
		{file: "functions.json", id: "legacy.functions", ran: []string{"score-each", "shortlist"},
			check: func(t *testing.T, mode string, r *legacyRun) {
				mustContain(t, "score-each", r.prompt(t, "score-each", 0), "Score a change from 1 to 5")
				mustContain(t, "shortlist", r.prompt(t, "shortlist", 0), "Score a change from 1 to 5", "keep the top five")
			}},
		{file: "guidance.json", id: "legacy.guidance", ran: []string{"read-runbook", "fix-runbook"},
			check: func(t *testing.T, mode string, r *legacyRun) {
				mustContain(t, "read-runbook", r.prompt(t, "read-runbook", 0), "on-call engineer reading the runbook", "Try each command in a sandbox")
				mustContain(t, "fix-runbook", r.prompt(t, "fix-runbook", 0), "Keep each step to one action.")
			}},
		{file: "edge-shapes.json", id: "legacy.edge-shapes", context: map[string]any{"openQuestions": []any{"who owns row 12?"}, "moreBatches": false},
			ran:     []string{"open-sheet", "dedupe-rows", "ask-questions", "review-pass", "review-pass", "verdict"},
			skipped: []string{"never-runs"},
			exits:   map[string]string{"review-loop": "stop_requested"},
			check: func(t *testing.T, mode string, r *legacyRun) {
				mustContain(t, "dedupe-rows", r.prompt(t, "dedupe-rows", 0), "Remove duplicate rows", "Merge rows that share an email address", "mergedRows")
			}},
		{file: "dotless.json", id: "dotless-fixture", ran: []string{"find-uses", "rename-flag"}},
		{file: "wr-id.json", id: "repo.fixture-reserved-claim", ran: []string{"scan-photos", "file-by-year"}},
		{file: "mixed-platform-migration.json", id: "repo.platform-migration",
			context: map[string]any{"migrationSize": " Large", "ownersConfirmed": "yes", "services": twoModules,
				"reviewAreas": []any{"Performance", "security"}, "monthlyBudget": 2500, "region": "EU", "depth": 3},
			ran: cat([]string{"phase-0-intake", "phase-1-inventory", "phase-1b-quick-scan--map-area", "phase-1b-quick-scan--flag-oddities",
				"phase-1c-dependency-graph", "phase-2-risk-register", "phase-2b-deep-risk", "phase-2c-data-plan"},
				stepsOf(2, "plan-service-move", "move-service", "verify-service", "service-second-opinions"),
				[]string{"phase-4-cutover-checklist--scan", "phase-4-cutover-checklist--probe", "phase-4-cutover-checklist--record", "phase-4b-comms"},
				stepsOf(2, "harden-find", "harden-fix", "harden-decision"),
				[]string{"phase-6-rollback-drill", "phase-6b-performance", "phase-6c-cost", "phase-6d-compliance", "phase-6e-security",
					"phase-7-readiness", "phase-7b-go-no-go"},
				stepsOf(2, "burn-in-watch", "burn-in-decision"),
				[]string{"phase-8b-traffic-shift", "phase-8c-decommission", "phase-9-handoff", "phase-9b-review", "phase-10-retro", "phase-10b-docs"}),
			skipped:   []string{"phase-0b-clarify", "phase-6f-accessibility"},
			exits:     map[string]string{"phase-3-service-loop": "items_done", "phase-5-hardening-loop": "stop_requested", "phase-8-burn-in": "stop_requested"},
			followups: []string{"phase-2-risk-register", "phase-7-readiness"},
			check: func(t *testing.T, mode string, r *legacyRun) {
				mustContain(t, "the first move", r.prompt(t, "plan-service-move", 0), "Plan the move of auth (owner kim), service 1 of the list.", "This is the first service")
				mustContain(t, "the second move", r.prompt(t, "plan-service-move", 1), "Plan the move of billing (owner ravi), service 2 of the list.", "note any step you did differently for billing")
				if got := dig(r.step(t, "move-service", 0).S, "pending", "requireConfirmation"); got != true {
					t.Errorf("move-service: requireConfirmation %v for a large migration", got)
				}
				p := r.prompt(t, "service-second-opinions", 0)
				mustContain(t, "the second opinions", p, "new ways to reach its data", "slower responses")
				mustNotContain(t, "the second opinions", p, "with a keyboard")
			}},
		{file: "mixed-incident-review.json", id: "incident-review",
			context: map[string]any{"incidentId": "INC-4312", "severity": "SEV1"},
			ran: cat([]string{"rebuild-timeline", "customer-impact"}, stepsOf(2, "state-hypothesis", "test-hypothesis", "hypothesis-decision"),
				[]string{"check-fix--scan", "check-fix--record", "write-up"}),
			skipped:   []string{"check-fix--probe"},
			exits:     map[string]string{"hypothesis-loop": "stop_requested"},
			followups: []string{"write-up"},
			check: func(t *testing.T, mode string, r *legacyRun) {
				if got := str(r.step(t, "rebuild-timeline", 0).S, "pending", "title"); got != "Rebuild the timeline of INC-4312" {
					t.Errorf("title %q", got)
				}
				mustContain(t, "rebuild-timeline", r.prompt(t, "rebuild-timeline", 0), "include every page sent")
				if got := dig(r.step(t, "customer-impact", 0).S, "pending", "requireConfirmation"); got != true {
					t.Errorf("customer-impact: requireConfirmation %v for a sev1", got)
				}
			}},
		{file: "loop-iteration-vars.json", id: "legacy.loop-iteration-vars",
			ran: cat([]string{"write-draft", "revise", "revise", "revise", "read-aloud", "proofread", "proofread", "check-links"},
				stepsOf(2, "collect-feedback"), []string{"publish"}),
			exits: map[string]string{"revision-loop": "count_done", "proof-loop": "count_done", "feedback-loop": "max_iterations"},
			check: func(t *testing.T, mode string, r *legacyRun) {
				if got := str(r.step(t, "revise", 1).S, "pending", "title"); got != "Revise the draft, pass 2" {
					t.Errorf("the second revision's title %q", got)
				}
				mustContain(t, "the second proofreading", r.prompt(t, "proofread", 1), "(round 2)")
				mustContain(t, "the second feedback round", r.prompt(t, "collect-feedback", 1), "This is feedback round 2.")
			}},
		{file: "loop-count-var.json", id: "legacy.loop-count-var", context: map[string]any{"interviewCount": 2},
			ran:   []string{"plan-interviews", "hold-interview", "hold-interview", "summarize-interviews"},
			exits: map[string]string{"interview-loop": "count_done"},
			check: func(t *testing.T, mode string, r *legacyRun) {
				mustContain(t, "the second interview", r.prompt(t, "hold-interview", 1), "Hold interview 2 of 2")
			}},
		{file: "loop-body-by-id.json", id: "legacy.loop-body-by-id",
			ran:   []string{"outline-talk", "rehearse", "rehearse", "book-room"},
			exits: map[string]string{"rehearsal-loop": "count_done"}},
		{file: "loop-until.json", id: "legacy.loop-until", context: map[string]any{"sourcesFound": 5},
			ran:     cat([]string{"frame-question"}, stepsOf(2, "screen", "screen-decision"), stepsOf(2, "appraise"), []string{"write-review"}),
			skipped: []string{"search-loop"},
			exits:   map[string]string{"screen-loop": "stop_requested", "appraise-loop": "max_iterations"}},
		{file: "function-refs.json", id: "legacy.function-refs", ran: []string{"score-reports", "pick-top"},
			check: func(t *testing.T, mode string, r *legacyRun) {
				mustContain(t, "score-reports", r.prompt(t, "score-reports", 0), "Score a bug report from 1 (cosmetic) to 5 (data loss)")
				mustNotContain(t, "score-reports", r.prompt(t, "score-reports", 0), "severityMatrix", "undefinedHelper")
			}},
		{file: "virtual-steps.json", id: "legacy.virtual-steps",
			ran: []string{"make-change", "make-change__verification", "document-change", "document-change__audit", "review-change", "review-change__synthesis", "ship-change"},
			check: func(t *testing.T, mode string, r *legacyRun) {
				mustContain(t, "the verification", r.prompt(t, "make-change__verification", 0), "go test ./client/...")
				mustContain(t, "the audit", r.prompt(t, "document-change__audit", 0), "The README names the default limit.")
				mustContain(t, "the synthesis", r.prompt(t, "review-change__synthesis", 0), "Merge the second opinion")
				if len(r.gaps) > 0 && !neverStop(mode) {
					t.Errorf("gaps %v", r.gaps)
				}
			}},
		{file: "contract-and-assessments.json", id: "legacy.contract-and-assessments",
			ran: []string{"read-pr", "review-pr", "post-review"}, followups: []string{"review-pr"},
			check: func(t *testing.T, mode string, r *legacyRun) {
				// The step asks for both artifacts, and both are read.
				var kinds []string
				for _, a := range asList(dig(r.step(t, "review-pr", 0).S, "nextCall", "arguments", "output", "artifacts")) {
					kinds = append(kinds, str(a.(map[string]any), "kind"))
				}
				if !slices.Contains(kinds, "wr.contracts.review_verdict") || !slices.Contains(kinds, "wr.assessment") {
					t.Errorf("review-pr asks for %v; want the verdict and the rating", kinds)
				}
			}},
		{file: "skipped-reconsidered.json", id: "legacy.skipped-reconsidered",
			sends: map[string]map[string]any{"triage-slowness": {"needsProfiling": true}},
			ran:   []string{"triage-slowness", "profile-deeply", "write-findings"},
			check: func(t *testing.T, mode string, r *legacyRun) {
				late := r.step(t, "profile-deeply", 0)
				warn, _ := json.Marshal(late.S["warnings"])
				mustContain(t, "the late step's warnings", string(warn), "SKIPPED_STEP_RUNS_LATE", "profile-deeply (Profile the page deeply) was skipped earlier")
			}},
		{file: "canonical/skipped-stays-skipped.json", id: "canonical.skipped-stays-skipped",
			sends:   map[string]map[string]any{"triage-slowness": {"needsProfiling": true}},
			ran:     []string{"triage-slowness", "write-findings"},
			skipped: []string{"profile-deeply"}},
		{file: "canonical/loop-iteration-vars.json", id: "canonical.loop-iteration-vars",
			ran:   cat([]string{"write-draft", "revise", "revise", "revise", "read-aloud"}, stepsOf(2, "collect-feedback"), []string{"publish"}),
			exits: map[string]string{"revision-loop": "count_done", "feedback-loop": "max_iterations"},
			check: func(t *testing.T, mode string, r *legacyRun) {
				if got := str(r.step(t, "collect-feedback", 1).S, "pending", "title"); got != "Collect feedback, round 2" {
					t.Errorf("the second feedback round's title %q", got)
				}
			}},
		{file: "canonical/loop-count-var.json", id: "canonical.loop-count-var", context: map[string]any{"interviewCount": 2},
			ran: []string{"plan-interviews", "hold-interview", "hold-interview", "summarize-interviews"}},
		// WorkRail's own until runs its body before it checks: once, where
		// the format's until above runs none.
		{file: "canonical/loop-until.json", id: "canonical.loop-until", context: map[string]any{"sourcesFound": 5},
			ran: []string{"frame-question", "search", "write-review"}, exits: map[string]string{"search-loop": "condition_met"}},
		{file: "canonical/contract-and-assessments.json", id: "canonical.contract-and-assessments",
			ran: []string{"read-pr", "review-pr", "post-review"}, followups: []string{"review-pr"}},
		{file: "mixed-course-builder.json", id: "legacy.course-builder",
			context: map[string]any{"courseLength": "90", "format": "Hands-On", "languages": []any{"en", "DE"},
				"lessons": []any{map[string]any{"title": "Why flame graphs", "minutes": 15}, map[string]any{"title": "Reading one", "minutes": 20}}},
			ran:   []string{"outline-course", "write-lesson", "write-lesson", "review-course", "translate-course", "pitch-next"},
			exits: map[string]string{"lesson-loop": "items_done"},
			check: func(t *testing.T, mode string, r *legacyRun) {
				if got := dig(r.step(t, "outline-course", 0).S, "pending", "requireConfirmation"); got != false {
					t.Errorf("outline-course: requireConfirmation %v for a 90-minute course", got)
				}
				mustContain(t, "the first lesson", r.prompt(t, "write-lesson", 0), "Write the lesson Why flame graphs in about 15 minutes", "opening lesson", "run on the learner's laptop")
				mustNotContain(t, "the second lesson", r.prompt(t, "write-lesson", 1), "opening lesson")
				mustContain(t, "review-course", r.prompt(t, "review-course", 0), "where you got lost", "Check every exercise can be done")
			}},
	}
}

// TestLegacyFixturesListed: list_workflows offers every fixture and routine
// from workflowPaths with no load problem, the routines as routines, the
// wr.* claim under the config source's namespace (never as wr.*), and the
// dot-less id as legacy with its suggested rename. From the user folder
// the wr.* claim loads as user.*.
func TestLegacyFixturesListed(t *testing.T) {
	_, c := legacyHome(t)
	s, text := callTool(t, c, "list_workflows", map[string]any{})
	if p := asList(s["problems"]); len(p) > 0 {
		b, _ := json.MarshalIndent(p, "", "  ")
		t.Errorf("load problems:\n%s", b)
	}
	byID := map[string]map[string]any{}
	for _, w := range asList(s["workflows"]) {
		m := w.(map[string]any)
		byID[str(m, "id")] = m
	}
	cases := legacyCases()
	if len(cases) != countFixtures(t) {
		t.Errorf("%d fixture cases for %d fixture files: every fixture must be driven", len(cases), countFixtures(t))
	}
	for _, tc := range cases {
		w := byID[tc.id]
		if w == nil {
			t.Errorf("%s (%s) is not listed:\n%s", tc.id, tc.file, text)
			continue
		}
		// One fixture is a canonical file but for its id, and so are the
		// twins; every other one has something of the TypeScript format.
		canonical := tc.file == "dotless.json" || strings.HasPrefix(tc.file, "canonical/")
		if want := map[bool]string{true: "", false: "workrail-ts"}[canonical]; str(w, "dialect") != want {
			t.Errorf("%s: dialect %q, want %q", tc.id, str(w, "dialect"), want)
		}
	}
	// inspect_workflow names each rewrite, and each warning points into
	// the file as written.
	ins, insText := callTool(t, c, "inspect_workflow", map[string]any{"workflowId": "legacy.conditions"})
	if len(asList(ins["rewrites"])) == 0 {
		t.Errorf("inspect_workflow names no rewrite of legacy.conditions:\n%s", insText)
	}
	warnings := asList(dig(ins, "workflow", "warnings"))
	if len(warnings) == 0 {
		t.Errorf("inspect_workflow shows no warning for legacy.conditions:\n%s", insText)
	}
	for _, w := range warnings {
		if p := str(w.(map[string]any), "pointer"); !strings.HasPrefix(p, "/") {
			t.Errorf("a warning without a JSON pointer: %v", w)
		}
	}
	meta, _ := callTool(t, c, "inspect_workflow", map[string]any{"workflowId": "legacy.metadata"})
	mustContain(t, "legacy.metadata's about", str(meta, "about"), "Library upgrade planner")
	for _, id := range []string{"repo.routine-checklist-pass", "repo.routine-second-opinion", "routine-quick-scan"} {
		if w := byID[id]; w == nil || str(w, "kind") != "routine" {
			t.Errorf("routine %s: listed as %v", id, w)
		}
	}
	for id := range byID {
		if strings.HasPrefix(id, "wr.") && str(byID[id], "source", "kind") != "bundled" {
			t.Errorf("%s is listed from %s: a wr.* id outside the bundled set", id, str(byID[id], "source", "kind"))
		}
	}
	claim, _ := json.Marshal(byID["repo.fixture-reserved-claim"]["warnings"])
	mustContain(t, "the wr.* claim's warnings", string(claim), "wr.fixture-reserved-claim", "repo.fixture-reserved-claim")
	dotless := byID["dotless-fixture"]
	if str(dotless, "idStatus") != "legacy" {
		t.Errorf("dotless-fixture: idStatus %q", str(dotless, "idStatus"))
	}
	warn, _ := json.Marshal(dotless["warnings"])
	mustContain(t, "dotless-fixture's warnings", string(warn), "LEGACY_WORKFLOW_ID", "repo.dotless-fixture")
	r := call(t, c, "start_workflow", map[string]any{"workflowId": "wr.fixture-reserved-claim"})
	if r.kind() != "error" || str(r.S, "error", "code") != "WORKFLOW_NOT_FOUND" {
		t.Errorf("starting the claimed wr.* id answered %s:\n%s", r.kind(), r.Text)
	}

	// The user folder: the claim loads as user.*, and is startable there.
	b, err := os.ReadFile(filepath.Join(legacyDir, "wr-id.json"))
	if err != nil {
		t.Fatal(err)
	}
	user := newHome(t)
	if err := os.MkdirAll(filepath.Join(user, "workflows"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(user, "workflows", "wr-id.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	uc := startShim(t, user)
	r = call(t, uc, "start_workflow", map[string]any{"workflowId": "user.fixture-reserved-claim"})
	mustKind(t, r, "step")
}

// countFixtures counts the fixtures and their twins in WorkRail's format
// (the routines are driven through the fixtures that call them).
func countFixtures(t *testing.T) int {
	t.Helper()
	n := 0
	for _, pattern := range []string{"*.json", filepath.Join("canonical", "*.json")} {
		names, err := filepath.Glob(filepath.Join(legacyDir, pattern))
		if err != nil {
			t.Fatal(err)
		}
		n += len(names)
	}
	return n
}

// TestLegacyLoopWithoutItsInput: reaching a loop whose input the agent
// never sent (a forEach loop's array, a for loop's countVar) is a clear
// INVALID_INPUT naming the input in the modes that stop, and nothing is
// recorded: the same call with the input goes on. In
// full_auto_never_stop, which promises never to stop, the loop is
// skipped and a critical gap says so, named in the complete answer.
func TestLegacyLoopWithoutItsInput(t *testing.T) {
	_, c := legacyHome(t)
	for _, tc := range []struct {
		id, loop, input string
		sent            any // what the agent sends instead of the input, or nil
		fixed           any // the input that lets the same call go on
	}{
		{"legacy.loop-foreach", "module-loop", "modules", nil, twoModules},
		{"legacy.loop-count-var", "interview-loop", "interviewCount", nil, 2},
		{"legacy.loop-count-var", "interview-loop", "interviewCount", 2.5, 1},
		// The TypeScript WorkRail reads no text as a count, so neither
		// does WorkRail in its format: "3" is not one.
		{"legacy.loop-count-var", "interview-loop", "interviewCount", "3", 3},
	} {
		for _, mode := range modes {
			t.Run(fmt.Sprintf("%s/%v/%s", tc.input, tc.sent, strings.TrimPrefix(mode, "wr.modes.")), func(t *testing.T) {
				r := call(t, c, "start_workflow", map[string]any{"workflowId": tc.id, "mode": mode})
				args := fillCall(t, r, func(fill map[string]any) any { return "Planned what the loop runs over." })
				if tc.sent != nil {
					args["context"] = map[string]any{tc.input: tc.sent}
				}
				r = call(t, c, "continue_workflow", args)
				if neverStop(mode) {
					if r.kind() != "step" {
						t.Fatalf("answered %s, want the step after the skipped loop:\n%s", r.kind(), r.Text)
					}
					gaps, _ := json.Marshal(r.S["gapsRecorded"])
					mustContain(t, "the gaps recorded", string(gaps), `"severity":"critical"`, tc.loop, "context."+tc.input)
					return
				}
				if r.kind() != "error" || str(r.S, "error", "code") != "INVALID_INPUT" {
					t.Fatalf("answered %s, want an INVALID_INPUT error:\n%s", r.kind(), r.Text)
				}
				mustContain(t, "the error", r.Text, "context."+tc.input)
				args["context"] = map[string]any{tc.input: tc.fixed}
				if r = call(t, c, "continue_workflow", args); r.kind() != "step" || str(r.S, "pending", "stepId") == "" {
					t.Fatalf("the same call with the input answered %s:\n%s", r.kind(), r.Text)
				}
			})
		}
	}
}

// TestLegacyNotesAsThere: a file in the TypeScript format asks for notes
// as that WorkRail did: 10 to 30 lines, in the prompt and in nextCall's
// marker, and required at a step that rates assessments (only an output
// contract spares them there); WorkRail's own format keeps its 1 to 10
// lines and spares a rating step.
func TestLegacyNotesAsThere(t *testing.T) {
	_, c := legacyHome(t)
	r := call(t, c, "start_workflow", map[string]any{"workflowId": "legacy.assessments", "mode": modes[0]})
	mustContain(t, "the rating step's prompt", str(r.S, "pending", "prompt"), "in 10 to 30 lines")
	args := fillCall(t, r, func(fill map[string]any) any {
		if str(fill, "pointer") == "/output/notesMarkdown" {
			mustContain(t, "the notes marker", str(fill, "asks"), "10-30 lines")
			return ""
		}
		return plainAnswer(fill, "solid")
	})
	// A rating at the calm levels, and no notes.
	for _, a := range asList(dig(args, "output", "artifacts")) {
		if m := a.(map[string]any); str(m, "kind") == "wr.assessment" {
			m["dimensions"] = map[string]any{"sources": "solid", "recency": "current"}
		}
	}
	delete(args["output"].(map[string]any), "notesMarkdown")
	r = call(t, c, "continue_workflow", args)
	if r.kind() != "blocked" {
		t.Fatalf("a rating without notes answered %s:\n%s", r.kind(), r.Text)
	}
	blockers, _ := json.Marshal(r.S["blockers"])
	mustContain(t, "the blockers", string(blockers), "MISSING_REQUIRED_NOTES", "10-30 lines")

	r = call(t, c, "start_workflow", map[string]any{"workflowId": "canonical.contract-and-assessments", "mode": modes[0]})
	// Only the marker is checked here: the call it fills is not sent.
	fillCall(t, r, func(fill map[string]any) any {
		if str(fill, "pointer") == "/output/notesMarkdown" {
			mustContain(t, "the canonical notes marker", str(fill, "asks"), "1-10 lines")
		}
		return plainAnswer(fill, "Read the description.")
	})
	mustNotContain(t, "the canonical prompt", str(r.S, "pending", "prompt"), "10 to 30 lines")
}
