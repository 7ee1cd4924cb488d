package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
)

// The rails: an agent that sends exactly the nextCall it was given, and
// adds nothing it was not asked for (the literal agent), never passes what
// only a person or a real judgement settles. In guided and
// stop-on-user-deps it ends blocked, at the first step that needs the
// user's answer or confirmation, a rating, a loop decision or a required
// output, holding the call that moves on once filled; in never-stop it
// completes with one critical gap per thing it skipped, all named in the
// complete answer. Either way nothing of WorkRail's template is recorded
// as its words, titled or indexed.

// templateTexts are what no event, title or index may hold: the marker,
// and the placeholders earlier releases put in nextCall.
var templateTexts = []string{"<<fill", "Replace with 1-10 lines", "what the user answered, in their words", "one line: why these ratings",
	"what you tried and what happened"}

// literalRun is what the literal agent saw of one run.
type literalRun struct {
	answers []result // every answer, the start first
	// asked counts, per answer that asked for a step, what it asked of
	// the agent or the user (skipped).
	asked []int
}

func (r literalRun) last() result { return r.answers[len(r.answers)-1] }

// driveLiterally sends each answer's nextCall as it is, until the run
// completes or the same call is blocked twice in a row (the agent can
// only send it again).
func driveLiterally(t *testing.T, c *client.Client, start result) literalRun {
	t.Helper()
	run := literalRun{answers: []result{start}}
	r := start
	for i := 0; r.kind() != "complete"; i++ {
		if i > 400 {
			t.Fatalf("no end within 400 calls at %s", str(r.S, "pending", "stepId"))
		}
		if r.kind() != "step" && r.kind() != "blocked" {
			t.Fatalf("call %d answered %s:\n%s", i, r.kind(), r.Text)
		}
		run.asked = append(run.asked, skipped(r))
		next := call(t, c, "continue_workflow", dig(r.S, "nextCall", "arguments").(map[string]any))
		run.answers = append(run.answers, next)
		if r.kind() == "blocked" && next.kind() == "blocked" && str(next.S, "pending", "stepId") == str(r.S, "pending", "stepId") &&
			blockerCodes(next) == blockerCodes(r) {
			break
		}
		r = next
	}
	return run
}

// skipped counts what an answer's step asks that its call sent as it is
// leaves undone (see literalRun.asked): its notes when required, each
// kind of required artifact it asks of the agent, the user's answer or
// confirmation (asked in the call, or only said in never-stop).
func skipped(r result) int {
	n := 0
	arts := map[string]bool{}
	kinds := asList(dig(r.S, "nextCall", "arguments", "output", "artifacts"))
	for _, f := range asList(r.S["fills"]) {
		fill := f.(map[string]any)
		ptr := str(fill, "pointer")
		if fill["required"] != true {
			continue
		}
		if ptr == "/output/notesMarkdown" {
			n++
			continue
		}
		i, _ := strconv.Atoi(strings.Split(ptr, "/")[3])
		if k := str(kinds[i].(map[string]any), "kind"); k != "wr.user_response" {
			arts[k] = true // a step's ratings are one: several assessments rated at once
		}
	}
	n += len(arts)
	if dig(r.S, "pending", "userDependency") != nil {
		n++
	}
	return n
}

func blockerCodes(r result) string {
	var codes []string
	for _, b := range asList(r.S["blockers"]) {
		codes = append(codes, str(b.(map[string]any), "code"))
	}
	return strings.Join(codes, ",")
}

// criticalGaps counts the critical gaps an advance recorded, one for each
// thing skipped: a probe's observation not made leaves the capability
// unknown too, which is the same thing skipped.
func criticalGaps(a result) int {
	n, observed := 0, false
	for _, g := range asList(a.S["gapsRecorded"]) {
		m := g.(map[string]any)
		if str(m, "severity") != "critical" {
			continue
		}
		n++
		if str(m, "reason") == "required_output_missing_or_invalid" && strings.Contains(str(m, "summary"), "capability_observation") {
			observed = true
		}
	}
	for _, g := range asList(a.S["gapsRecorded"]) {
		if m := g.(map[string]any); observed && str(m, "reason") == "capability_missing" {
			n--
		}
	}
	return n
}

// decisionBlockers are the blocker codes a copied call may end at: what
// only the user, or the agent's own judgement, can give.
var decisionBlockers = []string{"USER_ONLY_DEPENDENCY", "MISSING_REQUIRED_OUTPUT", "INVALID_REQUIRED_OUTPUT", "MISSING_REQUIRED_NOTES",
	"REQUIRED_CAPABILITY_UNKNOWN"}

// checkLiteral holds a literal run to the rails in mode.
func checkLiteral(t *testing.T, home, mode string, run literalRun) {
	t.Helper()
	last := run.last()
	session := str(run.answers[0].S, "session", "sessionId")
	if neverStop(mode) {
		if last.kind() != "complete" {
			t.Fatalf("never-stop ended %s:\n%s", last.kind(), last.Text)
		}
		want, critical := 0, 0
		for i, a := range run.answers[1:] {
			want += run.asked[i]
			critical += criticalGaps(a)
		}
		if critical != want {
			for i, a := range run.answers[1:] {
				t.Logf("%s asked %d; recorded %v", str(run.answers[i].S, "pending", "stepId"), run.asked[i], a.S["gapsRecorded"])
			}
			t.Errorf("%d critical gaps recorded; the steps skipped %d decisions", critical, want)
		}
		if got := int(last.S["openGapCount"].(float64)); got < critical || !strings.Contains(last.Text, "## Open gaps") && critical > 0 {
			t.Errorf("the complete answer counts %d open gaps of %d critical:\n%s", got, critical, last.Text)
		}
		for _, g := range asList(last.S["openGaps"])[:min(critical, len(asList(last.S["openGaps"])))] {
			if str(g.(map[string]any), "severity") != "critical" {
				t.Errorf("open gaps are not worst first: %v", last.S["openGaps"])
				break
			}
		}
	} else if last.kind() == "blocked" {
		for _, b := range asList(last.S["blockers"]) {
			m := b.(map[string]any)
			if !slices.Contains(decisionBlockers, str(m, "code")) {
				t.Errorf("ended at a blocker that is no decision: %v", m)
			}
			if str(m, "code") != "MISSING_REQUIRED_NOTES" && str(m, "code") != "REQUIRED_CAPABILITY_UNKNOWN" && !strings.Contains(str(m, "message"), "still held WorkRail's template") {
				t.Errorf("the blocker does not say the template was sent back: %v", m)
			}
		}
		if skipped(last) == 0 {
			t.Errorf("ended blocked with a call that asks for nothing required: %s", last.Raw)
		}
	} else if last.kind() == "complete" {
		// Only a workflow that asks nothing of anyone completes here.
		for i, a := range run.asked {
			if a > 0 {
				t.Errorf("%s completed past %s, which asked for %d things", mode, str(run.answers[i].S, "pending", "stepId"), a)
			}
		}
	}
	noTemplateText(t, home, session)
}

// noTemplateText checks a session's log, title and resume index: no
// string of them holds WorkRail's template, but what WorkRail recorded
// itself (an attempt's blockers and notices, the pinned workflows); and the agent
// wrote nothing, so no output was recorded at all.
func noTemplateText(t *testing.T, home, session string) {
	t.Helper()
	code, out, stderr := command(t, home, "export", session)
	if code != 0 {
		t.Fatalf("export %s: exit %d: %s", session, code, stderr)
	}
	_, list, _ := command(t, home, "sessions", "--json")
	for _, doc := range []string{out, list} {
		var v any
		if err := json.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatal(err)
		}
		if where := templateAt(v, ""); where != "" {
			t.Errorf("template text is stored at %s", where)
		}
	}
	if strings.Contains(out, `"kind":"node_output_appended"`) {
		t.Errorf("the literal agent wrote nothing, yet an output was recorded")
	}
}

// templateAt is the pointer of the first string of v that holds template
// text, outside blockers, notices and the pinned workflows; "" when none
// does.
func templateAt(v any, ptr string) string {
	switch x := v.(type) {
	case string:
		for _, tt := range templateTexts {
			if strings.Contains(x, tt) {
				return ptr
			}
		}
	case map[string]any:
		for k, e := range x {
			if k == "blockers" || k == "notices" || k == "workflows" {
				continue // WorkRail's own: an attempt's instructions, the pinned programs
			}
			if w := templateAt(e, ptr+"/"+k); w != "" {
				return w
			}
		}
	case []any:
		for i, e := range x {
			if w := templateAt(e, fmt.Sprintf("%s/%d", ptr, i)); w != "" {
				return w
			}
		}
	}
	return ""
}

// Every bundled workflow, in every mode, for the literal agent.
func TestBundledWorkflowsLiteralAgent(t *testing.T) {
	home := newHome(t)
	c := startShim(t, home)
	for _, id := range bundledIDs(t, c) {
		for _, mode := range modes {
			t.Run(id+"/"+strings.TrimPrefix(mode, "wr.modes."), func(t *testing.T) {
				start := call(t, c, "start_workflow", map[string]any{"workflowId": id, "mode": mode, "context": requiredContext(t, c, id)})
				run := driveLiterally(t, c, start)
				t.Logf("%d answers, ended %s at %s", len(run.answers), run.last().kind(), str(run.last().S, "pending", "stepId"))
				checkLiteral(t, home, mode, run)
			})
		}
	}
}

// Every TypeScript-format fixture, in every mode, for the literal agent.
func TestLegacyWorkflowsLiteralCopy(t *testing.T) {
	home, c := legacyHome(t)
	for _, tc := range legacyCases() {
		for _, mode := range modes {
			t.Run(tc.file+"/"+strings.TrimPrefix(mode, "wr.modes."), func(t *testing.T) {
				start := call(t, c, "start_workflow", map[string]any{"workflowId": tc.id, "mode": mode, "context": tc.context})
				checkLiteral(t, home, mode, driveLiterally(t, c, start))
			})
		}
	}
}

// railsWorkflow is the six steps: a non-assumable choice, a step
// that asks the user's confirmation, an assessment with a follow-up, and a
// loop its own step decides.
const railsWorkflow = `{"id":"project.rails","name":"Rails","description":"Choices, confirmation, a rating and a loop.","version":"1.0.0",
 "assessments":[{"id":"confidence","purpose":"How sure the plan is.","dimensions":[{"id":"evidence","purpose":"The plan rests on evidence","levels":["low","high"]}]}],
 "steps":[
  {"id":"scope","title":"Scope the change","prompt":"Read the request."},
  {"id":"choose","title":"Choose the approach","prompt":"Offer the options.","userDependency":{"reason":"needs_user_choice","choiceKind":"scope_boundary",
    "summary":"The approach decides what is touched","requestedFromUser":"Which approach?","options":["Option A","Option B"]}},
  {"id":"apply","title":"Apply the change","prompt":"Apply it.","requireConfirmation":true},
  {"id":"rate","title":"Rate the plan","prompt":"Rate it.","assessmentRefs":["confidence"],
   "assessmentConsequences":[{"when":{"anyEqualsLevel":"low"},"effect":{"kind":"require_followup","guidance":"Gather more evidence."}}]},
  {"id":"polish","title":"Polish","loop":{"kind":"while","maxIterations":3},"body":[
    {"id":"pass","title":"One pass","prompt":"Polish one thing."},
    {"id":"decide","title":"Decide","prompt":"Another pass?","output":{"contractRef":"wr.contracts.loop_control"}}]},
  {"id":"ship","title":"Ship","prompt":"Ship it."}]}`

// railsHome is a home with a project whose folder holds railsWorkflow.
func railsHome(t *testing.T) (home, project string, c *client.Client) {
	t.Helper()
	home = newHome(t)
	project = t.TempDir()
	dir := filepath.Join(project, ".workrail", "workflows")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rails.json"), []byte(railsWorkflow), 0o644); err != nil {
		t.Fatal(err)
	}
	return home, project, startShim(t, home)
}

// The run: copied as it is, guided stops at the user's choice and
// never-stop completes with exactly four critical gaps, one for each thing
// skipped (the choice, the confirmation, the rating, the loop decision),
// each named in the complete answer with how to resolve it.
func TestRailsLiteralAgent(t *testing.T) {
	home, project, c := railsHome(t)
	start := func(mode string) result {
		return call(t, c, "start_workflow", map[string]any{"workflowId": "project.rails", "mode": mode, "workspacePath": project})
	}
	guided := driveLiterally(t, c, start(modes[0]))
	if last := guided.last(); last.kind() != "blocked" || str(last.S, "pending", "stepId") != "choose" {
		t.Fatalf("guided ended %s at %s:\n%s", last.kind(), str(last.S, "pending", "stepId"), last.Text)
	}
	checkLiteral(t, home, modes[0], guided)
	never := driveLiterally(t, c, start(modes[2]))
	checkLiteral(t, home, modes[2], never)
	last := never.last()
	var gaps []string
	for _, g := range asList(last.S["openGaps"]) {
		m := g.(map[string]any)
		gaps = append(gaps, fmt.Sprintf("%s %s", str(m, "severity"), str(m, "relatedStepId")))
	}
	if want := []string{"critical choose", "critical apply", "critical rate", "critical decide"}; !slices.Equal(gaps, want) {
		t.Fatalf("open gaps %v; want %v:\n%s", gaps, want, last.Text)
	}
	for _, want := range []string{"The user's choice was not asked", "Continued without confirmation", "The rating was not made", "Gather more evidence.",
		"The loop decision was not made at step decide: the loop stopped"} {
		if !strings.Contains(last.Text, want) {
			t.Errorf("the complete answer does not say %q:\n%s", want, last.Text)
		}
	}
	for _, a := range never.answers {
		if str(a.S, "pending", "stepId") == "pass" && strings.Contains(a.Text, "iteration 2") {
			t.Errorf("the loop ran again without a decision:\n%s", a.Text)
		}
	}
}

// A deciding agent (it answers for the user, rates low then high,
// continues the loop once) gets exactly its own answers recorded, and
// nothing of the template.
func TestRailsDecidingAgent(t *testing.T) {
	home, project, c := railsHome(t)
	r := call(t, c, "start_workflow", map[string]any{"workflowId": "project.rails", "workspacePath": project})
	session := str(r.S, "session", "sessionId")
	rated, decided := 0, 0
	var sent []string
	for i := 0; r.kind() != "complete"; i++ {
		if i > 30 {
			t.Fatalf("no completion within 30 calls at %s:\n%s", str(r.S, "pending", "stepId"), r.Text)
		}
		step := str(r.S, "pending", "stepId")
		args := fillCall(t, r, func(fill map[string]any) any {
			switch ptr := str(fill, "pointer"); {
			case ptr == "/output/notesMarkdown":
				return "Did " + step + "."
			case strings.HasSuffix(ptr, "/choice"):
				return "Option B"
			case strings.HasSuffix(ptr, "/response"):
				return "The user said: go with B."
			case strings.HasSuffix(ptr, "/evidence"):
				rated++
				return map[bool]string{true: "low", false: "high"}[rated == 1]
			case strings.HasSuffix(ptr, "/decision"):
				decided++
				return map[bool]string{true: "continue", false: "stop"}[decided == 1]
			}
			return "Because."
		})
		for _, a := range asList(dig(args, "output", "artifacts")) {
			b, _ := json.Marshal(a)
			sent = append(sent, string(b))
		}
		r = call(t, c, "continue_workflow", args)
	}
	if rated != 2 || decided != 2 {
		t.Fatalf("rated %d times, decided %d times; want 2 and 2", rated, decided)
	}
	code, out, stderr := command(t, home, "export", session)
	if code != 0 {
		t.Fatalf("export: %s", stderr)
	}
	var b struct {
		Events []struct {
			Kind string `json:"kind"`
			Data struct {
				Artifacts []json.RawMessage `json:"artifacts"`
			} `json:"data"`
		} `json:"events"`
	}
	if err := json.Unmarshal([]byte(out), &b); err != nil {
		t.Fatal(err)
	}
	var recorded []string
	for _, e := range b.Events {
		for _, a := range e.Data.Artifacts {
			recorded = append(recorded, canonicalJSON(t, a))
		}
	}
	// The rating that asked for a follow-up and the blocked attempts
	// record no output; every advanced one records what was sent.
	var want []string
	for _, s := range sent {
		if !strings.Contains(s, `"low"`) {
			want = append(want, canonicalJSON(t, json.RawMessage(s)))
		}
	}
	if !slices.Equal(recorded, want) {
		t.Errorf("recorded artifacts\n%s\nwant what the agent sent\n%s", strings.Join(recorded, "\n"), strings.Join(want, "\n"))
	}
	for _, tt := range templateTexts {
		if strings.Contains(out, `"notesMarkdown":"`+tt) || strings.Contains(strings.Join(recorded, ""), tt) {
			t.Errorf("the log holds %q as the agent's", tt)
		}
	}
}

// canonicalJSON is a JSON value with its object keys sorted, as the log
// stores it.
func canonicalJSON(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
