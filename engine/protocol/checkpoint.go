package protocol

import (
	"fmt"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/fill"
	"github.com/workrail/workrail/engine/outcome"
)

// CheckpointInput is checkpoint_workflow's arguments.
type CheckpointInput struct {
	StateToken      string            `json:"stateToken"`
	CheckpointToken string            `json:"checkpointToken"`
	Output          *CheckpointOutput `json:"output"`
}

// CheckpointOutput is what a checkpoint records: the recap is all it is
// for, so it is required; it may replace an earlier output of the run
// (SupersedesOutputID, as Output's).
type CheckpointOutput struct {
	NotesMarkdown      string         `json:"notesMarkdown"`
	SupersedesOutputID engine.EventID `json:"supersedesOutputId,omitempty"`
}

// ParseCheckpoint parses checkpoint_workflow arguments strictly. A
// checkpoint without notes would record an empty node, so it is refused.
func ParseCheckpoint(raw []byte) (CheckpointInput, *engine.Error) {
	var in CheckpointInput
	if e := parseArgs(raw, &in, ToolCheckpoint); e != nil {
		return in, e
	}
	switch {
	case in.StateToken == "":
		return in, required("stateToken", "the stateToken from the last WorkRail response")
	case in.CheckpointToken == "":
		return in, required("checkpointToken", "the checkpointToken from the same response as the stateToken")
	case in.Output == nil:
		return in, required("output", `your recap, as {"notesMarkdown":"1-10 lines: what you did and found"}`)
	case strings.TrimSpace(in.Output.NotesMarkdown) == "":
		return in, engine.Errorf(engine.CodeInvalidInput,
			"output.notesMarkdown is empty: a checkpoint records your recap and nothing else, so an empty one is refused and nothing was recorded. "+
				"Send 1-10 lines on what you did and found since the last response.").With("pointer", "/output/notesMarkdown")
	case fill.IsTemplate(in.Output.NotesMarkdown, outcome.CheckpointAsks):
		return in, engine.Errorf(engine.CodeInvalidInput,
			"output.notesMarkdown still holds WorkRail's template (<<fill: …>>), which is never a recap: nothing was recorded. "+
				"Replace it with 1-10 lines of your own on what you did and found since the last response.").With("pointer", "/output/notesMarkdown")
	case len(in.Output.NotesMarkdown) > MaxNotesBytes:
		return in, engine.Errorf(engine.CodePayloadTooLarge,
			"output.notesMarkdown is %d bytes; the limit is %d. Send a shorter summary (1-10 lines).",
			len(in.Output.NotesMarkdown), MaxNotesBytes).With("pointer", "/output/notesMarkdown")
	}
	return in, nil
}

// StartSessionInput is start_session's arguments.
type StartSessionInput struct {
	WorkspacePath string `json:"workspacePath,omitempty"`
}

// ParseStartSession parses start_session arguments strictly.
func ParseStartSession(raw []byte) (StartSessionInput, *engine.Error) {
	var in StartSessionInput
	if e := parseArgs(raw, &in, ToolStartSession); e != nil {
		return in, e
	}
	return in, checkWorkspace(in.WorkspacePath)
}

// Checkpointed names the checkpoint node an answer is rendered at, and
// the output its notes were recorded as (what a later correction names
// in supersedesOutputId).
type Checkpointed struct {
	NodeID   engine.NodeID  `json:"nodeId"`
	OutputID engine.EventID `json:"outputId"`
}

// checkpointSection says the notes are kept and nothing advanced, before
// the step the agent carries on with.
func checkpointSection(b *strings.Builder, c *Checkpointed) {
	if c == nil {
		return
	}
	section(b, "Checkpoint")
	fmt.Fprintf(b, "Your notes are recorded as checkpoint %s (output %s). Nothing advanced: the step below is still pending. "+
		"Carry on with this answer's tokens; the earlier ones would start a branch beside the checkpoint.\n", c.NodeID, c.OutputID)
}

// CheckpointIgnoredOnReplay tells an agent that sent a spent
// checkpointToken with notes other than the ones it recorded that the
// answer is the recorded one and its notes were not recorded. This
// answer's own tokens record them: a checkpoint is taken from where the
// recorded one left off. It is added to that replay's answer only.
func CheckpointIgnoredOnReplay() Warning {
	return Warning{Code: event.NoticeOutputIgnoredOnReplay,
		Message: "the checkpointToken you sent was already used, so this is the answer recorded for it then, unchanged; " +
			"the notes you sent now (or the output they replace) differ from those recorded then and were NOT recorded. " +
			"To record them, call checkpoint_workflow again with this answer's stateToken and checkpointToken."}
}

// offer is the checkpointToken the text offers: none unless
// checkpoint_workflow is served.
func offer(v View) string {
	if !v.OfferCheckpoint {
		return ""
	}
	return v.Tokens.Checkpoint
}

// checkpointLine tells the agent how to save its notes without
// advancing, tokens filled in, when checkpoint_workflow is served.
func checkpointLine(b *strings.Builder, stateToken, checkpointToken string) {
	if checkpointToken == "" {
		return
	}
	args := struct {
		StateToken      string           `json:"stateToken"`
		CheckpointToken string           `json:"checkpointToken"`
		Output          CheckpointOutput `json:"output"`
	}{stateToken, checkpointToken, CheckpointOutput{NotesMarkdown: fill.Marker(outcome.CheckpointAsks)}}
	b.WriteString("To save your notes without advancing (after substantial work), call checkpoint_workflow with: " + compactJSON(args) + "\n")
}
