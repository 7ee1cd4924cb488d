package protocol_test

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/fill"
	"github.com/workrail/workrail/engine/golden"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// Fixed token strings: rendering needs no key ring, so output is stable.
var testTokens = protocol.Tokens{State: "st.v1.STATEtokenFIXED", Ack: "ack.v1.ACKtokenFIXED", Checkpoint: "chk.v1.CHKtokenFIXED"}

// fullView sets every optional part of a View.
func fullView() protocol.View {
	return protocol.View{
		Workflow:    protocol.WorkflowRef{ID: "wr.review", Name: "Code review", Hash: engine.WorkflowHash(engine.Sum([]byte("wr.review")))},
		Session:     protocol.SessionRef{SessionID: 7, RunID: 2},
		Preferences: workflow.Preferences{Autonomy: workflow.Guided, RiskPolicy: workflow.Balanced},
		Tokens:      testTokens,
		Gaps: []protocol.Gap{
			{GapID: "evt_7_12", CreatedAtEventIndex: 12, GapRecordedData: event.GapRecordedData{
				Reason: event.GapAssumptionMade, Severity: event.SeverityWarning, Summary: "Assumed Go 1.26.", HowToResolve: "Confirm the Go version."}},
			{GapID: "evt_7_13", CreatedAtEventIndex: 13, GapRecordedData: event.GapRecordedData{
				Reason: event.GapUserOnlyDependency, Dependency: workflow.NeedsUserChoice, Severity: event.SeverityCritical, Summary: "No style guide chosen.", RelatedStepID: "pick-style"}},
		},
		Ask: outcome.Ask{Notes: fill.Slot{Pointer: "/output/notesMarkdown", Asks: "(optional) 1-10 lines", Required: false},
			Artifacts: []fill.Artifact{outcome.UserResponseTemplate(outcome.UserNeed{Declared: &workflow.UserDependency{
				Reason: workflow.NeedsUserChoice, ChoiceKind: workflow.ScopeBoundary, Summary: "Pick a style", RequestedFromUser: "which style guide to follow",
				Options: []string{"google", "uber"}}})}},
		OpenGaps: []protocol.OpenGap{{StepTitle: "Pick a style", Gap: protocol.Gap{GapID: "evt_7_13", CreatedAtEventIndex: 13, GapRecordedData: event.GapRecordedData{
			Reason: event.GapUserOnlyDependency, Dependency: workflow.NeedsUserChoice, Severity: event.SeverityCritical, Summary: "No style guide chosen.",
			RelatedStepID: "pick-style", HowToResolve: "Ask the user which style guide to follow."}}}},
		Recap: &project.PathRecap{Omitted: 3, Policy: "kept_most_recent", Entries: []project.PathEntry{
			{RecapEntry: event.RecapEntry{Node: 3, StepID: "plan", NotesMarkdown: "  Planned the review.\nTwo files.\n", Artifacts: []string{"wr.plan", "wr.user_response"}}, Output: "evt_7_9"},
			{RecapEntry: event.RecapEntry{Node: 4, StepID: "review-file", NotesMarkdown: "Reviewed a.go."}, Output: "evt_7_11", Supersedes: "evt_7_10"},
		}},
		Fork: &event.Fork{
			Siblings: []event.Branch{
				{Node: 5, StepID: "review-file", Depth: 2, Summary: "Found a nil map."},
				{Node: 6, Depth: 4},
			},
			Omitted:    1,
			Downstream: event.Recap{Entries: []event.RecapEntry{{Node: 5, StepID: "review-file", NotesMarkdown: "Found a nil map."}}},
		},
		Skipped: []event.Skip{
			{StepID: "lint-js", Reason: event.ConditionFalse, Condition: `lang == "js"`, Unset: []string{"lang", "framework"}},
			{StepID: "fuzz-loop", Reason: event.LoopNotEntered},
		},
		Warnings: []protocol.Warning{{Code: "CONTEXT_KEY_UNDECLARED", Message: "context.extra is not an input of this workflow: it is stored, but no condition or loop reads it"},
			protocol.OutputIgnoredOnReplay("st.v1.PARENTtokenFIXED")},
	}
}

// minimalView sets only what every result has.
func minimalView() protocol.View {
	return protocol.View{
		Workflow:    protocol.WorkflowRef{ID: "wr.hello", Name: "Hello", Hash: engine.WorkflowHash(engine.Sum([]byte("wr.hello")))},
		Session:     protocol.SessionRef{SessionID: 1, RunID: 1},
		Preferences: workflow.Preferences{Autonomy: workflow.FullAutoStopOnUserDep, RiskPolicy: workflow.Conservative},
		Tokens:      protocol.Tokens{State: "st.v1.S", Ack: "ack.v1.A", Checkpoint: "chk.v1.C"},
		Ask:         outcome.Ask{Notes: fill.Slot{Pointer: "/output/notesMarkdown", Asks: "1-10 lines: what you did", Required: true}},
	}
}

func fullPending() protocol.Pending {
	return protocol.Pending{
		StepID: "review-file", Title: "Review one file", Prompt: "Read the file.\nList every problem with its line.\n\n",
		RequireConfirmation: true,
		Loops: []run.LoopPlace{
			{LoopID: "files-loop", Title: "Each file", Iteration: 2, MaxIterations: 5, ItemName: "file", Item: "src/<main>.go"},
			{LoopID: "retry", Title: "Retries", Iteration: 1, MaxIterations: 3},
			{LoopID: "pairs", Title: "Each pair", Iteration: 1, MaxIterations: 2, ItemName: "pair", Item: map[string]any{"b": 2, "a": []any{1, "x"}}},
		},
		UserDependency: &workflow.UserDependency{Reason: workflow.NeedsUserChoice, ChoiceKind: workflow.PreferenceTradeoff,
			Summary: "Style guide", RequestedFromUser: "Which style guide applies?", Options: []string{"google", "uber"}},
	}
}

func minimalPending() protocol.Pending {
	return protocol.Pending{StepID: "greet", Title: "Say hello", Prompt: "Greet the user."}
}

var allBlockers = []event.Blocker{
	{Code: event.BlockUserOnlyDependency, Pointer: event.Pointer{Kind: event.PointContextKey, Key: "approval"},
		Message: "The user must approve.", SuggestedFix: `Add {"kind":"wr.user_response","response":"<their answer>"} to output.artifacts.`},
	{Code: event.BlockMissingRequiredOutput, Pointer: event.Pointer{Kind: event.PointOutputContract, ContractRef: "wr.contracts.review"},
		Message: "No review artifact was sent."},
	{Code: event.BlockRequiredCapabilityUnknown, Pointer: event.Pointer{Kind: event.PointCapability, Capability: "web_browsing"},
		Message: "web_browsing was never probed.", SuggestedFix: "Probe it."},
	{Code: event.BlockInvariantViolation, Pointer: event.Pointer{Kind: event.PointWorkflowStep, StepID: "review-file"},
		Message: "The step cannot run twice."},
}

// goldenCase is one result whose text and JSON are pinned.
type goldenCase struct {
	name   string
	result protocol.Result
}

func goldenCases() []goldenCase {
	neverStop := minimalView()
	neverStop.Preferences = workflow.Preferences{Autonomy: workflow.FullAutoNeverStop, RiskPolicy: workflow.Aggressive}
	askUser := minimalPending()
	askUser.UserDependency = &workflow.UserDependency{Reason: workflow.NeedsUserApproval, Summary: "Deploy", RequestedFromUser: "May I deploy to prod?"}

	unknown := engine.Errorf(engine.CodeUnknownKey, `unknown argument "notes", "vars", "zz": nothing was done.`)
	unknown.Suggestions = []engine.Suggestion{
		{Path: "notes", DidYouMean: "output.notesMarkdown"},
		{Path: "vars", DidYouMean: "context", Note: "(context is for declared inputs)"},
		{Path: "zz", Note: "is not an argument here: leave it out."},
	}
	fixed := protocol.WithFix(protocol.NewError(unknown), "continue_workflow",
		map[string]any{"stateToken": "st.v1.S", "context": map[string]any{"a": 1}, "output": map[string]any{"notesMarkdown": "Did it."}})

	checkpoint := minimalView()
	checkpoint.Checkpoint, checkpoint.OfferCheckpoint = &protocol.Checkpointed{NodeID: 7, OutputID: "evt_1_20"}, true
	offered := fullView()
	offered.OfferCheckpoint = true

	return []goldenCase{
		{"step_checkpoint", protocol.NewStep(checkpoint, minimalPending(), protocol.Progress{Part: 1, Parts: 2})},
		{"blocked_offers_checkpoint", protocol.NewBlocked(offered, fullPending(), allBlockers[:1])},
		{"step_full", protocol.NewStep(fullView(), fullPending(), protocol.Progress{Part: 2, Parts: 4})},
		{"step_minimal", protocol.NewStep(minimalView(), minimalPending(), protocol.Progress{Part: 1, Parts: 1})},
		{"step_never_stop", protocol.NewStep(neverStop, askUser, protocol.Progress{Part: 1, Parts: 3})},
		{"blocked", protocol.NewBlocked(fullView(), fullPending(), allBlockers)},
		{"blocked_minimal", protocol.NewBlocked(minimalView(), minimalPending(), allBlockers[1:2])},
		{"complete", protocol.NewComplete(fullView())},
		{"complete_minimal", protocol.NewComplete(minimalView())},
		{"error_invalid_input", protocol.NewError(engine.Errorf(engine.CodeInvalidInput, "stateToken is required.").With("pointer", "/stateToken"))},
		{"error_internal", protocol.NewError(engine.Errorf(engine.CodeInternal, "internal error; the daemon log has the details"))},
		{"error_daemon_unavailable", protocol.NewError(engine.Errorf(engine.CodeDaemonUnavailable, "the daemon did not answer"))},
		{"error_unknown_key_fix", fixed},
	}
}

// The full text and JSON of each result shape are pinned. A change is a
// deliberate golden update: go test ./engine/protocol -update.
func TestResultsGolden(t *testing.T) {
	for _, tc := range goldenCases() {
		t.Run(tc.name, func(t *testing.T) {
			golden.Check(t, filepath.Join("testdata", "golden", tc.name+".txt"), []byte(tc.result.RenderedText()))
			golden.Check(t, filepath.Join("testdata", "golden", tc.name+".json"), mustJSON(t, tc.result))
		})
	}
}

// headings lists the "## " section headings of text, in order.
func headings(text string) []string {
	var hs []string
	for _, l := range strings.Split(text, "\n") {
		if h, ok := strings.CutPrefix(l, "## "); ok {
			hs = append(hs, h)
		}
	}
	return hs
}

// Body sections follow one fixed order, whichever are present.
func TestSectionsInFixedOrder(t *testing.T) {
	neverStop := minimalView()
	neverStop.Preferences.Autonomy = workflow.FullAutoNeverStop
	tests := []struct {
		name   string
		result protocol.Result
		want   []string
	}{
		{"step with everything", protocol.NewStep(fullView(), fullPending(), protocol.Progress{Part: 2, Parts: 4}),
			[]string{"Instructions", "User input", "Branches", "Downstream recap", "Recap", "Gaps recorded", "Skipped", "Warnings", "Next call"}},
		{"step with nothing optional", protocol.NewStep(minimalView(), minimalPending(), protocol.Progress{Part: 1, Parts: 1}),
			[]string{"Instructions", "Next call"}},
		{"blocked", protocol.NewBlocked(fullView(), fullPending(), allBlockers),
			[]string{"Blockers", "Instructions", "Warnings", "Next call"}},
		{"blocked without warnings", protocol.NewBlocked(minimalView(), minimalPending(), nil),
			[]string{"Blockers", "Instructions", "Next call"}},
		{"complete", protocol.NewComplete(fullView()), []string{"Instructions", "Open gaps", "Gaps recorded", "Skipped", "Warnings"}},
		{"complete with nothing optional", protocol.NewComplete(neverStop), []string{"Instructions"}},
		{"error", protocol.NewError(engine.Errorf(engine.CodeInternal, "boom")), []string{"What went wrong"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := headings(tt.result.RenderedText()); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("sections %q\n    want %q", got, tt.want)
			}
		})
	}
}

// The header is a closed set of lines in a fixed order: title, workflow,
// mode, step (when pending), one line per enclosing loop, session.
func TestHeaderLines(t *testing.T) {
	tests := []struct {
		name   string
		result protocol.Result
		want   []string
	}{
		{"step", protocol.NewStep(fullView(), fullPending(), protocol.Progress{Part: 2, Parts: 4}), []string{
			"# Review one file",
			"workflow: wr.review (Code review)",
			"mode: guided, risk balanced",
			"step: review-file (part 2 of 4)",
			`loop: Each file (files-loop), iteration 2 of at most 5, file = "src/<main>.go"`,
			"loop: Retries (retry), iteration 1 of at most 3",
			`loop: Each pair (pairs), iteration 1 of at most 2, pair = {"a":[1,"x"],"b":2}`,
			"session: ses_7, run_2",
			"",
		}},
		{"blocked", protocol.NewBlocked(minimalView(), minimalPending(), nil), []string{
			"# Blocked: Say hello",
			"workflow: wr.hello (Hello)",
			"mode: full_auto_stop_on_user_deps, risk conservative",
			"step: greet",
			"session: ses_1, run_1",
			"",
		}},
		{"complete", protocol.NewComplete(fullView()), []string{
			"# Workflow complete",
			"workflow: wr.review (Code review)",
			"mode: guided, risk balanced",
			"session: ses_7, run_2",
			"",
		}},
		{"error", protocol.NewError(engine.Errorf(engine.CodeTokenBadSignature, "the token was not signed by this daemon")), []string{
			"# Error: TOKEN_BAD_SIGNATURE",
			"retry: not_retryable",
			"",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := strings.Split(tt.result.RenderedText(), "\n")
			if len(lines) < len(tt.want) || !reflect.DeepEqual(lines[:len(tt.want)], tt.want) {
				t.Errorf("header\n%s\nwant\n%s", strings.Join(lines[:min(len(lines), len(tt.want))], "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
