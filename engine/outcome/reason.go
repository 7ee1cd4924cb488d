package outcome

import (
	"cmp"
	"fmt"
	"sort"
	"strings"

	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/workflow"
)

// ReasonCode is the single semantic source for "this step cannot simply
// advance". The mode matrix projects each code to a blocker or a gap.
type ReasonCode string

// Reason codes.
const (
	UserOnlyDependency            ReasonCode = "user_only_dependency"
	NonAssumableChoice            ReasonCode = "non_assumable_choice"
	MissingRequiredOutput         ReasonCode = "missing_required_output"
	InvalidRequiredOutput         ReasonCode = "invalid_required_output"
	RequiredCapabilityUnknown     ReasonCode = "required_capability_unknown"
	RequiredCapabilityUnavailable ReasonCode = "required_capability_unavailable"
	// The notes policy and criteria (NotesRequired, Notes), and an
	// assessment consequence that asks for a follow-up on the same step.
	MissingNotes               ReasonCode = "missing_notes"
	NotesCriteriaUnmet         ReasonCode = "notes_criteria_unmet"
	AssessmentFollowupRequired ReasonCode = "assessment_followup_required"
)

// ReasonCodes lists every code in a fixed order.
func ReasonCodes() []ReasonCode {
	return []ReasonCode{UserOnlyDependency, NonAssumableChoice, MissingRequiredOutput,
		InvalidRequiredOutput, RequiredCapabilityUnknown, RequiredCapabilityUnavailable, MissingNotes, NotesCriteriaUnmet,
		AssessmentFollowupRequired}
}

// Reason is one instance of a reason code at a step.
type Reason struct {
	Code        ReasonCode
	Step        workflow.StepID
	Dependency  *workflow.UserDependency
	ContractRef workflow.ContractRef
	Capability  workflow.Capability
	Detail      string // e.g. the schema validation error, the unmet criteria
	// Followup is the consequence that fired, for
	// assessment_followup_required.
	Followup *Followup
	// Cautious are the consequences a rating not made counts as firing
	// (its most cautious levels): said in its gap, never a reason of
	// their own.
	Cautious []Followup
	// Unfilled are the places of the output, as JSON pointers, that still
	// held WorkRail's template where this reason needed the agent's (or
	// the user's) own words or decision; nothing of them was taken.
	Unfilled []string
	// Confirm: the dependency is, or includes, the user's confirmation
	// of the step.
	Confirm bool
	// Length is how long the notes are asked to be (NotesLength), for
	// missing_notes.
	Length string
}

// Followup says which rating fired an assessment consequence and what the
// author asks for then.
type Followup struct {
	Assessment workflow.AssessmentID
	Dimension  string
	Level      string
	Guidance   string
}

// Action is what the matrix does with a reason in a mode.
type Action string

// Actions.
const (
	Block  Action = "block"
	Record Action = "record_gap_and_continue"
)

// Matrix is the locked mode table: for every autonomy and reason code, block
// or record a critical gap and continue.
func Matrix(a workflow.Autonomy, _ ReasonCode) Action {
	if a == workflow.FullAutoNeverStop {
		return Record
	}
	return Block
}

// Decision is the projection of a step's reasons under one autonomy.
type Decision struct {
	Blockers []event.Blocker         // non-empty: the attempt is blocked
	Gaps     []event.GapRecordedData // recorded when the attempt advances
}

// Decide projects reasons through the matrix.
func Decide(a workflow.Autonomy, reasons []Reason) Decision {
	var d Decision
	for _, r := range reasons {
		if Matrix(a, r.Code) == Block {
			d.Blockers = append(d.Blockers, blocker(r))
		} else {
			d.Gaps = append(d.Gaps, gap(r))
		}
	}
	d.Blockers = Bound(d.Blockers)
	return d
}

// Blocker bounds (the contract's locks).
const (
	MaxBlockers          = 10
	MaxMessageBytes      = 512
	MaxSuggestedFixBytes = 1024
)

func blocker(r Reason) event.Blocker {
	b := event.Blocker{Code: blockerCode(r), Pointer: pointer(r), Message: blockerMessage(r), SuggestedFix: fix(r)}
	if len(r.Unfilled) > 0 {
		b.Message = fmt.Sprintf("%s still held WorkRail's template (<<fill: …>>), which is never an answer: nothing of it was recorded. %s",
			strings.Join(r.Unfilled, ", "), b.Message)
	}
	return b
}

func blockerCode(r Reason) event.BlockerCode {
	return map[ReasonCode]event.BlockerCode{
		UserOnlyDependency: event.BlockUserOnlyDependency, NonAssumableChoice: event.BlockUserOnlyDependency,
		MissingRequiredOutput: event.BlockMissingRequiredOutput, InvalidRequiredOutput: event.BlockInvalidRequiredOutput,
		MissingNotes: event.BlockMissingRequiredNotes, NotesCriteriaUnmet: event.BlockNotesCriteriaUnmet,
		AssessmentFollowupRequired: event.BlockAssessmentFollowupRequired, RequiredCapabilityUnknown: event.BlockRequiredCapabilityUnknown,
		RequiredCapabilityUnavailable: event.BlockRequiredCapabilityUnavailable,
	}[r.Code]
}

func pointer(r Reason) event.Pointer {
	switch r.Code {
	case MissingRequiredOutput, InvalidRequiredOutput:
		return event.Pointer{Kind: event.PointOutputContract, ContractRef: r.ContractRef}
	case RequiredCapabilityUnknown, RequiredCapabilityUnavailable:
		return event.Pointer{Kind: event.PointCapability, Capability: r.Capability}
	}
	return event.Pointer{Kind: event.PointWorkflowStep, StepID: r.Step}
}

func blockerMessage(r Reason) string {
	switch r.Code {
	case UserOnlyDependency, NonAssumableChoice:
		d := r.Dependency
		if r.Confirm && d.Reason == workflow.NeedsUserApproval {
			return "Only the user can confirm this step: " + d.Summary + "."
		}
		msg := fmt.Sprintf("Only the user can resolve this (%s): %s", d.Reason, d.Summary)
		if d.ChoiceKind != "" {
			msg += fmt.Sprintf(" The choice cannot be assumed (%s).", d.ChoiceKind)
		}
		return msg
	case MissingRequiredOutput:
		switch r.ContractRef {
		case workflow.ContractAssessment:
			return fmt.Sprintf("Step %s requires a %s artifact in output.artifacts: %s.", r.Step, workflow.AssessmentKind, r.Detail)
		case workflow.ContractLoopControl:
			return fmt.Sprintf("Step %s requires your loop decision (continue or stop) in a %s artifact; none was sent.", r.Step, r.ContractRef)
		}
		return fmt.Sprintf("Step %s requires an artifact of kind %s in output.artifacts; none was sent.", r.Step, r.ContractRef)
	case InvalidRequiredOutput:
		return fmt.Sprintf("The %s artifact does not match its contract: %s", r.ContractRef, r.Detail)
	case MissingNotes:
		return fmt.Sprintf("Step %s requires notes and output.notesMarkdown was empty.", r.Step)
	case NotesCriteriaUnmet:
		return fmt.Sprintf("The notes of step %s do not meet its criteria: %s", r.Step, r.Detail)
	case AssessmentFollowupRequired:
		f := r.Followup
		return fmt.Sprintf("Your %s assessment rates %s as %s, which this step answers with a follow-up before it can advance.", f.Assessment, f.Dimension, f.Level)
	case RequiredCapabilityUnknown:
		return fmt.Sprintf("This workflow requires %s and its availability has not been observed.", r.Capability)
	}
	return fmt.Sprintf("This workflow requires %s, which was observed unavailable.", r.Capability)
}

func fix(r Reason) string {
	switch r.Code {
	case UserOnlyDependency, NonAssumableChoice:
		d := r.Dependency
		fix := fmt.Sprintf("Ask the user: %s", d.RequestedFromUser)
		if len(d.Options) > 0 {
			fix += fmt.Sprintf(" (options: %s)", strings.Join(d.Options, " | "))
		}
		if d.Reason == workflow.NeedsUserSecretOrToken {
			return fix + ". Keep the secret in the chat (or let the user put it where the tool that needs it reads it): never send its value to WorkRail. Then retry with the call below, saying in its wr.user_response only that the user provided it."
		}
		return fix + ", and wait for their answer: never answer for them. Then retry with the call below, their answer in place of the markers of its wr.user_response."
	case MissingRequiredOutput:
		return fmt.Sprintf("Retry with the call below, each marker of its %s artifact replaced by your own answer.", artifactKind(r.ContractRef))
	case InvalidRequiredOutput:
		return fmt.Sprintf("Retry with the call below, its %s artifact as the contract asks, each marker replaced by your own answer.", artifactKind(r.ContractRef))
	case MissingNotes:
		fix := "Write in output.notesMarkdown what you did in this step and what you found (" + cmp.Or(r.Length, "1-10 lines") + ")"
		if r.Detail != "" {
			fix += "; your notes must: " + r.Detail
		}
		return fix + ". Then retry with the call below."
	case NotesCriteriaUnmet:
		return "Revise output.notesMarkdown so that it meets each criterion named above (do the missing work first if it is not done), then retry with the call below."
	case AssessmentFollowupRequired:
		f := r.Followup
		return fmt.Sprintf("Stay on step %s and do this: %s Then retry with the call below and a new wr.assessment; the step advances once no dimension is rated %s.", r.Step, f.Guidance, f.Level)
	case RequiredCapabilityUnknown:
		return "Try the capability as the step says, and report what happened in the call below."
	}
	return fmt.Sprintf("Make %s available to the agent (e.g. install or enable a tool that provides it) and retry the probe, or provide the needed material yourself; or start the workflow in mode wr.modes.full_auto_never_stop to continue without it, with the gap recorded.", r.Capability)
}

// artifactKind is the kind an agent sends for contract ref.
func artifactKind(ref workflow.ContractRef) string {
	if ref == workflow.ContractAssessment {
		return workflow.AssessmentKind
	}
	return string(ref)
}

// gap is the critical gap a reason leaves when the mode goes on without
// it: what was not done, the safe default taken, and how to resolve it.
func gap(r Reason) event.GapRecordedData {
	g := event.GapRecordedData{Severity: event.SeverityCritical, RelatedStepID: r.Step}
	switch r.Code {
	case UserOnlyDependency, NonAssumableChoice:
		d := r.Dependency
		g.Reason, g.Dependency = event.GapUserOnlyDependency, d.Reason
		g.HowToResolve = "Ask the user: " + d.RequestedFromUser
		switch {
		case r.Confirm && d.Reason == workflow.NeedsUserApproval:
			g.Summary = "Continued without confirmation: " + strings.TrimSuffix(d.Summary, ".") + ", and nobody asked them."
		case r.Code == NonAssumableChoice:
			g.Summary = fmt.Sprintf("The user's choice was not asked (%s): %s. No choice was made; the run went on without one.", d.ChoiceKind, strings.TrimSuffix(d.Summary, "."))
		default:
			g.Summary = fmt.Sprintf("Continued without the user (%s): %s", d.Reason, d.Summary)
		}
	case MissingRequiredOutput, InvalidRequiredOutput:
		g.Reason = event.GapOutputMissing
		switch r.ContractRef {
		case workflow.ContractAssessment:
			g.Summary = fmt.Sprintf("The rating was not made at step %s: %s", r.Step, r.Detail)
			g.HowToResolve = "Rate the step's work honestly, and act on what the rating asks"
			if len(r.Cautious) > 0 {
				g.Summary += "; counted at its most cautious level (" + cautiousText(r.Cautious) + "), which asks for a follow-up"
				g.HowToResolve = followupGuidance(r.Cautious)
			}
		case workflow.ContractLoopControl:
			g.Summary = fmt.Sprintf("The loop decision was not made at step %s: the loop stopped (its safe default)", r.Step)
			g.HowToResolve = "Check whether the loop's work is finished; if not, continue it in a new run or by hand"
		default:
			g.Summary = fmt.Sprintf("Step %s advanced without a valid %s artifact", r.Step, r.ContractRef)
			if r.Detail != "" {
				g.Summary += ": " + r.Detail
			}
			g.HowToResolve = fmt.Sprintf("Produce the %s artifact the step asks for", r.ContractRef)
		}
	case MissingNotes:
		g.Reason = event.GapNotesMissing
		g.Summary = fmt.Sprintf("Step %s advanced without the notes its workflow requires", r.Step)
		g.HowToResolve = "Record what the step did and found"
		if r.Detail != "" {
			g.HowToResolve += "; the notes must: " + r.Detail
		}
	case NotesCriteriaUnmet:
		g.Reason = event.GapNotesCriteriaUnmet
		g.Summary = fmt.Sprintf("Step %s advanced with notes that do not meet its criteria: %s", r.Step, r.Detail)
		g.HowToResolve = "Check the step's work against its criteria and complete what is missing"
	case AssessmentFollowupRequired:
		f := r.Followup
		g.Reason = event.GapAssessmentFollowup
		g.Summary = fmt.Sprintf("Step %s advanced although its %s assessment rated %s as %s, which asks for a follow-up", r.Step, f.Assessment, f.Dimension, f.Level)
		g.HowToResolve = f.Guidance
	default:
		g.Reason = event.GapCapabilityMissing
		g.Summary = fmt.Sprintf("Required capability %s is not available (%s); continued without it", r.Capability, r.Code)
		g.HowToResolve = fmt.Sprintf("Make %s available and rerun the affected steps", r.Capability)
	}
	if len(r.Unfilled) > 0 {
		g.Summary += fmt.Sprintf(" (%s still held WorkRail's template)", strings.Join(r.Unfilled, ", "))
	}
	g.Summary = clip(g.Summary, MaxMessageBytes)
	g.HowToResolve = clip(g.HowToResolve, MaxSuggestedFixBytes)
	return g
}

func cautiousText(fs []Followup) string {
	var parts []string
	for _, f := range fs {
		parts = append(parts, fmt.Sprintf("%s %s: %s", f.Assessment, f.Dimension, f.Level))
	}
	return strings.Join(parts, "; ")
}

func followupGuidance(fs []Followup) string {
	var parts []string
	for _, f := range fs {
		parts = append(parts, strings.TrimSpace(f.Guidance))
	}
	return strings.Join(parts, " ")
}

// Bound sorts blockers deterministically by (code, pointer kind, pointer
// fields) and enforces the count and byte bounds.
func Bound(bs []event.Blocker) []event.Blocker {
	sort.SliceStable(bs, func(i, j int) bool { return sortKey(bs[i]) < sortKey(bs[j]) })
	if len(bs) > MaxBlockers {
		bs = bs[:MaxBlockers]
	}
	for i := range bs {
		bs[i].Message = clip(bs[i].Message, MaxMessageBytes)
		bs[i].SuggestedFix = clip(bs[i].SuggestedFix, MaxSuggestedFixBytes)
	}
	return bs
}

func sortKey(b event.Blocker) string {
	p := b.Pointer
	return strings.Join([]string{string(b.Code), string(p.Kind), p.Key, string(p.ContractRef), string(p.Capability), string(p.StepID)}, "\x00")
}

// clip shortens s to at most n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	const marker = "…"
	if len(s) <= n {
		return s
	}
	s = s[:n-len(marker)]
	for len(s) > 0 && s[len(s)-1]&0xC0 == 0x80 {
		s = s[:len(s)-1]
	}
	if len(s) > 0 && s[len(s)-1] >= 0xC0 {
		s = s[:len(s)-1]
	}
	return s + marker
}
