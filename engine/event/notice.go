package event

// NoticeCode is the closed set of warning codes WorkRail attaches to
// results and records with an attempt. Add a code here before using it.
type NoticeCode string

// Notice codes.
const (
	// Boundary: context keys the workflow does not declare.
	NoticeContextKeyUndeclared NoticeCode = "CONTEXT_KEY_UNDECLARED"
	// Rehydrate writes nothing, so inputs sent with it are disclosed.
	NoticeContextIgnoredOnRehydrate     NoticeCode = "CONTEXT_IGNORED_ON_REHYDRATE"
	NoticeOutputIgnoredOnRehydrate      NoticeCode = "OUTPUT_IGNORED_ON_REHYDRATE"
	NoticePreferencesIgnoredOnRehydrate NoticeCode = "PREFERENCES_IGNORED_ON_REHYDRATE"
	// Replay: a spent ackToken sent with an output other than the one its
	// attempt recorded. The answer is the recorded one, so the output sent
	// was not recorded; the warning carries the rehydrate that hands out a
	// fresh ackToken to send it with. Shown on that replay only, never
	// recorded.
	NoticeOutputIgnoredOnReplay NoticeCode = "OUTPUT_IGNORED_ON_REPLAY"
	// Preferences.
	NoticePreferencesNotApplied           NoticeCode = "PREFERENCES_NOT_APPLIED"
	NoticePreferencesExceedRecommendation NoticeCode = "PREFERENCES_EXCEED_RECOMMENDATION"
	// Artifacts and capabilities.
	NoticeUserResponseInvalid NoticeCode = "USER_RESPONSE_INVALID"
	NoticeArtifactInvalid     NoticeCode = "ARTIFACT_INVALID"
	NoticeCapabilityDegraded  NoticeCode = "CAPABILITY_DEGRADED"
	// Catalog: a workflow id without a namespace.
	NoticeLegacyWorkflowID NoticeCode = "LEGACY_WORKFLOW_ID"
	// Rehydrate: the workflow the run is pinned to has drifted from what
	// its id means now (catalog.Drift); the run keeps its pinned version.
	// Shown on a rehydrate only, never recorded with an attempt.
	NoticePinnedWorkflowDrifted NoticeCode = "PINNED_WORKFLOW_DRIFTED"
	// Secrets: text the agent sent held something the secret scanner
	// matches; it was replaced by [redacted: <rule>] before anything was
	// stored. The notice names the fields and rules, never the secret.
	NoticeSecretRedacted NoticeCode = "SECRET_REDACTED"
	// Forgiving boundary: an artifact sent under another accepted kind
	// (wr.loop_control for wr.contracts.loop_control), an assessment level
	// matched ignoring case, a lenient context value canonicalised to the
	// workflow's own spelling. Each names what was read as what.
	NoticeArtifactKindAliased       NoticeCode = "ARTIFACT_KIND_ALIASED"
	NoticeAssessmentLevelNormalized NoticeCode = "ASSESSMENT_LEVEL_NORMALIZED"
	NoticeContextValueCanonicalized NoticeCode = "CONTEXT_VALUE_CANONICALIZED"
	// Catalog: the file is in the TypeScript WorkRail format; one notice
	// per rewrite, with the rewrite's code (legacy.Code) and pointer.
	NoticeLegacyFormat NoticeCode = "LEGACY_FORMAT"
	// Catalog: a file outside the bundled source claims a wr.* id; it
	// loads under the suggested id and never shadows a bundled workflow.
	NoticeReservedIDRenamed NoticeCode = "RESERVED_ID_RENAMED"
	// Catalog: a routine call passes an argument the routine never uses.
	NoticeRoutineArgUnused NoticeCode = "ROUTINE_ARG_UNUSED"
	// Catalog: a delegation names a routine by the wr.* id its file
	// claims; it runs the routine under the id it loaded as.
	NoticeDelegationRetargeted NoticeCode = "DELEGATION_RETARGETED"
	// An output held WorkRail's template (a <<fill: …>> marker or a
	// placeholder) where nothing required an answer: it was left out.
	// (Where something did, the blocker or gap says so.)
	NoticeTemplateUnfilled NoticeCode = "TEMPLATE_UNFILLED"
	// An artifact of a kind the step does not ask for and WorkRail does
	// not read anywhere: recorded as sent; the notice names the kinds the
	// step expects.
	NoticeArtifactKindUnexpected NoticeCode = "ARTIFACT_KIND_UNEXPECTED"
	// A step or loop skipped earlier by its condition runs now, out of
	// order, because the context sent since satisfies it (a file in the
	// TypeScript WorkRail's format, which reconsiders skipped steps).
	NoticeSkippedStepRunsLate NoticeCode = "SKIPPED_STEP_RUNS_LATE"
)

// NoticeCodes lists every notice code in a fixed order.
func NoticeCodes() []NoticeCode {
	return []NoticeCode{NoticeContextKeyUndeclared, NoticeContextIgnoredOnRehydrate, NoticeOutputIgnoredOnRehydrate,
		NoticePreferencesIgnoredOnRehydrate, NoticeOutputIgnoredOnReplay, NoticePreferencesNotApplied, NoticePreferencesExceedRecommendation,
		NoticeUserResponseInvalid, NoticeArtifactInvalid, NoticeCapabilityDegraded, NoticeLegacyWorkflowID,
		NoticePinnedWorkflowDrifted, NoticeSecretRedacted, NoticeArtifactKindAliased, NoticeAssessmentLevelNormalized,
		NoticeContextValueCanonicalized, NoticeLegacyFormat, NoticeReservedIDRenamed, NoticeRoutineArgUnused,
		NoticeDelegationRetargeted, NoticeTemplateUnfilled, NoticeArtifactKindUnexpected, NoticeSkippedStepRunsLate}
}
