package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/run"
)

// Tokens are the handles minted for one node.
type Tokens struct {
	State      string
	Ack        string
	Checkpoint string
}

// notesPlaceholder is what nextCall carries where the agent writes its own
// summary: a valid value, so a copied call is never malformed.
const notesPlaceholder = "Replace with 1-10 lines: what you did in this step and what you found."

// View is what a result is rendered from.
type View struct {
	Workflow WorkflowRef
	Session  SessionRef
	Tokens   Tokens
	Recap    *event.Recap // on rehydrate: notes so far
	Fork     *event.Fork  // when a rewound chat advanced again
	Skipped  []event.Skip
	Warnings []Warning
}

// NewStep builds the step result for a pending step, text included.
func NewStep(v View, p Pending, prog Progress) StepResult {
	t := v.Tokens
	r := StepResult{
		Kind: KindStep, Pending: p, StateToken: t.State, AckToken: t.Ack, CheckpointToken: t.Checkpoint,
		Session: v.Session, Workflow: v.Workflow, Progress: prog, Recap: v.Recap, Fork: v.Fork,
		Skipped: v.Skipped, Warnings: nonNil(v.Warnings),
		NextCall: NextCall{Tool: "continue_workflow", Arguments: ContinueArgs{
			StateToken: t.State, AckToken: t.Ack, Output: &Output{NotesMarkdown: notesPlaceholder},
		}},
	}
	r.Text = renderStep(r)
	return r
}

// NewComplete builds the result for a finished run.
func NewComplete(v View) CompleteResult {
	r := CompleteResult{Kind: KindComplete, StateToken: v.Tokens.State, IsComplete: true, Session: v.Session,
		Workflow: v.Workflow, Skipped: v.Skipped, Warnings: nonNil(v.Warnings)}
	var b strings.Builder
	header(&b, "Workflow complete", r.Workflow, r.Session, "", nil)
	section(&b, "Instructions")
	b.WriteString("This run is complete. There is no pending step: do not call continue_workflow for this run again.\n")
	b.WriteString("Tell the user the workflow is finished and summarise the outcome.\n")
	skippedSection(&b, r.Skipped)
	warningsSection(&b, r.Warnings)
	r.Text = b.String()
	return r
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

func renderStep(r StepResult) string {
	var b strings.Builder
	progress := fmt.Sprintf("%s (part %d of %d)", r.Pending.StepID, r.Progress.Part, r.Progress.Parts)
	header(&b, r.Pending.Title, r.Workflow, r.Session, progress, r.Pending.Loops)
	section(&b, "Instructions")
	b.WriteString(strings.TrimRight(r.Pending.Prompt, "\n") + "\n")
	forkSection(&b, r.Fork)
	recapSection(&b, "Recap", "Notes recorded so far in this run, oldest first:", r.Recap)
	skippedSection(&b, r.Skipped)
	warningsSection(&b, r.Warnings)
	section(&b, "Next call")
	b.WriteString("When the step is done, call continue_workflow with exactly these arguments. ")
	b.WriteString("Replace the notes with your own summary; copy the tokens unchanged.\n")
	b.WriteString("```json\n" + compactJSON(r.NextCall.Arguments) + "\n```\n")
	return b.String()
}

// header writes the fixed-order header block. Its lines are a closed set:
// title, workflow, step (when pending), one loop line per enclosing loop,
// session.
func header(b *strings.Builder, title string, wf WorkflowRef, s SessionRef, step string, loops []run.LoopPlace) {
	fmt.Fprintf(b, "# %s\n", title)
	fmt.Fprintf(b, "workflow: %s (%s)\n", wf.ID, wf.Name)
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

func forkSection(b *strings.Builder, f *event.Fork) {
	if f == nil {
		return
	}
	section(b, "Branches")
	b.WriteString("This step was already done once from here (the chat was probably rewound). Your call started a new branch; the earlier ones are kept:\n")
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
	recapSection(b, "Downstream recap", "What the most recently active earlier branch recorded after this point:", &f.Downstream)
}

func recapSection(b *strings.Builder, title, intro string, r *event.Recap) {
	if r == nil || (len(r.Entries) == 0 && r.Omitted == 0) {
		return
	}
	section(b, title)
	b.WriteString(intro + "\n")
	if r.Omitted > 0 {
		fmt.Fprintf(b, "(truncated: %d older entries omitted; kept the most recent that fit %d bytes)\n", r.Omitted, recapBudgetBytes)
	}
	for _, e := range r.Entries {
		fmt.Fprintf(b, "- %s: %s", e.StepID, strings.ReplaceAll(strings.TrimSpace(e.NotesMarkdown), "\n", "\n  "))
		if len(e.Artifacts) > 0 {
			fmt.Fprintf(b, " [artifacts: %s]", strings.Join(e.Artifacts, ", "))
		}
		b.WriteString("\n")
	}
}

// recapBudgetBytes is the recap budget the server applies, stated in text.
const recapBudgetBytes = 8 << 10

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
