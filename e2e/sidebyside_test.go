package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// The TypeScript WorkRail and WorkRail, side by side: both run the same
// workflow files with the same scripted decisions, and the step
// sequences, the loops' pass counts and the authored lines each prompt
// shows are compared. The only differences allowed are those listed,
// each with its reason, in testdata/sidebyside/differences.md.
//
// The TypeScript WorkRail is a checkout the developer built and names in
// WORKRAIL_TS_DIR (npm ci && npm run build there); nothing is fetched or
// built here. Without Node or that checkout the test is skipped, saying
// so.

// tsDir is the TypeScript WorkRail checkout to compare with, or why the
// comparison cannot run.
func tsDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("WORKRAIL_TS_DIR")
	if dir == "" {
		t.Skip("WORKRAIL_TS_DIR is not set: point it at a built checkout of the TypeScript WorkRail (npm ci && npm run build in it) to run the side-by-side comparison")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH: the side-by-side comparison runs the TypeScript WorkRail with it")
	}
	if _, err := os.Stat(filepath.Join(dir, "dist", "mcp-server.js")); err != nil {
		t.Skipf("%s has no dist/mcp-server.js: build the checkout first (npm ci && npm run build)", dir)
	}
	return dir
}

// tsServer is a TypeScript WorkRail MCP server over stdio, with a home of
// its own (it writes ~/.workrail) and its JSON responses on.
type tsServer struct {
	c *client.Client
}

func startTS(t *testing.T, dir string, userFiles map[string][]byte) *tsServer {
	t.Helper()
	home := t.TempDir()
	user := filepath.Join(home, ".workrail", "workflows")
	if err := os.MkdirAll(user, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, b := range userFiles {
		if err := os.WriteFile(filepath.Join(user, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	stderr := &syncBuffer{}
	inHome := func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
		cmd := exec.CommandContext(ctx, command, args...)
		cmd.Env, cmd.Dir = append(os.Environ(), env...), home
		return cmd, nil
	}
	// NODE_ENV=test keeps it from starting its console in the background.
	c, err := client.NewStdioMCPClientWithOptions("node", []string{"HOME=" + home, "NODE_ENV=test", "WORKRAIL_JSON_RESPONSES=true"},
		[]string{filepath.Join(dir, "dist", "mcp-server.js")}, transport.WithCommandStderrWriter(stderr), transport.WithCommandFunc(inHome))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "workrail-side-by-side", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize the TypeScript WorkRail: %v\n%s", err, stderr)
	}
	return &tsServer{c: c}
}

// call sends one tool call and reads its JSON answer.
func (s *tsServer) call(t *testing.T, name string, args map[string]any) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	res, err := s.c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("TypeScript WorkRail %s: %v", name, err)
	}
	var out map[string]any
	if len(res.Content) == 0 {
		t.Fatalf("TypeScript WorkRail %s: no content", name)
	}
	text, _ := res.Content[0].(mcp.TextContent)
	if err := json.Unmarshal([]byte(text.Text), &out); err != nil {
		t.Fatalf("TypeScript WorkRail %s answered no JSON: %v\n%.500s", name, err, text.Text)
	}
	return out
}

// seen is one answer as the comparison reads it, whichever side gave it.
type seen struct {
	kind   string // step, blocked, complete, error
	step   string // step id, routine steps written caller.step
	prompt string
	code   string // the first blocker's or the error's code
}

// scenario is one run of one workflow on both sides.
type scenario struct {
	name string
	lib  string // "ts": the TypeScript library; "fixtures": WorkRail's fixtures
	file string // the workflow file, in its library
	// ctx is the context the run starts with (sent with the TypeScript
	// WorkRail's acknowledgement of its onboarding step).
	ctx map[string]any
	// sends is the context sent with a step's first answer.
	sends map[string]map[string]any
	// continues is how many times a loop's deciding step says continue
	// before it says stop (1 when not named).
	continues map[string]int
}

// scenarios are the runs compared: the TypeScript library's workflows
// with decisions that reach their branches, and WorkRail's fixtures of
// each construct the TypeScript engine accepts.
var scenarios = []scenario{
	{name: "session-persistence", lib: "ts", file: "test-session-persistence.json"},
	{name: "artifact-loop-control", lib: "ts", file: "test-artifact-loop-control.json", continues: map[string]int{"init-loop": 1, "iteration-decision": 1}},
	{name: "bug-plain", lib: "ts", file: "bug-investigation.agentic.v2.json"},
	{name: "bug-late", lib: "ts", file: "bug-investigation.agentic.v2.json",
		sends: map[string]map[string]any{"phase-2-hypothesis-generation-and-shortlist": {"retriageNeeded": true}}},
	{name: "doc-simple", lib: "ts", file: "document-creation-workflow.json", ctx: map[string]any{"docComplexity": "Simple"}},
	{name: "doc-complex", lib: "ts", file: "document-creation-workflow.json", ctx: map[string]any{"docComplexity": "complex"}},
	{name: "doc-late", lib: "ts", file: "document-creation-workflow.json",
		sends: map[string]map[string]any{"phase-4-create": {"docComplexity": "Standard"}}},
	{name: "ctx-depth-number", lib: "ts", file: "routines/context-gathering.json", ctx: map[string]any{"depth": 2}},
	{name: "ctx-depth-string", lib: "ts", file: "routines/context-gathering.json", ctx: map[string]any{"depth": "2"}},
	{name: "discovery-quick", lib: "ts", file: "wr.discovery.json", ctx: map[string]any{"rigorMode": "QUICK"}},
	{name: "shaping", lib: "ts", file: "wr.shaping.json"},
	{name: "research", lib: "ts", file: "wr.research.json"},
	{name: "differentiation", lib: "ts", file: "wr.differentiation.json"},
	{name: "documentation-update", lib: "ts", file: "documentation-update-workflow.json"},
	{name: "production-readiness", lib: "ts", file: "production-readiness-audit.json"},
	{name: "wfw-plain", lib: "ts", file: "workflow-for-workflows.json"},
	{name: "mr-plain", lib: "ts", file: "mr-review-workflow.agentic.v2.json"},
	{name: "mr-late", lib: "ts", file: "mr-review-workflow.agentic.v2.json",
		sends: map[string]map[string]any{"phase-4b-canonical-synthesis": {"needsReviewerBundle": true, "reviewFamilies": []any{"correctness_invariants", "tests_docs_rollout"}}}},
	{name: "coding-small", lib: "ts", file: "coding-task-workflow-agentic.json", ctx: map[string]any{"taskComplexity": "Small", "rigorMode": "QUICK"}},
	{name: "relocation-arrays", lib: "ts", file: "relocation-workflow-us.json",
		sends: map[string]map[string]any{"phase-3-breadth-and-gate": {"screeningBatches": []any{map[string]any{"name": "North"}, map[string]any{"name": "South"}}},
			"phase-5-shortlist": {"shortlist": []any{map[string]any{"name": "Porto"}}}}},
	{name: "fx-iteration-vars", lib: "fixtures", file: "loop-iteration-vars.json"},
	{name: "fx-count-var", lib: "fixtures", file: "loop-count-var.json", ctx: map[string]any{"interviewCount": 2}},
	{name: "fx-body-by-id", lib: "fixtures", file: "loop-body-by-id.json"},
	{name: "fx-until", lib: "fixtures", file: "loop-until.json", ctx: map[string]any{"sourcesFound": 1},
		sends: map[string]map[string]any{"search": {"sourcesFound": 5}}},
	{name: "fx-until-met-at-entry", lib: "fixtures", file: "loop-until.json", ctx: map[string]any{"sourcesFound": 5}},
	{name: "fx-function-refs", lib: "fixtures", file: "function-refs.json"},
	{name: "fx-skipped-reconsidered", lib: "fixtures", file: "skipped-reconsidered.json",
		sends: map[string]map[string]any{"triage-slowness": {"needsProfiling": true}}},
	{name: "fx-contract-and-assessments", lib: "fixtures", file: "contract-and-assessments.json"},
	{name: "fx-conditions", lib: "fixtures", file: "conditions.json",
		ctx: map[string]any{"teamSize": " Large ", "channel": "email", "labels": []any{"Backend", "docs"}, "riskScore": 7, "coverage": "80", "dryRun": "yes"}},
}

// TestSideBySideWithTheTypeScriptWorkRail drives every scenario on both
// sides and holds their differences to the committed list.
func TestSideBySideWithTheTypeScriptWorkRail(t *testing.T) {
	dir := tsDir(t)
	library := filepath.Join(dir, "workflows")
	fixtures, err := filepath.Abs(legacyDir)
	if err != nil {
		t.Fatal(err)
	}
	userFiles := map[string][]byte{}
	for _, sc := range scenarios {
		if sc.lib == "fixtures" {
			b, err := os.ReadFile(filepath.Join(fixtures, sc.file))
			if err != nil {
				t.Fatal(err)
			}
			userFiles[sc.file] = b
		}
	}
	ts := startTS(t, dir, userFiles)
	home := newHome(t)
	cfg, _ := json.Marshal(map[string]any{"workflowPaths": []string{library, fixtures}})
	if err := os.WriteFile(filepath.Join(home, "config.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	ours := startShim(t, home)
	workspace := t.TempDir()

	var found []difference
	var tsTimes, ourTimes []time.Duration
	identical, loopsEqual, loops, lines, linesKept := 0, 0, 0, 0, 0
	for _, sc := range scenarios {
		src := filepath.Join(library, sc.file)
		if sc.lib == "fixtures" {
			src = filepath.Join(fixtures, sc.file)
		}
		def := readDefinition(t, src)
		d := &decider{sc: sc, def: def}
		tsRun, tsT := driveTS(t, ts, def.id, workspace, d)
		d = &decider{sc: sc, def: def}
		ourRun, ourT := driveOurs(t, ours, ourID(def.id), workspace, d)
		tsTimes, ourTimes = append(tsTimes, tsT...), append(ourTimes, ourT...)

		a, b := sequence(tsRun), sequence(ourRun)
		if slices.Equal(a, b) {
			identical++
		} else {
			found = append(found, difference{sc.name, "sequence", firstDivergence(a, b)})
		}
		for _, l := range def.loops {
			loops++
			na, nb := passes(a, l), passes(b, l)
			if na == nb {
				loopsEqual++
				continue
			}
			found = append(found, difference{sc.name, "loop", fmt.Sprintf("%s: ts %d, ours %d", l.id, na, nb)})
		}
		checked, missing := authoredLines(def, tsRun, ourRun)
		lines += checked
		linesKept += checked - len(missing)
		for _, m := range missing {
			found = append(found, difference{sc.name, "line", m})
		}
		t.Logf("%-28s ts %-60s\n%-28s ours %s", sc.name, strings.Join(a, " "), "", strings.Join(b, " "))
	}
	t.Logf("%d scenarios: step sequences identical in %d; loop pass counts equal in %d of %d loops; authored lines the TypeScript prompt shows that WorkRail's shows too: %d of %d; "+
		"per call, median: TypeScript %v, WorkRail %v (%d and %d calls)",
		len(scenarios), identical, loopsEqual, loops, linesKept, lines, median(tsTimes), median(ourTimes), len(tsTimes), len(ourTimes))
	checkDifferences(t, found)
}

// definition is what the comparison reads of a workflow file: its id,
// its steps by id (loop bodies included), its assessments and loops.
type definition struct {
	id          string
	steps       map[string]map[string]any
	assessments map[string][]dimension
	loops       []loopDef
}

type loopDef struct {
	id   string
	body []string
}

func readDefinition(t *testing.T, path string) definition {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		ID          string           `json:"id"`
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
		t.Fatalf("%s: %v", path, err)
	}
	d := definition{id: doc.ID, steps: map[string]map[string]any{}, assessments: map[string][]dimension{}}
	for _, s := range doc.Steps {
		d.steps[s["id"].(string)] = s
		var body []string
		switch x := s["body"].(type) {
		case []any:
			for _, bs := range x {
				m := bs.(map[string]any)
				d.steps[m["id"].(string)] = m
				body = append(body, m["id"].(string))
			}
		case string:
			body = []string{x}
		default:
			continue
		}
		d.loops = append(d.loops, loopDef{id: s["id"].(string), body: body})
	}
	for _, a := range doc.Assessments {
		for _, dim := range a.Dimensions {
			d.assessments[a.ID] = append(d.assessments[a.ID], dimension{dim.ID, dim.Levels})
		}
	}
	return d
}

// ourID is the id a file of the TypeScript library loads under from a
// workflowPaths folder: wr.x is WorkRail's own namespace, so repo.x.
func ourID(id string) string {
	if rest, ok := strings.CutPrefix(id, "wr."); ok {
		return "repo." + rest
	}
	return id
}

// decider makes the same decisions on both sides: notes of ten lines
// that meet the step's criteria; each loop decision continue as often as
// the scenario says, then stop; each assessment rated at a level no
// consequence fires on; each contract's artifact as the TypeScript
// WorkRail's own example writes it; the scenario's context where it says.
type decider struct {
	sc     scenario
	def    definition
	visits map[string]int
}

func (d *decider) output(step string) map[string]any {
	if d.visits == nil {
		d.visits = map[string]int{}
	}
	d.visits[step]++
	def := d.def.steps[step]
	out := map[string]any{"notesMarkdown": d.notes(step, def)}
	var arts []any
	if oc, _ := def["outputContract"].(map[string]any); oc != nil {
		ref, _ := oc["contractRef"].(string)
		if ref == "wr.contracts.loop_control" {
			n, ok := d.sc.continues[step]
			if !ok {
				n = 1
			}
			decision := "stop"
			if d.visits[step] <= n {
				decision = "continue"
			}
			arts = append(arts, map[string]any{"kind": "wr.loop_control", "decision": decision})
		} else if a := contractArtifact(ref); a != nil {
			arts = append(arts, a)
		}
	}
	refs, _ := def["assessmentRefs"].([]any)
	for _, r := range refs {
		arts = append(arts, d.rating(r.(string), def))
	}
	if len(arts) > 0 {
		out["artifacts"] = arts
	}
	return out
}

// notes are ten lines about the step, with what its criteria ask: each
// text it must contain, and the length it must reach.
func (d *decider) notes(step string, def map[string]any) string {
	var b strings.Builder
	for i := range 10 {
		fmt.Fprintf(&b, "- %s, line %d: what was done and found at this step, with the evidence.\n", step, i+1)
	}
	var visit func(v any)
	minLen := 0
	visit = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				visit(e)
			}
		case map[string]any:
			if x["type"] == "contains" {
				fmt.Fprintf(&b, "%v\n", x["value"])
			}
			if x["type"] == "length" {
				if m, ok := x["min"].(float64); ok {
					minLen = max(minLen, int(m))
				}
			}
			for _, k := range []string{"and", "or"} {
				visit(x[k])
			}
		}
	}
	visit(def["validationCriteria"])
	for b.Len() < minLen {
		b.WriteString("More of what was found, line by line.\n")
	}
	return b.String()
}

func (d *decider) rating(ref string, def map[string]any) map[string]any {
	triggers := map[string]bool{}
	cs, _ := def["assessmentConsequences"].([]any)
	for _, c := range cs {
		triggers[str(c.(map[string]any), "when", "anyEqualsLevel")] = true
	}
	dims := map[string]any{}
	for _, dim := range d.def.assessments[ref] {
		dims[dim.id] = calmLevel(dim.levels, triggers)
	}
	return map[string]any{"kind": "wr.assessment", "assessmentId": ref, "dimensions": dims}
}

// contractArtifact is an artifact of each contract as the TypeScript
// WorkRail's own schema and the workflows' prompts write it.
func contractArtifact(ref string) map[string]any {
	var a map[string]any
	raw := map[string]string{
		"wr.contracts.coding_handoff": `{"kind":"wr.coding_handoff","version":1,"branchName":"fix/retry","keyDecisions":["Retry in the client."],"knownLimitations":["None known."],"testsAdded":["retry_test.go"],"filesChanged":["retry.go"]}`,
		"wr.contracts.review_verdict": `{"kind":"wr.review_verdict","verdict":"clean","confidence":"high","findings":[],"summary":"No issue found."}`,
		"wr.contracts.discovery_handoff": `{"kind":"wr.discovery_handoff","version":1,"selectedDirection":"Cache compiled workflows by hash.","designDocPath":"",` +
			`"confidenceBand":"high","keyInvariants":["A pinned run keeps its version."]}`,
		"wr.contracts.shaping_handoff": `{"kind":"wr.shaping_handoff","version":1,"pitchPath":"docs/pitch.md","selectedShape":"Export from the list","appetite":"two weeks",` +
			`"keyConstraints":["No new storage."],"rabbitHoles":["Streaming."],"outOfScope":["PDF."],"validationChecklist":["It opens in a spreadsheet."]}`,
		"wr.contracts.differentiation_handoff": `{"kind":"wr.differentiation_handoff","version":1,"schemaVersion":"1.0.0","generatedAt":"2026-11-20T10:00:00Z",` +
			`"evidenceFreshness":{"oldestCapturedAt":"2026-09-01T00:00:00Z","newestCapturedAt":"2026-11-18T00:00:00Z"},"validationChecklist":["Three teams confirm it."],` +
			`"shapingHandoff":{"rawIdea":"Offline mode","problem":"Field staff lose work without signal.","baseline":"Paper notes.","appetiteHint":"small_batch",` +
			`"noGosHints":["No sync UI."],"constraints":{"teamSize":2,"technicalCapabilities":["local storage"],"exclusions":[]},` +
			`"evidenceTopK":["0b7c6a2e-6f2a-4c1e-9d7e-3a1f5b2c8d90"],"defensibilityClaim":{"power":"Switching Costs","cannibalization":"none"}}}`,
	}[ref]
	if raw == "" {
		return nil
	}
	json.Unmarshal([]byte(raw), &a)
	return a
}

// driveTS runs id on the TypeScript WorkRail to its end or its first
// block or error, and times each call.
func driveTS(t *testing.T, ts *tsServer, id, workspace string, d *decider) ([]seen, []time.Duration) {
	t.Helper()
	var out []seen
	var times []time.Duration
	timed := func(name string, args map[string]any) map[string]any {
		start := time.Now()
		r := ts.call(t, name, args)
		times = append(times, time.Since(start))
		return r
	}
	r := timed("start_workflow", map[string]any{"workflowId": id, "workspacePath": workspace, "goal": "Compare the two WorkRails on this workflow."})
	for i := 0; i < 120; i++ {
		s := tsSeen(r)
		if s.step == "wr-system-onboarding" {
			args := map[string]any{"continueToken": str(r, "continueToken"), "output": map[string]any{"notesMarkdown": "Understood."}}
			if d.sc.ctx != nil {
				args["context"] = d.sc.ctx
			}
			r = timed("continue_workflow", args)
			continue
		}
		out = append(out, s)
		if s.kind != "step" {
			if s.kind != "complete" {
				raw, _ := json.Marshal(r)
				t.Logf("%s: the TypeScript WorkRail answered %s: %.800s", id, s.kind, raw)
			}
			return out, times
		}
		args := map[string]any{"continueToken": str(r, "continueToken"), "output": d.output(s.step)}
		if ctx := d.sc.sends[s.step]; ctx != nil && d.visits[s.step] == 1 {
			args["context"] = ctx
		}
		r = timed("continue_workflow", args)
	}
	t.Fatalf("%s: no end within 120 calls on the TypeScript WorkRail", id)
	return nil, nil
}

func tsSeen(r map[string]any) seen {
	switch {
	case r["code"] != nil:
		return seen{kind: "error", code: str(r, "code")}
	case r["isComplete"] == true:
		return seen{kind: "complete"}
	case r["kind"] == "blocked":
		s := seen{kind: "blocked", step: str(r, "pending", "stepId")}
		// Its blockers come wrapped: {"blockers": {"blockers": [...]}}.
		if b := asList(dig(r, "blockers", "blockers")); len(b) > 0 {
			s.code = str(b[0].(map[string]any), "code")
		}
		return s
	}
	return seen{kind: "step", step: str(r, "pending", "stepId"), prompt: str(r, "pending", "prompt")}
}

// driveOurs runs id on WorkRail, guided, as driveTS does.
func driveOurs(t *testing.T, c *client.Client, id, workspace string, d *decider) ([]seen, []time.Duration) {
	t.Helper()
	var out []seen
	var times []time.Duration
	timed := func(name string, args map[string]any) result {
		start := time.Now()
		r := call(t, c, name, args)
		times = append(times, time.Since(start))
		return r
	}
	args := map[string]any{"workflowId": id, "workspacePath": workspace}
	if d.sc.ctx != nil {
		args["context"] = d.sc.ctx
	}
	r := timed("start_workflow", args)
	for i := 0; i < 120; i++ {
		s := seen{kind: r.kind(), step: strings.ReplaceAll(str(r.S, "pending", "stepId"), "--", "."), prompt: str(r.S, "pending", "prompt")}
		switch s.kind {
		case "blocked":
			if b := asList(r.S["blockers"]); len(b) > 0 {
				s.code = str(b[0].(map[string]any), "code")
			}
		case "error":
			s.code = str(r.S, "error", "code")
		}
		out = append(out, s)
		if s.kind != "step" {
			return out, times
		}
		step := str(r.S, "pending", "stepId")
		output := d.output(strings.ReplaceAll(step, "--", "."))
		// WorkRail asks the user to confirm where the step asks for it
		// (the TypeScript WorkRail only flags it): the user confirms.
		if dig(r.S, "pending", "requireConfirmation") == true || dig(r.S, "pending", "userDependency") != nil {
			output["artifacts"] = append(asList(output["artifacts"]), map[string]any{"kind": "wr.user_response", "response": "Yes, go on."})
		}
		next := map[string]any{"stateToken": str(r.S, "nextCall", "arguments", "stateToken"), "ackToken": str(r.S, "nextCall", "arguments", "ackToken"),
			"output": output}
		if ctx := d.sc.sends[s.step]; ctx != nil && d.visits[s.step] == 1 {
			next["context"] = ctx
		}
		r = timed("continue_workflow", next)
	}
	t.Fatalf("%s: no end within 120 calls on WorkRail", id)
	return nil, nil
}

// sequence is a run as the ids it went through, ended by how it ended.
func sequence(run []seen) []string {
	var out []string
	for _, s := range run {
		switch s.kind {
		case "step":
			out = append(out, s.step)
		case "complete":
			out = append(out, "(complete)")
		case "blocked":
			out = append(out, fmt.Sprintf("(blocked at %s: %s)", s.step, s.code))
		default: // an error names no step
			out = append(out, fmt.Sprintf("(%s: %s)", s.kind, s.code))
		}
	}
	return out
}

func firstDivergence(a, b []string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	at := func(s []string) string {
		if i < len(s) {
			return s[i]
		}
		return "(nothing)"
	}
	return fmt.Sprintf("at %d: ts %s, ours %s", i+1, at(a), at(b))
}

// passes is how many passes of loop l a sequence ran: the most times
// any step of its body ran.
func passes(seq []string, l loopDef) int {
	n := 0
	for _, id := range l.body {
		c := 0
		for _, s := range seq {
			if s == id || strings.HasPrefix(s, id+".") {
				c++
			}
		}
		n = max(n, c)
	}
	return n
}

var (
	markup = regexp.MustCompile("[*`_#>]+")
	spaces = regexp.MustCompile(`\s+`)
	bullet = regexp.MustCompile(`^(\d+\.|[-•])\s+`)
)

// normalized is a line as both sides may render it: no bullet,
// numbering or markdown emphasis, spaces collapsed.
func normalized(s string) string {
	s = bullet.ReplaceAllString(strings.TrimSpace(s), "")
	return strings.TrimSpace(spaces.ReplaceAllString(markup.ReplaceAllString(s, ""), " "))
}

// authoredLines checks, at every step both runs presented at the same
// place, that each line of the workflow's own text for it (its prompt,
// blocks and fragments) that the TypeScript prompt shows, WorkRail's
// shows too: how many were checked, and those missing.
func authoredLines(def definition, a, b []seen) (int, []string) {
	checked := 0
	var missing []string
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i].kind != "step" || b[i].kind != "step" || a[i].step != b[i].step {
			break
		}
		tsText, ourText := normalized(a[i].prompt), normalized(b[i].prompt)
		for _, line := range stepLines(def.steps[a[i].step]) {
			if len(line) < 20 || strings.Contains(line, "{{") || !strings.Contains(tsText, line) {
				continue
			}
			checked++
			if !strings.Contains(ourText, line) {
				missing = append(missing, fmt.Sprintf("%s: %.60s", a[i].step, line))
			}
		}
	}
	return checked, missing
}

// stepLines are the lines of a step's own text, normalized.
func stepLines(step map[string]any) []string {
	var texts []string
	var collect func(v any)
	collect = func(v any) {
		switch x := v.(type) {
		case string:
			texts = append(texts, x)
		case []any:
			for _, e := range x {
				collect(e)
			}
		case map[string]any:
			if x["kind"] == "text" {
				collect(x["text"])
				return
			}
			for _, k := range sortedKeysOf(x) {
				if k != "kind" && k != "refId" {
					collect(x[k])
				}
			}
		}
	}
	collect(step["prompt"])
	collect(step["promptBlocks"])
	for _, f := range asList(step["promptFragments"]) {
		collect(f.(map[string]any)["text"])
	}
	var out []string
	for _, t := range texts {
		sc := bufio.NewScanner(strings.NewReader(t))
		for sc.Scan() {
			if l := normalized(sc.Text()); l != "" {
				out = append(out, l)
			}
		}
	}
	return out
}

func sortedKeysOf(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2].Round(100 * time.Microsecond)
}

// difference is one way a scenario's run differs between the two sides.
type difference struct{ scenario, what, detail string }

// checkDifferences holds the differences found to the committed list:
// each found is listed (with its reason), and each listed is found.
func checkDifferences(t *testing.T, found []difference) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "sidebyside", "differences.md"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[difference]string{}
	for _, line := range strings.Split(string(b), "\n") {
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		if len(cells) != 4 || !strings.HasPrefix(strings.TrimSpace(line), "|") {
			continue
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(strings.ReplaceAll(cells[i], "`", ""))
		}
		if cells[0] == "scenario" || strings.HasPrefix(cells[0], "---") {
			continue
		}
		if cells[3] == "" {
			t.Errorf("the listed difference %v gives no reason", cells[:3])
		}
		listed[difference{cells[0], cells[1], cells[2]}] = cells[3]
	}
	for _, d := range found {
		if _, ok := listed[d]; !ok {
			t.Errorf("a difference not listed in testdata/sidebyside/differences.md:\n| `%s` | %s | %s | (why) |", d.scenario, d.what, d.detail)
		}
		delete(listed, d)
	}
	for d := range listed {
		t.Errorf("listed in testdata/sidebyside/differences.md but not found (remove it): %s | %s | %s", d.scenario, d.what, d.detail)
	}
}
