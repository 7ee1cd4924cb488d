package console

import (
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/workflow"
)

// modeText says an autonomy preference in plain words: what the agent
// does, not the code the agent sends.
func modeText(a workflow.Autonomy) string {
	switch a {
	case workflow.Guided:
		return "Guided"
	case workflow.FullAutoStopOnUserDep:
		return "Full auto, stops for user dependencies"
	case workflow.FullAutoNeverStop:
		return "Full auto, never stops"
	}
	return string(a)
}

// panelAnchor is where a link that opens a node's panel lands: its
// heading, so on a phone (panel below the rows) the panel is in view,
// with or without JavaScript.
const panelAnchor = "#panel-h"

// gapReasonText says why a gap was recorded in words; pages print the
// code after it, small.
func gapReasonText(r event.GapReason) string {
	switch r {
	case event.GapUserOnlyDependency:
		return "needs something only the user can give"
	case event.GapAssumptionMade:
		return "the agent assumed something"
	case event.GapCapabilityMissing:
		return "a capability was missing"
	case event.GapOutputMissing:
		return "a required output is missing or invalid"
	case event.GapWorkflowDivergence:
		return "the agent left the workflow's path"
	case event.GapNotesMissing:
		return "the step's notes are missing"
	case event.GapNotesCriteriaUnmet:
		return "the notes miss what the step asks of them"
	case event.GapAssessmentFollowup:
		return "an assessment asked for a follow-up"
	}
	return string(r)
}

// divergenceText says why an agent left the workflow's path, in words.
func divergenceText(r event.DivergenceReason) string {
	switch r {
	case event.DivergeUserInstruction:
		return "the user asked for it"
	case event.DivergeStepNotApplicable:
		return "the step did not apply"
	case event.DivergeBetterApproach:
		return "the agent found a better approach"
	case event.DivergeMissingCapability:
		return "a capability was missing"
	case event.DivergeScopeChange:
		return "the scope changed"
	}
	return string(r)
}
