package console

import (
	"strconv"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
)

// branchWords say how a branch came to be and where it left, as its
// first row and the header say it.
type branchWords struct {
	Letter string
	Origin project.Origin
	// From is the node of the row it left; After the title of the step
	// pending there, the one done again to make it.
	From    engine.NodeID
	After   string
	Changed []string
	Status  project.BranchStatus
}

// branchWordsOf reads branch i of the run.
func (v runView) branchWordsOf(i int) *branchWords {
	if i < 0 || i >= len(v.P.Branches) {
		return nil
	}
	b := v.P.Branches[i]
	w := &branchWords{Letter: b.Letter, Origin: b.Origin, Changed: b.Changed, Status: b.Status}
	if b.From != 0 {
		w.From = v.P.RowOf(b.From)
		if row, ok := v.P.Row(w.From); ok {
			w.After = stepTitle(v.Pinned.Compiled, row.Step)
		}
	}
	return w
}

// Text is how the branch came to be, in words.
func (b branchWords) Text() string { return branchOriginText(b.Origin, b.Changed) }

// Sentence says where the branch starts and how it came to be: "Branch
// C starts here: forked in the Console, context changed: topic, from
// “Triage”."
func (b branchWords) Sentence() string {
	s := "Branch " + b.Letter + " starts here: " + b.Text()
	if w := b.Where(); w != "" {
		s += ", " + w
	}
	return s + "."
}

// Where says where the branch left: "from “Triage” (node_2)".
func (b branchWords) Where() string {
	if b.From == 0 {
		return ""
	}
	return "from “" + b.After + "”"
}

// branchOriginText says how a branch came to be.
func branchOriginText(o project.Origin, changed []string) string {
	return project.OriginText(o, changed)
}

// branchStatusText says a branch's state in words, with a shape.
func branchStatusText(s project.BranchStatus) string {
	shape := map[project.BranchStatus]string{project.BranchComplete: "✓", project.BranchCurrent: "▶", project.BranchBlocked: "■"}[s]
	if shape == "" {
		shape = "◇"
	}
	return shape + " " + project.StatusText(s)
}

// branchSentence is the run over all its branches: "3 branches: A ✓
// complete, B ◇ left behind, C ▶ current"; "" for a run of one.
func branchSentence(p *project.Projection) string {
	if len(p.Branches) < 2 {
		return ""
	}
	parts := make([]string, len(p.Branches))
	for i, b := range p.Branches {
		parts[i] = b.Letter + " " + branchStatusText(b.Status)
	}
	return branchCount(len(p.Branches)) + ": " + strings.Join(parts, ", ")
}

// blockerText says what a blocker is, in words.
func blockerText(c event.BlockerCode) string {
	switch c {
	case event.BlockUserOnlyDependency:
		return "Waiting for the user"
	case event.BlockMissingRequiredOutput:
		return "A required output is missing"
	case event.BlockInvalidRequiredOutput:
		return "A required output does not match its contract"
	case event.BlockRequiredCapabilityUnknown:
		return "A capability the step needs has not been checked"
	case event.BlockRequiredCapabilityUnavailable:
		return "A capability the step needs is unavailable"
	case event.BlockMissingRequiredNotes:
		return "The step's notes are missing"
	case event.BlockNotesCriteriaUnmet:
		return "The notes miss what the step asks of them"
	case event.BlockAssessmentFollowupRequired:
		return "An assessment asked for a follow-up"
	case event.BlockInvariantViolation, event.BlockStorageCorruptionDetected:
		return "WorkRail found a problem in the session"
	}
	return string(c)
}

// blockerFix says how a person gets past a blocker: what they do, or
// that the agent's next try can.
func blockerFix(c event.BlockerCode) string {
	switch c {
	case event.BlockUserOnlyDependency:
		return "Answer the agent in the chat; it sends your answer with its next try."
	case event.BlockMissingRequiredOutput, event.BlockInvalidRequiredOutput:
		return "The agent has to send the output the step asks for; its next try can."
	case event.BlockRequiredCapabilityUnknown:
		return "The agent has to check it can use the capability and say so; its next try can."
	case event.BlockRequiredCapabilityUnavailable:
		return "Give the agent the capability, or fork the run from an earlier step."
	case event.BlockMissingRequiredNotes, event.BlockNotesCriteriaUnmet:
		return "The agent has to write the notes the step asks for; its next try can."
	case event.BlockAssessmentFollowupRequired:
		return "The agent has to do the follow-up its assessment asked for, then try again."
	case event.BlockInvariantViolation, event.BlockStorageCorruptionDetected:
		return "Run workrail doctor."
	}
	return ""
}

// refusedText says what a refusal is, in words.
func refusedText(c event.NoticeCode) string {
	switch c {
	case event.NoticeArtifactInvalid:
		return "An output did not match its contract and was not recorded as one"
	case event.NoticeUserResponseInvalid:
		return "The user's answer was not taken"
	case event.NoticeTemplateUnfilled:
		return "Part of the call was WorkRail's template, not the agent's words, and was left out"
	}
	return string(c)
}

// attemptName names an attempt as a person counts it: from 1, and a
// Console fork's as such (its number is far past the others).
func attemptName(a engine.Attempt) string {
	if a >= project.ConsoleAttempts {
		return "the Console's fork"
	}
	return "attempt " + strconv.FormatUint(uint64(a)+1, 10)
}

// gapFix says how a person gets a gap resolved. A gap the agent disclosed
// says it in the agent's words; one WorkRail recorded for a mode that does
// not stop was written for the agent, so it is said here instead.
func gapFix(r event.GapReason, howToResolve string) string {
	switch r {
	case event.GapUserOnlyDependency:
		return "Give the agent your answer in the chat; it records it as this gap's resolution."
	case event.GapCapabilityMissing:
		return "Give the agent the capability it lacked, then have it do the step again."
	case event.GapOutputMissing:
		return "Have the agent send the output the step asks for; it records that as this gap's resolution."
	case event.GapWorkflowDivergence:
		return "Check why the agent left the workflow's path; it can record that the gap is resolved."
	case event.GapNotesMissing, event.GapNotesCriteriaUnmet:
		return "Have the agent write the notes the step asks for."
	case event.GapAssessmentFollowup:
		return "Have the agent do the follow-up its assessment asked for."
	}
	if howToResolve != "" {
		return howToResolve
	}
	return "Check the agent's assumption; it can record how it was resolved."
}
