// Package workflow owns the workflow source model: what an author writes,
// how it is read strictly (every problem with a JSON pointer, a line and
// column, and a did-you-mean where one helps), and the rules for ids,
// namespaces, conditions and loops. It performs no I/O; callers hand it
// bytes.
package workflow

import (
	"encoding/json"

	"github.com/workrail/workrail/engine"
)

// StepID identifies a step (or loop) within a workflow.
type StepID string

// Kind is the closed set of workflow kinds.
type Kind string

// Workflow kinds. A routine is a small workflow meant to be run inside
// another one's step.
const (
	KindWorkflow Kind = "workflow"
	KindRoutine  Kind = "routine"
)

// Workflow is the source form of a workflow file.
type Workflow struct {
	Schema                 string              `json:"$schema,omitempty"`
	ID                     engine.WorkflowID   `json:"id"`
	Kind                   Kind                `json:"kind,omitempty"`
	Name                   string              `json:"name"`
	Description            string              `json:"description"`
	Version                string              `json:"version"`
	AgentRole              string              `json:"agentRole,omitempty"`
	Features               []FeatureID         `json:"features,omitempty"`
	Capabilities           map[Capability]Need `json:"capabilities,omitempty"`
	RecommendedPreferences *Preferences        `json:"recommendedPreferences,omitempty"`
	Context                []ContextInput      `json:"context,omitempty"`
	Steps                  []Node              `json:"steps"`

	// What a person or an agent reads about the workflow. None of it
	// changes which step runs; metaGuidance and references are shown to
	// the agent at start and on rehydrate.
	About                string         `json:"about,omitempty"`
	Examples             []string       `json:"examples,omitempty"`
	Preconditions        []string       `json:"preconditions,omitempty"`
	ClarificationPrompts []string       `json:"clarificationPrompts,omitempty"`
	MetaGuidance         []string       `json:"metaGuidance,omitempty"`
	References           []Reference    `json:"references,omitempty"`
	MetricsProfile       MetricsProfile `json:"metricsProfile,omitempty"`
	FunctionDefinitions  []FunctionDef  `json:"functionDefinitions,omitempty"`

	// Assessments are the dimensions (each with a closed set of levels)
	// that steps naming them in assessmentRefs must rate in a
	// wr.assessment artifact.
	Assessments []Assessment `json:"assessments,omitempty"`
	// Contracts are output contracts the workflow declares itself; a step
	// requires one with output.contractRef, as it would a WorkRail pack.
	Contracts map[ContractRef]ContractDecl `json:"contracts,omitempty"`
	// Notes says whether every step's advance needs output.notesMarkdown
	// (default optional).
	Notes NotesPolicy `json:"notes,omitempty"`
}

// MetricsProfile is the closed set of metrics profiles a workflow may
// name. It is carried and shown; it changes no prompt.
type MetricsProfile string

// Metrics profiles.
const (
	MetricsCoding   MetricsProfile = "coding"
	MetricsReview   MetricsProfile = "review"
	MetricsResearch MetricsProfile = "research"
	MetricsDesign   MetricsProfile = "design"
	MetricsTicket   MetricsProfile = "ticket"
	MetricsNone     MetricsProfile = "none"
)

// MetricsProfiles lists every metrics profile in a fixed order.
func MetricsProfiles() []MetricsProfile {
	return []MetricsProfile{MetricsCoding, MetricsReview, MetricsResearch, MetricsDesign, MetricsTicket, MetricsNone}
}

// NotesPolicy is the closed set of notes policies.
type NotesPolicy string

// Notes policies. Under required, a step's advance without notes is
// blocked (a critical gap in full_auto_never_stop) unless the step says
// notesOptional or requires an output contract.
const (
	NotesOptional NotesPolicy = "optional"
	NotesRequired NotesPolicy = "required"
)

// NotesPolicies lists every notes policy, the default first.
func NotesPolicies() []NotesPolicy { return []NotesPolicy{NotesOptional, NotesRequired} }

// ResolveFrom is the closed set of places a reference's path is read from.
type ResolveFrom string

// Reference roots.
const (
	FromWorkspace ResolveFrom = "workspace"
	FromPackage   ResolveFrom = "package"
)

// Reference points the agent at a document it should know about. WorkRail
// lists it; it never inlines the document.
type Reference struct {
	ID            string      `json:"id"`
	Title         string      `json:"title"`
	Source        string      `json:"source"`
	Purpose       string      `json:"purpose"`
	Authoritative bool        `json:"authoritative,omitempty"`
	ResolveFrom   ResolveFrom `json:"resolveFrom,omitempty"`
}

// FunctionDef is a named procedure steps may refer to by name in
// functionReferences.
type FunctionDef struct {
	Name       string          `json:"name"`
	Definition string          `json:"definition"`
	Parameters []FunctionParam `json:"parameters,omitempty"`
	Scope      string          `json:"scope,omitempty"`
}

// FunctionParam is one parameter of a function definition: Enum lists
// the values it may take and Default the one assumed, when the author
// says.
type FunctionParam struct {
	Name        string            `json:"name"`
	Type        string            `json:"type"`
	Required    bool              `json:"required,omitempty"`
	Description string            `json:"description,omitempty"`
	Enum        []json.RawMessage `json:"enum,omitempty"`
	Default     json.RawMessage   `json:"default,omitempty"`
}

// AssessmentID names an assessment a workflow declares.
type AssessmentID string

// Assessment is a set of dimensions an agent rates at a step.
type Assessment struct {
	ID         AssessmentID `json:"id"`
	Purpose    string       `json:"purpose"`
	Dimensions []Dimension  `json:"dimensions"`
}

// Dimension is one rated aspect with its closed set of levels.
type Dimension struct {
	ID       string   `json:"id"`
	Purpose  string   `json:"purpose"`
	Levels   []string `json:"levels"`
	Optional bool     `json:"optional,omitempty"`
}

// Consequence is what a recorded assessment level makes WorkRail do.
type Consequence struct {
	When   ConsequenceWhen `json:"when"`
	Effect Effect          `json:"effect"`
}

// ConsequenceWhen fires when any dimension (of ForAssessment, or of any
// assessment the step references) is at AnyEqualsLevel.
type ConsequenceWhen struct {
	AnyEqualsLevel string       `json:"anyEqualsLevel"`
	ForAssessment  AssessmentID `json:"forAssessment,omitempty"`
}

// EffectKind is the closed set of consequence effects.
type EffectKind string

// Effects. require_followup keeps the same step pending with the author's
// guidance.
const (
	RequireFollowup EffectKind = "require_followup"
)

// EffectKinds lists every consequence effect.
func EffectKinds() []EffectKind { return []EffectKind{RequireFollowup} }

// Effect is what a fired consequence does.
type Effect struct {
	Kind     EffectKind `json:"kind"`
	Guidance string     `json:"guidance"`
}

// ContractDecl is an output contract a workflow declares: a JSON Schema
// for the artifact, an example that satisfies it, and the artifact kinds
// accepted for it (the ref itself always is).
type ContractDecl struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Example     json.RawMessage `json:"example"`
	Kinds       []string        `json:"kinds,omitempty"`
}

// FeatureID names a feature from the closed set in package compile.
type FeatureID string

// Capability is the closed set of optional agent capabilities.
type Capability string

// Capabilities.
const (
	Delegation  Capability = "delegation"
	WebBrowsing Capability = "web_browsing"
)

// Capabilities lists every capability in a fixed order.
func Capabilities() []Capability { return []Capability{Delegation, WebBrowsing} }

// Need says how much a workflow needs a capability.
type Need string

// Needs.
const (
	Required  Need = "required"
	Preferred Need = "preferred"
)

// Autonomy is the closed set of autonomy preferences.
type Autonomy string

// Autonomy values, in increasing order of automation.
const (
	Guided                Autonomy = "guided"
	FullAutoStopOnUserDep Autonomy = "full_auto_stop_on_user_deps"
	FullAutoNeverStop     Autonomy = "full_auto_never_stop"
)

// Autonomies lists the autonomy values in increasing order of automation.
func Autonomies() []Autonomy { return []Autonomy{Guided, FullAutoStopOnUserDep, FullAutoNeverStop} }

// RiskPolicy is the closed set of risk policies.
type RiskPolicy string

// Risk policies, in increasing order of risk.
const (
	Conservative RiskPolicy = "conservative"
	Balanced     RiskPolicy = "balanced"
	Aggressive   RiskPolicy = "aggressive"
)

// RiskPolicies lists the risk policies in increasing order of risk.
func RiskPolicies() []RiskPolicy { return []RiskPolicy{Conservative, Balanced, Aggressive} }

// Preferences are the closed set of execution preferences.
type Preferences struct {
	Autonomy   Autonomy   `json:"autonomy,omitempty"`
	RiskPolicy RiskPolicy `json:"riskPolicy,omitempty"`
}

// ValueType is the closed set of context input types.
type ValueType string

// Context input types.
const (
	TypeString  ValueType = "string"
	TypeNumber  ValueType = "number"
	TypeInteger ValueType = "integer"
	TypeBoolean ValueType = "boolean"
	TypeArray   ValueType = "array"
)

// ContextInput declares one external input that conditions and loops read.
type ContextInput struct {
	Name        string            `json:"name"`
	Type        ValueType         `json:"type"`
	Enum        []json.RawMessage `json:"enum,omitempty"`
	Required    bool              `json:"required,omitempty"`
	Description string            `json:"description"`
	// Lenient inputs take what agents send loosely: the value is
	// canonicalised at the boundary (trimmed, case and type folded to the
	// workflow's own literals) instead of rejected.
	Lenient bool `json:"lenient,omitempty"`
	// SetDuringRun marks an input the agent sets with continue_workflow
	// once the run has reached it (a loop's stop flag, a list agreed
	// mid-run), not one a person gives at the start: it is not offered
	// as a prompt argument, and inspect says so. It cannot be required.
	SetDuringRun bool `json:"setDuringRun,omitempty"`
}

// Node is one entry of a step list: a step or a loop, never both.
type Node struct {
	Step *Step
	Loop *Loop
}

// ID is the node's id, whichever kind it is.
func (n Node) ID() StepID {
	if n.Loop != nil {
		return n.Loop.ID
	}
	return n.Step.ID
}

// Step is one instruction an agent carries out.
type Step struct {
	ID                  StepID          `json:"id"`
	Title               string          `json:"title"`
	Prompt              string          `json:"prompt,omitempty"`
	PromptBlocks        *PromptBlocks   `json:"promptBlocks,omitempty"`
	Template            *TemplateCall   `json:"template,omitempty"`
	AgentRole           string          `json:"agentRole,omitempty"`
	RunCondition        *Condition      `json:"runCondition,omitempty"`
	RequireConfirmation Confirmation    `json:"requireConfirmation,omitzero"`
	Output              *OutputSpec     `json:"output,omitempty"`
	UserDependency      *UserDependency `json:"userDependency,omitempty"`

	PromptFragments        []Fragment           `json:"promptFragments,omitempty"`
	Guidance               []string             `json:"guidance,omitempty"`
	FunctionReferences     []string             `json:"functionReferences,omitempty"`
	AssessmentRefs         []AssessmentID       `json:"assessmentRefs,omitempty"`
	AssessmentConsequences []Consequence        `json:"assessmentConsequences,omitempty"`
	ValidationCriteria     []Criterion          `json:"validationCriteria,omitempty"`
	NotesOptional          bool                 `json:"notesOptional,omitempty"`
	ParallelDelegations    []ParallelDelegation `json:"parallelDelegations,omitempty"`
	// FunctionDefinitions visible to this step only (its
	// functionReferences look here, then in enclosing loops, then in the
	// workflow's).
	FunctionDefinitions []FunctionDef `json:"functionDefinitions,omitempty"`
}

// Confirmation says whether a step asks the user to confirm before the
// agent goes on: always, never, or when a condition holds over the
// context at render. In JSON it is true, false or a condition object.
type Confirmation struct {
	Always bool
	When   *Condition
}

// IsZero reports whether c asks for nothing.
func (c Confirmation) IsZero() bool { return !c.Always && c.When == nil }

// MarshalJSON writes a boolean, or the condition.
func (c Confirmation) MarshalJSON() ([]byte, error) {
	if c.When != nil {
		return json.Marshal(c.When)
	}
	return json.Marshal(c.Always)
}

// UnmarshalJSON reads a boolean or a condition object.
func (c *Confirmation) UnmarshalJSON(b []byte) error {
	*c = Confirmation{}
	if err := json.Unmarshal(b, &c.Always); err == nil {
		return nil
	}
	c.When = &Condition{}
	return json.Unmarshal(b, c.When)
}

// Fragment is a block of prompt text appended at render when its
// condition holds over the context and loop variables (always, without
// one).
type Fragment struct {
	ID   string     `json:"id"`
	When *Condition `json:"when,omitempty"`
	Text string     `json:"text"`
}

// CriterionType is the closed set of notes checks.
type CriterionType string

// Notes checks.
const (
	CriterionContains CriterionType = "contains"
	CriterionRegex    CriterionType = "regex"
	CriterionLength   CriterionType = "length"
)

// CriterionTypes lists every notes check.
func CriterionTypes() []CriterionType {
	return []CriterionType{CriterionContains, CriterionRegex, CriterionLength}
}

// Criterion is one check of a step's notes, or a combination of checks:
// exactly one of type, and, or, not. A check with a condition applies
// only when the condition holds.
type Criterion struct {
	Type      CriterionType `json:"type,omitempty"`
	Value     string        `json:"value,omitempty"`
	Pattern   string        `json:"pattern,omitempty"`
	Flags     string        `json:"flags,omitempty"`
	Min       *int          `json:"min,omitempty"`
	Max       *int          `json:"max,omitempty"`
	Message   string        `json:"message,omitempty"`
	Condition *Condition    `json:"condition,omitempty"`
	And       []Criterion   `json:"and,omitempty"`
	Or        []Criterion   `json:"or,omitempty"`
	Not       *Criterion    `json:"not,omitempty"`
}

// ParallelDelegation is one piece of work a step asks the agent to hand to a
// subagent running another workflow. WorkRail renders the instruction;
// it neither starts nor tracks the subagent.
type ParallelDelegation struct {
	WorkflowID     engine.WorkflowID `json:"workflowId"`
	Goal           string            `json:"goal,omitempty"`
	RunCondition   *Condition        `json:"runCondition,omitempty"`
	ContextMapping map[string]string `json:"contextMapping,omitempty"`
	Args           map[string]any    `json:"args,omitempty"`
	ModelTier      string            `json:"modelTier,omitempty"`
	AllowedTools   []string          `json:"allowedTools,omitempty"`
}

// PromptBlocks is the structured form of a prompt; WorkRail renders it into
// deterministic text.
type PromptBlocks struct {
	Goal           string   `json:"goal"`
	Constraints    []string `json:"constraints,omitempty"`
	Procedure      []string `json:"procedure,omitempty"`
	OutputRequired []string `json:"outputRequired,omitempty"`
	Verify         []string `json:"verify,omitempty"`
}

// TemplateCall expands a builtin template (an id from Templates()) or a
// routine (a kind "routine" workflow, named by its workflow id) into the
// step.
type TemplateCall struct {
	ID   string         `json:"id"`
	Args map[string]any `json:"args,omitempty"`
}

// ContractRef names a contract pack from the closed set in package compile.
type ContractRef string

// OutputSpec declares the structured output a step requires.
type OutputSpec struct {
	ContractRef ContractRef `json:"contractRef,omitempty"`
	Hints       []string    `json:"hints,omitempty"`
}

// UserDependencyReason is the closed set of reasons only the user can
// unblock a step.
type UserDependencyReason string

// User-only dependency reasons.
const (
	NeedsUserSecretOrToken     UserDependencyReason = "needs_user_secret_or_token"
	NeedsUserAccountAccess     UserDependencyReason = "needs_user_account_access"
	NeedsUserArtifact          UserDependencyReason = "needs_user_artifact"
	NeedsUserChoice            UserDependencyReason = "needs_user_choice"
	NeedsUserApproval          UserDependencyReason = "needs_user_approval"
	NeedsUserEnvironmentAction UserDependencyReason = "needs_user_environment_action"
)

// UserDependencyReasons lists the reasons in a fixed order.
func UserDependencyReasons() []UserDependencyReason {
	return []UserDependencyReason{NeedsUserSecretOrToken, NeedsUserAccountAccess,
		NeedsUserArtifact, NeedsUserChoice, NeedsUserApproval, NeedsUserEnvironmentAction}
}

// ChoiceKind is the closed set of reasons a choice cannot be assumed.
type ChoiceKind string

// Non-assumable choice kinds.
const (
	PreferenceTradeoff ChoiceKind = "preference_tradeoff"
	ScopeBoundary      ChoiceKind = "scope_boundary"
	IrreversibleAction ChoiceKind = "irreversible_action"
	ExternalSideEffect ChoiceKind = "external_side_effect"
	PolicyOrCompliance ChoiceKind = "policy_or_compliance"
)

// ChoiceKinds lists the choice kinds in a fixed order.
func ChoiceKinds() []ChoiceKind {
	return []ChoiceKind{PreferenceTradeoff, ScopeBoundary, IrreversibleAction, ExternalSideEffect, PolicyOrCompliance}
}

// UserDependency declares that a step needs something only the user can
// provide or decide.
type UserDependency struct {
	Reason            UserDependencyReason `json:"reason"`
	ChoiceKind        ChoiceKind           `json:"choiceKind,omitempty"`
	Summary           string               `json:"summary"`
	RequestedFromUser string               `json:"requestedFromUser"`
	WhyUserOnly       string               `json:"whyUserOnly,omitempty"`
	Options           []string             `json:"options,omitempty"`
}

// LoopKind is the closed set of loop kinds.
type LoopKind string

// Loop kinds.
const (
	While   LoopKind = "while"
	Until   LoopKind = "until"
	For     LoopKind = "for"
	ForEach LoopKind = "forEach"
)

// LoopKinds lists every loop kind.
func LoopKinds() []LoopKind { return []LoopKind{While, Until, For, ForEach} }

// LoopVariables lists the keys of a loop's spec that name a variable its
// body reads: a forEach loop's item and its 0-based index, and any loop's
// 1-based iteration.
func LoopVariables() []string { return []string{"as", "indexVar", "iterationVar"} }

// MaxLoopIterations bounds every loop's maxIterations.
const MaxLoopIterations = 100

// Loop repeats its body of steps.
type Loop struct {
	ID           StepID     `json:"id"`
	Title        string     `json:"title"`
	Loop         LoopSpec   `json:"loop"`
	Body         []Node     `json:"body"`
	RunCondition *Condition `json:"runCondition,omitempty"`
	// FunctionDefinitions visible to the body's steps.
	FunctionDefinitions []FunctionDef `json:"functionDefinitions,omitempty"`
}

// LoopSpec says how a loop repeats. Exactly the fields of its kind are set:
// while/until: condition; for: count, or countVar (a context input read
// when the loop is reached); forEach: over (a context array) and as (the
// name the current item is shown under). A while loop may omit its
// condition when a body step requires wr.contracts.loop_control: the
// agent's decision then drives it.
type LoopSpec struct {
	Kind          LoopKind   `json:"kind"`
	Condition     *Condition `json:"condition,omitempty"`
	Count         int        `json:"count,omitempty"`
	CountVar      string     `json:"countVar,omitempty"`
	Over          string     `json:"over,omitempty"`
	As            string     `json:"as,omitempty"`
	MaxIterations int        `json:"maxIterations"`
	// IterationVar names the 1-based iteration (any loop), IndexVar the
	// 0-based item index (forEach), visible to conditions and {{}} in the
	// body.
	IndexVar     string `json:"indexVar,omitempty"`
	IterationVar string `json:"iterationVar,omitempty"`
	// ItemsRequired makes reaching a forEach loop without its array an
	// error instead of a skipped loop.
	ItemsRequired bool `json:"itemsRequired,omitempty"`
}
