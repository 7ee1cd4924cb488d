package protocol_test

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/fill"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

func TestRetryText(t *testing.T) {
	tests := []struct {
		retry engine.Retry
		want  string
	}{
		{engine.Retry{Kind: engine.NotRetryable}, "retry: not_retryable\n"},
		{engine.Retry{Kind: engine.RetryableImmediately}, "retry: retryable_immediately\n"},
		{engine.Retry{Kind: engine.RetryableAfterMs, AfterMs: 1000}, "retry: retryable_after_ms (1000 ms)\n"},
		{engine.Retry{Kind: engine.RetryableAfterMs, AfterMs: 250}, "retry: retryable_after_ms (250 ms)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			e := &engine.Error{Code: engine.CodeInternal, Message: "m", Retry: tt.retry}
			text := protocol.NewError(e).Text
			if _, rest, _ := strings.Cut(text, "\n"); !strings.HasPrefix(rest, tt.want) {
				t.Errorf("text %q; want second line %q", text, tt.want)
			}
		})
	}
}

func TestErrorSuggestionLines(t *testing.T) {
	tests := []struct {
		s    engine.Suggestion
		want string
	}{
		{engine.Suggestion{Path: "variables", DidYouMean: "context"}, "- `variables`: did you mean `context`?"},
		{engine.Suggestion{Path: "completedSteps", Note: "is not part of this contract."}, "- `completedSteps` is not part of this contract."},
		{engine.Suggestion{Path: "vars", DidYouMean: "context", Note: "(inputs only)"}, "- `vars`: did you mean `context`? (inputs only)"},
		{engine.Suggestion{Path: "x"}, "- `x`"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			e := engine.Errorf(engine.CodeUnknownKey, "unknown.")
			e.Suggestions = []engine.Suggestion{tt.s}
			text := protocol.NewError(e).Text
			want := "\n## Suggestions\n" + tt.want + "\n"
			if !strings.HasSuffix(text, want) {
				t.Errorf("text %q\nwant it to end with %q", text, want)
			}
		})
	}
}

func TestUserInputSection(t *testing.T) {
	const ask = "Ask the user and wait for their answer; never answer for them. Then put it in the wr.user_response of the call below, in place of its markers; without it the step is blocked.\n"
	const askSecret = "Ask the user and wait. Keep the secret in this chat (or let the user put it where the tool that needs it reads it): never send its value to WorkRail, which replaces anything that looks like a secret with a [redacted: <rule>] marker before storing it. Then say in the wr.user_response of the call below only that the user provided it; without it the step is blocked.\n"
	const dontWait = "You are in full_auto_never_stop: do not wait and do not answer for the user. Make the most conservative assumption, state it in your notes, and continue; WorkRail records a critical gap saying the user was not asked.\n"
	dep := &workflow.UserDependency{Reason: workflow.NeedsUserSecretOrToken, RequestedFromUser: "the API token"}
	withOptions := *dep
	withOptions.Options = []string{"a", "b c"}
	account := &workflow.UserDependency{Reason: workflow.NeedsUserAccountAccess, RequestedFromUser: "a login"}
	confirm := outcome.UserNeed{Confirm: true, Title: "Post the comments"}.Dependency()
	tests := []struct {
		name     string
		autonomy workflow.Autonomy
		dep      *workflow.UserDependency
		confirm  bool
		want     string // "" when there is no section
	}{
		{"guided", workflow.Guided, dep, false, "Only the user can provide this (needs_user_secret_or_token): the API token\n" + askSecret},
		{"stop on user deps", workflow.FullAutoStopOnUserDep, &withOptions, false,
			"Only the user can provide this (needs_user_secret_or_token): the API token\nOptions: a | b c\n" + askSecret},
		{"not a secret", workflow.Guided, account, false, "Only the user can provide this (needs_user_account_access): a login\n" + ask},
		{"never stop", workflow.FullAutoNeverStop, &withOptions, false,
			"Only the user can provide this (needs_user_secret_or_token): the API token\nOptions: a | b c\n" + dontWait},
		{"confirmation", workflow.Guided, confirm, true, "Ask the user to confirm \"Post the comments\" before you continue.\n" + ask},
		{"confirmation never stop", workflow.FullAutoNeverStop, confirm, true, "Ask the user to confirm \"Post the comments\" before you continue.\n" + dontWait},
		{"a dependency and a confirmation", workflow.Guided, account, true,
			"Ask the user to confirm \"Post the comments\" before you continue.\nOnly the user can provide this (needs_user_account_access): a login\n" + ask},
		{"no dependency", workflow.FullAutoNeverStop, nil, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := minimalView()
			v.Preferences.Autonomy = tt.autonomy
			p := minimalPending()
			p.UserDependency, p.RequireConfirmation = tt.dep, tt.confirm
			if tt.confirm {
				p.Title = "Post the comments"
			}
			text := protocol.NewStep(v, p, protocol.Progress{Part: 1, Parts: 1}).Text
			_, body, found := strings.Cut(text, "\n## User input\n")
			if tt.want == "" {
				if found {
					t.Errorf("a User input section without a dependency:\n%s", text)
				}
				return
			}
			if !strings.HasPrefix(body, tt.want+"\n## ") {
				t.Errorf("User input section\n%s\nwant\n%s", body, tt.want)
			}
		})
	}
}

// section returns the body of the "## name" section of text, or false.
func section(text, name string) (string, bool) {
	_, body, ok := strings.Cut(text, "\n## "+name+"\n")
	if !ok {
		return "", false
	}
	if i := strings.Index(body, "\n## "); i >= 0 {
		body = body[:i]
	}
	return body, true
}

func TestRecapSection(t *testing.T) {
	const intro = "Notes recorded so far in this run, oldest first; to correct one, send the correction with output.supersedesOutputId set to its id:\n"
	tests := []struct {
		name  string
		recap *project.PathRecap
		want  string // "" when there is no section
	}{
		{"nil", nil, ""},
		{"empty", &project.PathRecap{}, ""},
		{"entries", &project.PathRecap{Entries: []project.PathEntry{
			{RecapEntry: event.RecapEntry{StepID: "a", NotesMarkdown: "\n  one\ntwo\n\n"}},
			{RecapEntry: event.RecapEntry{StepID: "b", NotesMarkdown: "three", Artifacts: []string{"k1", "k2"}}},
		}}, intro + "- a: one\n  two\n- b: three [artifacts: k1, k2]\n"},
		{"truncated", &project.PathRecap{Omitted: 4, Policy: "kept_most_recent", Entries: []project.PathEntry{{RecapEntry: event.RecapEntry{StepID: "c", NotesMarkdown: "last"}}}},
			intro + "(truncated: 4 older entries omitted; kept the most recent that fit 8192 bytes)\n- c: last\n"},
		{"only omitted entries", &project.PathRecap{Omitted: 1},
			intro + "(truncated: 1 older entries omitted; kept the most recent that fit 8192 bytes)\n"},
		{"entries that name their outputs, and what they replace", &project.PathRecap{Entries: []project.PathEntry{
			{RecapEntry: event.RecapEntry{StepID: "a", NotesMarkdown: "wrong"}, Output: "evt_1_7"},
			{RecapEntry: event.RecapEntry{StepID: "a", NotesMarkdown: "right"}, Output: "evt_1_12", Supersedes: "evt_1_7"},
		}}, intro + "- a (evt_1_7): wrong\n- a (evt_1_12, replaces evt_1_7): right\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := minimalView()
			v.Recap = tt.recap
			text := protocol.NewStep(v, minimalPending(), protocol.Progress{Part: 1, Parts: 1}).Text
			got, found := section(text, "Recap")
			if tt.want == "" {
				if found {
					t.Errorf("unexpected Recap section:\n%s", got)
				}
				return
			}
			if got != tt.want {
				t.Errorf("Recap section\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestBranchesSection(t *testing.T) {
	const intro = "This step was already done once from here (the chat was probably rewound). Your call started a new branch; the earlier ones are kept:\n"
	tests := []struct {
		name     string
		fork     *event.Fork
		branches string // "" when there is no section
		down     string // "" when there is no downstream recap
	}{
		{"no fork", nil, "", ""},
		{"one complete branch", &event.Fork{Siblings: []event.Branch{{Node: 9, Depth: 3}}},
			intro + "- node_9: 3 step(s) deep, complete\n", ""},
		{"branches, more not shown, downstream notes", &event.Fork{
			Siblings:   []event.Branch{{Node: 4, StepID: "b", Depth: 1, Summary: "did b"}, {Node: 5, StepID: "c", Depth: 2}},
			Omitted:    2,
			Downstream: event.Recap{Entries: []event.RecapEntry{{StepID: "b", NotesMarkdown: "did b"}}},
		}, intro + "- node_4: 1 step(s) deep, at step b; latest note: did b\n- node_5: 2 step(s) deep, at step c\n- … and 2 more branch(es) not shown\n",
			"What the most recently active earlier branch recorded after this point:\n- b: did b\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := minimalView()
			v.Fork = tt.fork
			r := protocol.NewStep(v, minimalPending(), protocol.Progress{Part: 1, Parts: 1})
			for _, s := range []struct{ name, want string }{{"Branches", tt.branches}, {"Downstream recap", tt.down}} {
				got, found := section(r.Text, s.name)
				if s.want == "" && found {
					t.Errorf("unexpected %s section:\n%s", s.name, got)
				}
				if s.want != "" && got != s.want {
					t.Errorf("%s section\n%q\nwant\n%q", s.name, got, s.want)
				}
			}
			if r.Fork != tt.fork {
				t.Errorf("fork %v; want the view's", r.Fork)
			}
		})
	}
}

// A complete answer names its open gaps worst first, at most
// MaxOpenGaps, and counts the rest; with none it says so.
func TestOpenGapsBounded(t *testing.T) {
	v := minimalView()
	for i := range protocol.MaxOpenGaps + 3 {
		sev := event.SeverityWarning
		if i == 0 {
			sev = event.SeverityCritical
		}
		v.OpenGaps = append(v.OpenGaps, protocol.OpenGap{Gap: protocol.Gap{GapID: engine.EventID(fmt.Sprintf("evt_1_%d", i+2)),
			GapRecordedData: event.GapRecordedData{Severity: sev, Summary: fmt.Sprintf("gap %d", i)}}})
	}
	r := protocol.NewComplete(v)
	got, _ := section(r.Text, "Open gaps")
	if r.OpenGapCount != protocol.MaxOpenGaps+3 || len(r.OpenGaps) != protocol.MaxOpenGaps ||
		!strings.HasPrefix(got, "13 gaps are still open, worst first:\n1. critical: gap 0\n2. warning: gap 1\n") ||
		!strings.HasSuffix(got, "10. warning: gap 9\n… and 3 more: every open gap is on the run's page in the Console.\n") {
		t.Errorf("open gaps %d of %d:\n%s", len(r.OpenGaps), r.OpenGapCount, got)
	}
	none := protocol.NewComplete(minimalView())
	if _, found := section(none.Text, "Open gaps"); found || !strings.Contains(none.Text, "No gap is open.") {
		t.Errorf("a complete answer without open gaps:\n%s", none.Text)
	}
}

// A rehydrate writes nothing: its picture of the branches says what
// continuing will do, never that the call started one; the advance's
// wording is the one above.
func TestBranchesSectionOnRehydrate(t *testing.T) {
	v := minimalView()
	v.Fork, v.Rehydrate = &event.Fork{Siblings: []event.Branch{{Node: 9, Depth: 3}}}, true
	r := protocol.NewStep(v, minimalPending(), protocol.Progress{Part: 1, Parts: 1})
	got, _ := section(r.Text, "Branches")
	want := "This step was already done once from here (the chat was probably rewound). Continuing from here starts a new branch; the earlier ones are kept:\n" +
		"- node_9: 3 step(s) deep, complete\n"
	if got != want {
		t.Errorf("Branches section\n%q\nwant\n%q", got, want)
	}
	v.Fork = nil
	if r := protocol.NewStep(v, minimalPending(), protocol.Progress{Part: 1, Parts: 1}); strings.Contains(r.Text, "## Branches") {
		t.Errorf("a rehydrate of a node without children pictures branches:\n%s", r.Text)
	}
}

func TestGapsSkippedWarningsLines(t *testing.T) {
	r := protocol.NewComplete(fullView())
	tests := []struct{ section, want string }{
		{"Gaps recorded", "- evt_7_12 [warning, assumption_made]: Assumed Go 1.26. To resolve: Confirm the Go version.\n" +
			"- evt_7_13 [critical, user_only_dependency]: No style guide chosen.\n"},
		{"Skipped", "- lint-js (condition_false): lang == \"js\"; not set in context: lang, framework\n- fuzz-loop (loop_not_entered)\n"},
		{"Warnings", "- CONTEXT_KEY_UNDECLARED: context.extra is not an input of this workflow: it is stored, but no condition or loop reads it\n" +
			"- OUTPUT_IGNORED_ON_REPLAY: " + protocol.OutputIgnoredOnReplay("").Message + "\n" +
			"  Call continue_workflow with exactly these arguments: {\"stateToken\":\"st.v1.PARENTtokenFIXED\"}\n"},
		{"Instructions", "This run is complete. There is no pending step: do not call continue_workflow for this run again.\n" +
			"Tell the user the workflow is finished and summarise the outcome, naming each open gap below: what was not done, and how to resolve it.\n"},
		{"Open gaps", "1 gap is still open, worst first:\n" +
			"1. critical, step \"Pick a style\" (pick-style): No style guide chosen. To resolve: Ask the user which style guide to follow.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.section, func(t *testing.T) {
			got, found := section(r.Text, tt.section)
			if !found || got != tt.want {
				t.Errorf("%s section\n%q\nwant\n%q", tt.section, got, tt.want)
			}
		})
	}
}

func TestBlockersSection(t *testing.T) {
	r := protocol.NewBlocked(fullView(), fullPending(), allBlockers)
	got, _ := section(r.Text, "Blockers")
	want := "1. USER_ONLY_DEPENDENCY (context.approval): The user must approve.\n" +
		"   Fix: Add {\"kind\":\"wr.user_response\",\"response\":\"<their answer>\"} to output.artifacts.\n" +
		"2. MISSING_REQUIRED_OUTPUT (output contract wr.contracts.review): No review artifact was sent.\n" +
		"3. REQUIRED_CAPABILITY_UNKNOWN (capability web_browsing): web_browsing was never probed.\n" +
		"   Fix: Probe it.\n" +
		"4. INVARIANT_VIOLATION (step review-file): The step cannot run twice.\n"
	if got != want {
		t.Errorf("Blockers section\n%s\nwant\n%s", got, want)
	}
	instr, _ := section(r.Text, "Instructions")
	if !strings.HasPrefix(instr, "Nothing advanced: the step above is still pending.") ||
		!strings.Contains(instr, "its ackToken is a fresh attempt; the one you sent is spent") {
		t.Errorf("Instructions %q do not say the attempt is spent and nothing advanced", instr)
	}
	if !reflect.DeepEqual(r.Blockers, allBlockers) {
		t.Errorf("blockers %+v; want the ones given", r.Blockers)
	}
}

// The Next call block is the exact JSON of nextCall.arguments, and that
// call parses (an agent that copies it never sends a malformed call), yet
// it answers nothing: where the agent writes, it holds markers, and
// fills lists each of them at its pointer.
func TestNextCallIsTheCopyableCall(t *testing.T) {
	step := protocol.NewStep(fullView(), fullPending(), protocol.Progress{Part: 2, Parts: 4})
	plain := protocol.NewStep(minimalView(), minimalPending(), protocol.Progress{Part: 1, Parts: 1})
	blocked := protocol.NewBlocked(fullView(), fullPending(), allBlockers)
	tests := []struct {
		name     string
		text     string
		next     protocol.NextCall
		tokens   protocol.Tokens
		examples []json.RawMessage
	}{
		{"step", step.Text, step.NextCall, testTokens, fullView().Ask.Values()},
		{"step without artifacts", plain.Text, plain.NextCall, minimalView().Tokens, nil},
		{"blocked", blocked.Text, blocked.NextCall, testTokens, fullView().Ask.Values()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.next.Tool != "continue_workflow" {
				t.Errorf("tool %q", tt.next.Tool)
			}
			a := tt.next.Arguments
			if a.StateToken != tt.tokens.State || a.AckToken != tt.tokens.Ack {
				t.Errorf("tokens %q, %q; want %q, %q", a.StateToken, a.AckToken, tt.tokens.State, tt.tokens.Ack)
			}
			if a.Output == nil || !fill.IsTemplate(a.Output.NotesMarkdown) {
				t.Fatalf("output %+v has no notes marker", a.Output)
			}
			if !reflect.DeepEqual(a.Output.Artifacts, tt.examples) {
				t.Errorf("artifacts %s; want the examples %s", a.Output.Artifacts, tt.examples)
			}
			body, ok := section(tt.text, "Next call")
			if !ok {
				t.Fatal("no Next call section")
			}
			_, block, _ := strings.Cut(body, "```json\n")
			block, _, _ = strings.Cut(block, "\n```\n")
			if mustCompact(t, json.RawMessage(block)) != mustCompact(t, a) {
				t.Errorf("text block %s\nnextCall    %s", block, mustCompact(t, a))
			}
			in, e := protocol.ParseContinue([]byte(block))
			if e != nil {
				t.Fatalf("the Next call block is refused: %v", e)
			}
			if in.StateToken != tt.tokens.State || in.AckToken != tt.tokens.Ack {
				t.Errorf("the block carries tokens %q, %q", in.StateToken, in.AckToken)
			}
			markersAreFills(t, tt.text, a)
		})
	}
}

// markersAreFills checks that every marker in a call's arguments is at a
// pointer the text's "To fill" list names, and that every slot listed is
// a marker.
func markersAreFills(t *testing.T, text string, args protocol.ContinueArgs) {
	t.Helper()
	var doc any
	if err := json.Unmarshal([]byte(mustCompact(t, args)), &doc); err != nil {
		t.Fatal(err)
	}
	markers := map[string]bool{}
	var walk func(v any, ptr string)
	walk = func(v any, ptr string) {
		switch x := v.(type) {
		case string:
			if fill.IsTemplate(x) {
				markers[ptr] = true
			}
		case map[string]any:
			for k, e := range x {
				walk(e, ptr+"/"+k)
			}
		case []any:
			for i, e := range x {
				walk(e, fmt.Sprintf("%s/%d", ptr, i))
			}
		}
	}
	walk(doc, "")
	body, _ := section(text, "Next call")
	_, list, _ := strings.Cut(body, "To fill:\n")
	listed := 0
	for line := range strings.Lines(list) {
		ptr, _, ok := strings.Cut(strings.TrimPrefix(line, "- "), " (")
		if !strings.HasPrefix(line, "- /") || !ok {
			continue
		}
		listed++
		if !markers[ptr] {
			t.Errorf("To fill lists %s, which holds no marker", ptr)
		}
	}
	// Notes alone need no list: their marker says it all.
	if want := len(markers); listed != want && !(want == 1 && markers["/output/notesMarkdown"] && listed == 0) {
		t.Errorf("To fill lists %d places; the call holds %d markers (%v)", listed, len(markers), markers)
	}
}

// HTML-significant characters stay readable in the text.
func TestTextDoesNotEscapeHTML(t *testing.T) {
	r := protocol.NewStep(fullView(), fullPending(), protocol.Progress{Part: 2, Parts: 4})
	for _, want := range []string{`file = "src/<main>.go"`, `"response":"<<fill: `} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("text lacks %s", want)
		}
	}
	if strings.Contains(r.Text, `\u003c`) {
		t.Error(`text has \u003c escapes`)
	}
}

// A loop item that cannot be written as JSON is a programmer bug: it
// panics rather than render a malformed call.
func TestUnmarshalableLoopItemPanics(t *testing.T) {
	defer func() {
		msg, _ := recover().(string)
		if !strings.HasPrefix(msg, "protocol: arguments do not marshal: ") {
			t.Errorf("recovered %q; want a protocol panic", msg)
		}
	}()
	p := minimalPending()
	p.Loops = []run.LoopPlace{{LoopID: "l", Title: "L", Iteration: 1, MaxIterations: 1, ItemName: "x", Item: math.NaN()}}
	protocol.NewStep(minimalView(), p, protocol.Progress{Part: 1, Parts: 1})
	t.Error("NewStep returned")
}
