package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/fill"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// Tokens are the handles minted for one node.
type Tokens struct {
	State      string
	Ack        string
	Checkpoint string
}

// View is what a result is rendered from.
type View struct {
	Workflow    WorkflowRef
	Session     SessionRef
	Preferences workflow.Preferences
	Tokens      Tokens
	Gaps        []Gap              // recorded by the advance that led here
	OpenGaps    []OpenGap          // the run is complete, and these gaps are open (worst first)
	Ask         outcome.Ask        // what the pending step's next call asks the agent to write
	Recap       *project.PathRecap // on rehydrate: notes so far
	Fork        *event.Fork        // the node's other branches: when a rewound chat advanced again, or on a rehydrate of a node with children
	Skipped     []event.Skip
	Checkpoint  *Checkpointed // on checkpoint_workflow's answer
	Warnings    []Warning
	// OfferCheckpoint: checkpoint_workflow is served, so the text says
	// how to send the checkpointToken.
	OfferCheckpoint bool
	// Rehydrate: the answer re-reads a node and recorded nothing, so its
	// text says what continuing from there will do, never what was done.
	Rehydrate bool
	// Rules (the workflow's metaGuidance) and References are shown when
	// a run starts and on rehydrate, not with every step.
	Rules      []string
	References []Reference
}

// NewStep builds the step result for a pending step, text included.
func NewStep(v View, p Pending, prog Progress) StepResult {
	t := v.Tokens
	r := StepResult{
		Kind: KindStep, Pending: p, StateToken: t.State, AckToken: t.Ack, CheckpointToken: t.Checkpoint,
		Session: v.Session, Workflow: v.Workflow, Progress: prog, Preferences: v.Preferences, Gaps: v.Gaps,
		Recap: v.Recap, Fork: v.Fork, Skipped: v.Skipped, Checkpoint: v.Checkpoint, Warnings: nonNil(v.Warnings),
		NextCall: nextCall(t, v.Ask), Fills: v.Ask.Slots(), Rules: v.Rules, References: v.References,
	}
	r.Text = renderStep(r, offer(v), v.Rehydrate)
	return r
}

// nextCall is the call that acknowledges the pending step: its tokens, and
// a marker wherever the agent must write or decide (never a plausible
// value, so a call copied as it is answers nothing).
func nextCall(t Tokens, ask outcome.Ask) NextCall {
	return NextCall{Tool: "continue_workflow", Arguments: ContinueArgs{
		StateToken: t.State, AckToken: t.Ack, Output: &Output{NotesMarkdown: ask.NotesMarker(), Artifacts: ask.Values()},
	}}
}

// NewBlocked builds the result for an attempt the mode matrix blocked.
// examples are the artifacts that would unblock it.
func NewBlocked(v View, p Pending, blockers []event.Blocker) BlockedResult {
	r := BlockedResult{Kind: KindBlocked, Blockers: blockers, Pending: p, StateToken: v.Tokens.State, AckToken: v.Tokens.Ack,
		CheckpointToken: v.Tokens.Checkpoint, Session: v.Session, Workflow: v.Workflow, Preferences: v.Preferences,
		NextCall: nextCall(v.Tokens, v.Ask), Fills: v.Ask.Slots(), Warnings: nonNil(v.Warnings)}
	var b strings.Builder
	header(&b, "Blocked: "+p.Title, r.Workflow, r.Session, string(p.StepID), p.Loops, r.Preferences)
	section(&b, "Blockers")
	for i, bl := range blockers {
		fmt.Fprintf(&b, "%d. %s (%s): %s\n", i+1, bl.Code, pointerText(bl.Pointer), bl.Message)
		if bl.SuggestedFix != "" {
			fmt.Fprintf(&b, "   Fix: %s\n", bl.SuggestedFix)
		}
	}
	section(&b, "Instructions")
	b.WriteString("Nothing advanced: the step above is still pending. Fix every blocker, then retry with the call below ")
	b.WriteString("(its ackToken is a fresh attempt; the one you sent is spent and would only replay this answer).\n")
	warningsSection(&b, r.Warnings)
	nextCallSection(&b, r.NextCall, r.Fills, offer(v))
	r.Text = b.String()
	return r
}

func pointerText(p event.Pointer) string {
	switch p.Kind {
	case event.PointContextKey:
		return "context." + p.Key
	case event.PointOutputContract:
		return "output contract " + string(p.ContractRef)
	case event.PointCapability:
		return "capability " + string(p.Capability)
	}
	return "step " + string(p.StepID)
}

// NewComplete builds the result for a finished run. It names the gaps
// its path leaves open, worst first, at most MaxOpenGaps of them.
func NewComplete(v View) CompleteResult {
	r := CompleteResult{Kind: KindComplete, StateToken: v.Tokens.State, IsComplete: true, Session: v.Session,
		Workflow: v.Workflow, Preferences: v.Preferences, Gaps: v.Gaps, Skipped: v.Skipped, Warnings: nonNil(v.Warnings),
		OpenGaps: v.OpenGaps, OpenGapCount: len(v.OpenGaps)}
	if len(r.OpenGaps) > MaxOpenGaps {
		r.OpenGaps = r.OpenGaps[:MaxOpenGaps]
	}
	var b strings.Builder
	header(&b, "Workflow complete", r.Workflow, r.Session, "", nil, r.Preferences)
	section(&b, "Instructions")
	b.WriteString("This run is complete. There is no pending step: do not call continue_workflow for this run again.\n")
	if r.OpenGapCount == 0 {
		b.WriteString("Tell the user the workflow is finished and summarise the outcome. No gap is open.\n")
	} else {
		b.WriteString("Tell the user the workflow is finished and summarise the outcome, naming each open gap below: what was not done, and how to resolve it.\n")
	}
	openGapsSection(&b, r.OpenGaps, r.OpenGapCount)
	gapsSection(&b, r.Gaps)
	skippedSection(&b, r.Skipped)
	warningsSection(&b, r.Warnings)
	r.Text = b.String()
	return r
}

// MaxOpenGaps is how many open gaps a complete answer names; the rest
// are counted, and listed on the run's page in the Console.
const MaxOpenGaps = 10

// openGapsSection names open gaps, worst first: severity, the step,
// what was not done and how to resolve it; then how many more there are.
func openGapsSection(b *strings.Builder, gaps []OpenGap, total int) {
	if total == 0 {
		return
	}
	section(b, "Open gaps")
	fmt.Fprintf(b, "%s still open, worst first:\n", plural(total, "gap is", "gaps are"))
	for i, g := range gaps {
		fmt.Fprintf(b, "%d. %s", i+1, g.Severity)
		if g.RelatedStepID != "" {
			if g.StepTitle != "" {
				fmt.Fprintf(b, ", step %q (%s)", g.StepTitle, g.RelatedStepID)
			} else {
				fmt.Fprintf(b, ", step %s", g.RelatedStepID)
			}
		}
		fmt.Fprintf(b, ": %s", g.Summary)
		if g.HowToResolve != "" {
			fmt.Fprintf(b, " To resolve: %s", g.HowToResolve)
		}
		b.WriteString("\n")
	}
	if more := total - len(gaps); more > 0 {
		fmt.Fprintf(b, "… and %d more: every open gap is on the run's page in the Console.\n", more)
	}
}

// plural is "1 <one>" or "n <many>".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// NewError wraps an expected failure as a result.
func NewError(e *engine.Error) ErrorResult {
	var b strings.Builder
	fmt.Fprintf(&b, "# Error: %s\n", e.Code)
	fmt.Fprintf(&b, "retry: %s\n", retryText(e.Retry))
	section(&b, "What went wrong")
	b.WriteString(e.Message + "\n")
	if len(e.Suggestions) > 0 {
		section(&b, "Suggestions")
		for _, s := range e.Suggestions {
			line := "- `" + s.Path + "`"
			if s.DidYouMean != "" {
				line += ": did you mean `" + s.DidYouMean + "`?"
			}
			if s.Note != "" {
				line += " " + s.Note
			}
			b.WriteString(line + "\n")
		}
	}
	return ErrorResult{Kind: KindError, Text: b.String(), Error: e}
}

func renderStep(r StepResult, checkpointToken string, rehydrate bool) string {
	var b strings.Builder
	progress := fmt.Sprintf("%s (part %d of %d)", r.Pending.StepID, r.Progress.Part, r.Progress.Parts)
	header(&b, r.Pending.Title, r.Workflow, r.Session, progress, r.Pending.Loops, r.Preferences)
	checkpointSection(&b, r.Checkpoint)
	rulesSection(&b, r.Rules, r.References)
	section(&b, "Instructions")
	b.WriteString(strings.TrimRight(r.Pending.Prompt, "\n") + "\n")
	userSection(&b, r.Pending, r.Preferences.Autonomy)
	forkSection(&b, r.Fork, rehydrate)
	recapSection(&b, "Recap", "Notes recorded so far in this run, oldest first; to correct one, send the correction with output.supersedesOutputId set to its id:", r.Recap)
	gapsSection(&b, r.Gaps)
	skippedSection(&b, r.Skipped)
	warningsSection(&b, r.Warnings)
	nextCallSection(&b, r.NextCall, r.Fills, checkpointToken)
	return b.String()
}

// Reference is a document a workflow points to, as the agent is shown it:
// for one read from the package the workflow came with (resolveFrom
// "package"), where it was found, or every place it was looked for.
type Reference struct {
	workflow.Reference
	Path     string   `json:"path,omitempty"`
	LookedIn []string `json:"lookedIn,omitempty"`
}

// rulesSection shows the workflow's rules and the documents it points to,
// when it has any.
func rulesSection(b *strings.Builder, rules []string, refs []Reference) {
	if len(rules) > 0 {
		section(b, "Workflow rules")
		b.WriteString("These hold for every step of this workflow (they are shown when the run starts and on rehydrate):\n")
		for _, r := range rules {
			fmt.Fprintf(b, "- %s\n", r)
		}
	}
	if len(refs) == 0 {
		return
	}
	section(b, "References")
	b.WriteString("Documents this workflow points to; read one when a step needs it:\n")
	for _, r := range refs {
		fmt.Fprintf(b, "- %s (%s): %s", r.Title, r.ID, r.Source)
		switch {
		case r.Path != "":
			fmt.Fprintf(b, " [from the %s, at %s]", r.ResolveFrom, r.Path)
		case len(r.LookedIn) > 0:
			fmt.Fprintf(b, " [from the %s, which is not beside this workflow's folder: not found at %s]", r.ResolveFrom, strings.Join(r.LookedIn, " or "))
		case r.ResolveFrom != "":
			fmt.Fprintf(b, " [from the %s]", r.ResolveFrom)
		}
		if r.Authoritative {
			b.WriteString(" [authoritative]")
		}
		if r.Purpose != "" {
			fmt.Fprintf(b, ": %s", r.Purpose)
		}
		b.WriteString("\n")
	}
}

// userSection tells the agent how to handle what only the user can give
// at this step (an answer, a choice, a secret, a confirmation), in the
// effective mode.
func userSection(b *strings.Builder, p Pending, a workflow.Autonomy) {
	d := p.UserDependency
	if d == nil {
		return
	}
	section(b, "User input")
	if p.RequireConfirmation {
		fmt.Fprintf(b, "Ask the user to confirm %q before you continue.\n", p.Title)
	}
	if d.RequestedFromUser != outcome.ConfirmationRequest(p.Title) {
		fmt.Fprintf(b, "Only the user can provide this (%s): %s\n", d.Reason, d.RequestedFromUser)
	}
	if len(d.Options) > 0 {
		fmt.Fprintf(b, "Options: %s\n", strings.Join(d.Options, " | "))
	}
	switch {
	case a == workflow.FullAutoNeverStop:
		b.WriteString("You are in full_auto_never_stop: do not wait and do not answer for the user. Make the most conservative assumption, state it in your notes, and continue; WorkRail records a critical gap saying the user was not asked.\n")
	case d.Reason == workflow.NeedsUserSecretOrToken:
		b.WriteString("Ask the user and wait. Keep the secret in this chat (or let the user put it where the tool that needs it reads it): never send its value to WorkRail, which replaces anything that looks like a secret with a [redacted: <rule>] marker before storing it. Then say in the wr.user_response of the call below only that the user provided it; without it the step is blocked.\n")
	default:
		b.WriteString("Ask the user and wait for their answer; never answer for them. Then put it in the wr.user_response of the call below, in place of its markers; without it the step is blocked.\n")
	}
}

func nextCallSection(b *strings.Builder, nc NextCall, fills []fill.Slot, checkpointToken string) {
	section(b, "Next call")
	b.WriteString("When the step is done, call continue_workflow with these arguments: copy the tokens unchanged and ")
	b.WriteString("replace each \"<<fill: …>>\" with what it asks for. A marker, or its words, is never taken as an answer: ")
	b.WriteString("left in a required place it stops the step; an optional one left in is dropped.\n")
	b.WriteString("```json\n" + compactJSON(nc.Arguments) + "\n```\n")
	fillsList(b, fills)
	checkpointLine(b, nc.Arguments.StateToken, checkpointToken)
}

// fillsList says, for each marker of a next call, where it is, whether
// the step needs it, and the values it takes when they are a closed set;
// notes alone need no list, their marker says it all.
func fillsList(b *strings.Builder, fills []fill.Slot) {
	if len(fills) < 2 {
		return
	}
	b.WriteString("To fill:\n")
	for _, f := range fills {
		need := "optional"
		if f.Required {
			need = "required"
		}
		fmt.Fprintf(b, "- %s (%s): %s", f.Pointer, need, strings.TrimPrefix(f.Asks, fill.Optional("")))
		if len(f.Options) > 0 && !strings.Contains(f.Asks, strings.Join(f.Options, " | ")) {
			fmt.Fprintf(b, "; one of %s", strings.Join(f.Options, " | "))
		}
		b.WriteString("\n")
	}
}

func gapsSection(b *strings.Builder, gaps []Gap) {
	if len(gaps) == 0 {
		return
	}
	section(b, "Gaps recorded")
	for _, g := range gaps {
		fmt.Fprintf(b, "- %s [%s, %s]: %s", g.GapID, g.Severity, g.Reason, g.Summary)
		if g.HowToResolve != "" {
			fmt.Fprintf(b, " To resolve: %s", g.HowToResolve)
		}
		b.WriteString("\n")
	}
}

// header writes the fixed-order header block. Its lines are a closed set:
// title, workflow, mode, step (when pending), one loop line per enclosing
// loop, session.
func header(b *strings.Builder, title string, wf WorkflowRef, s SessionRef, step string, loops []run.LoopPlace, p workflow.Preferences) {
	fmt.Fprintf(b, "# %s\n", title)
	fmt.Fprintf(b, "workflow: %s (%s)\n", wf.ID, wf.Name)
	fmt.Fprintf(b, "mode: %s, risk %s\n", p.Autonomy, p.RiskPolicy)
	if step != "" {
		fmt.Fprintf(b, "step: %s\n", step)
	}
	for _, l := range loops {
		fmt.Fprintf(b, "loop: %s (%s), iteration %d of at most %d", l.Title, l.LoopID, l.Iteration, l.MaxIterations)
		if l.ItemName != "" {
			fmt.Fprintf(b, ", %s = %s", l.ItemName, compactJSON(l.Item))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "session: %s, %s\n", s.SessionID, s.RunID)
}

// forkSection pictures the branches below the node: after an advance
// that forked, those beside the branch it started; on a rehydrate, which
// writes nothing, those an advance from here will add to.
func forkSection(b *strings.Builder, f *event.Fork, rehydrate bool) {
	if f == nil {
		return
	}
	section(b, "Branches")
	if rehydrate {
		b.WriteString("This step was already done once from here (the chat was probably rewound). Continuing from here starts a new branch; the earlier ones are kept:\n")
	} else {
		b.WriteString("This step was already done once from here (the chat was probably rewound). Your call started a new branch; the earlier ones are kept:\n")
	}
	for _, s := range f.Siblings {
		at := "complete"
		if s.StepID != "" {
			at = "at step " + string(s.StepID)
		}
		fmt.Fprintf(b, "- %s: %d step(s) deep, %s", s.Node, s.Depth, at)
		if s.Summary != "" {
			fmt.Fprintf(b, "; latest note: %s", s.Summary)
		}
		b.WriteString("\n")
	}
	if f.Omitted > 0 {
		fmt.Fprintf(b, "- … and %d more branch(es) not shown\n", f.Omitted)
	}
	recapSection(b, "Downstream recap", "What the most recently active earlier branch recorded after this point:", recorded(f.Downstream))
}

// recorded is a fork's recorded recap as recapSection shows it: its
// entries name no outputs.
func recorded(r event.Recap) *project.PathRecap {
	p := &project.PathRecap{Entries: make([]project.PathEntry, len(r.Entries)), Omitted: r.Omitted, Policy: r.Policy}
	for i, e := range r.Entries {
		p.Entries[i].RecapEntry = e
	}
	return p
}

func recapSection(b *strings.Builder, title, intro string, r *project.PathRecap) {
	if r == nil || (len(r.Entries) == 0 && r.Omitted == 0) {
		return
	}
	section(b, title)
	b.WriteString(intro + "\n")
	if r.Omitted > 0 {
		fmt.Fprintf(b, "(truncated: %d older entries omitted; kept the most recent that fit %d bytes)\n", r.Omitted, project.RecapBudget)
	}
	for _, e := range r.Entries {
		notes := strings.ReplaceAll(strings.TrimSpace(e.NotesMarkdown), "\n", "\n  ")
		if notes == "" && len(e.Artifacts) == 0 {
			notes = "(no notes)"
		}
		fmt.Fprintf(b, "- %s%s: %s", e.StepID, outputRef(e), notes)
		if len(e.Artifacts) > 0 {
			fmt.Fprintf(b, " [artifacts: %s]", strings.Join(e.Artifacts, ", "))
		}
		b.WriteString("\n")
	}
}

// outputRef names a recap entry's output, and the one it replaces, when
// the entry carries them (a fork's recorded picture does not).
func outputRef(e project.PathEntry) string {
	switch {
	case e.Output == "":
		return ""
	case e.Supersedes == "":
		return " (" + string(e.Output) + ")"
	}
	return " (" + string(e.Output) + ", replaces " + string(e.Supersedes) + ")"
}

func skippedSection(b *strings.Builder, skips []event.Skip) {
	if len(skips) == 0 {
		return
	}
	section(b, "Skipped")
	for _, s := range skips {
		line := fmt.Sprintf("- %s (%s)", s.StepID, s.Reason)
		if s.Condition != "" {
			line += ": " + s.Condition
		}
		if len(s.Unset) > 0 {
			line += "; not set in context: " + strings.Join(s.Unset, ", ")
		}
		b.WriteString(line + "\n")
	}
}

func section(b *strings.Builder, name string) { fmt.Fprintf(b, "\n## %s\n", name) }

func warningsSection(b *strings.Builder, ws []Warning) {
	if len(ws) == 0 {
		return
	}
	section(b, "Warnings")
	for _, w := range ws {
		fmt.Fprintf(b, "- %s: %s\n", w.Code, w.Message)
		if w.NextCall != nil {
			fmt.Fprintf(b, "  Call %s with exactly these arguments: %s\n", w.NextCall.Tool, compactJSON(w.NextCall.Arguments))
		}
	}
}

func retryText(r engine.Retry) string {
	if r.Kind == engine.RetryableAfterMs {
		return fmt.Sprintf("%s (%d ms)", r.Kind, r.AfterMs)
	}
	return string(r.Kind)
}

func compactJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("protocol: arguments do not marshal: " + err.Error())
	}
	return strings.TrimSpace(buf.String())
}

func nonNil(ws []Warning) []Warning {
	if ws == nil {
		return []Warning{}
	}
	return ws
}
