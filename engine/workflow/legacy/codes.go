package legacy

// Code is the closed set of rewrites the normalizer makes. Each warning
// carries one; the compiled workflow records the sorted set applied.
// Members are added, never repurposed.
type Code string

// Rewrite codes, grouped by what they touch.
const (
	// Workflow metadata.
	SpecVersionDropped Code = "SPEC_VERSION_DROPPED"   // validatedAgainstSpecVersion: a staleness badge in the TypeScript tools; nothing here reads it
	AskForFilesDropped Code = "ASK_FOR_FILES_DROPPED"  // askForFiles: read by nothing in either tool
	ModelTierDropped   Code = "MODEL_TIER_DROPPED"     // workflow or step modelTier: WorkRail does not pick models
	PreferencesRenamed Code = "PREFERENCES_RENAMED"    // recommendedAutonomy/RiskPolicy → recommendedPreferences
	RoutineKindFromID  Code = "ROUTINE_KIND_FROM_ID"   // a wr.routine-* file without kind loads as kind routine
	FeatureOrderFixed  Code = "FEATURE_ORDER_FIXED"    // features apply in WorkRail's fixed order, not the listed one
	ContextSynthesized Code = "CONTEXT_SYNTHESIZED"    // an undeclared variable a condition or loop reads gets a lenient context input, set during the run
	DimensionRequired  Code = "DIMENSION_REQUIRED"     // dimension required: false → optional: true (required: true dropped)
	HasValidationDrop  Code = "HAS_VALIDATION_DROPPED" // step hasValidation: read by nothing
	StepTypeDropped    Code = "STEP_TYPE_DROPPED"      // step type "standard": every step is one
	FunctionRefParens  Code = "FUNCTION_REF_PARENS"    // functionReferences "name()" → "name"
	CriteriaWrapped    Code = "CRITERIA_WRAPPED"       // validationCriteria given as one {and|or|not} object → a one-element list
	OutputContract     Code = "OUTPUT_CONTRACT"        // outputContract → output.contractRef
	OutputOptionalHint Code = "OUTPUT_OPTIONAL_HINT"   // outputContract required: false → an output hint (not enforced)
	OutputOptionalKept Code = "OUTPUT_OPTIONAL_KEPT"   // outputContract required: false on loop_control → still required (it drives the loop)
	PromptPartsJoined  Code = "PROMPT_PARTS_JOINED"    // a promptBlocks value given as text/ref parts → one string
	PromptRefInlined   Code = "PROMPT_REF_INLINED"     // a wr.refs.* part → WorkRail's text for it
	OutputRequiredList Code = "OUTPUT_REQUIRED_LIST"   // promptBlocks outputRequired {name: description} → ["name: description", …]
	GoalFromTitle      Code = "GOAL_FROM_TITLE"        // promptBlocks without goal → the step's title as goal
	ConfirmationGate   Code = "CONFIRMATION_GATE"      // requireConfirmation {kind: …}: no gates here; asks for confirmation (when its condition holds)
	NotEqualsRewritten Code = "NOT_EQUALS"             // not_equals: v → not(equals v): true when unset, as before
	ArrayOperand       Code = "ARRAY_OPERAND"          // equals/not_equals an array literal: never/always true in the TypeScript tools → the same constant
	EmptyCondition     Code = "EMPTY_CONDITION"        // {} as a condition (always true) → no condition
	TemplateCall       Code = "TEMPLATE_CALL"          // templateCall {templateId: wr.templates.routine.x} → template {id: wr.routine-x}
	ParallelStep       Code = "PARALLEL_STEP"          // type "parallel" → a step with parallelDelegations (requireConfirmation dropped: never asked)
	LoopType           Code = "LOOP_TYPE"              // type "loop" dropped; loop.type → loop.kind
	LoopKeyDropped     Code = "LOOP_KEY_DROPPED"       // requireConfirmation or notesOptional on a loop: means nothing on a loop here
	ForEachVars        Code = "FOREACH_VARS"           // items/itemVar → over/as, the TypeScript default variable names made explicit, itemsRequired set
	ArtifactWhile      Code = "ARTIFACT_WHILE"         // a loop driven by its loop_control step → a while without condition
	ContextWhile       Code = "CONTEXT_WHILE"          // a while on a context condition: checked before each iteration, not before each step
	IterationVar       Code = "ITERATION_VAR"          // a loop whose body reads currentIteration, the format's default name: iterationVar written out
	CountVar           Code = "COUNT_VAR"              // a for loop's count naming a context variable → countVar
	BodyByID           Code = "BODY_STEP_MOVED"        // a loop body naming a step id → that step moved into the loop (it no longer runs at its own place)
	UntilPrechecked    Code = "UNTIL_PRECHECKED"       // an until loop, checked before each iteration there → a while on not(condition)
	FunctionRefDropped Code = "FUNCTION_REF_UNDEFINED" // a functionReferences name no definition in scope has: dropped, as the TypeScript tools filter it out
	FunctionCallsDrop  Code = "FUNCTION_CALLS_DROPPED" // functionCalls, checked against the definitions: dropped, as neither WorkRail shows them
	VirtualStep        Code = "VIRTUAL_STEP"           // audit, verification or a parallel step's synthesis → a step of its own after the step
	FormatByConstruct  Code = "FORMAT_BY_CONSTRUCT"    // nothing to rewrite, but a construct the format introduced and nothing only WorkRail's own format has: read in that format
)

// Codes lists every rewrite code in declaration order.
func Codes() []Code {
	return []Code{SpecVersionDropped, AskForFilesDropped, ModelTierDropped, PreferencesRenamed, RoutineKindFromID,
		FeatureOrderFixed, ContextSynthesized, DimensionRequired, HasValidationDrop, StepTypeDropped, FunctionRefParens,
		CriteriaWrapped, OutputContract, OutputOptionalHint, OutputOptionalKept, PromptPartsJoined, PromptRefInlined,
		OutputRequiredList, GoalFromTitle, ConfirmationGate, NotEqualsRewritten, ArrayOperand, EmptyCondition,
		TemplateCall, ParallelStep, LoopType, LoopKeyDropped, ForEachVars, ArtifactWhile, ContextWhile,
		IterationVar, CountVar, BodyByID, UntilPrechecked, FunctionRefDropped, FunctionCallsDrop, VirtualStep, FormatByConstruct}
}
