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
	RequireConfirmation bool            `json:"requireConfirmation,omitempty"`
	Output              *OutputSpec     `json:"output,omitempty"`
	UserDependency      *UserDependency `json:"userDependency,omitempty"`
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

// TemplateCall expands a builtin template into the step.
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

// MaxLoopIterations bounds every loop's maxIterations.
const MaxLoopIterations = 100

// Loop repeats its body of steps.
type Loop struct {
	ID    StepID   `json:"id"`
	Title string   `json:"title"`
	Loop  LoopSpec `json:"loop"`
	Body  []Node   `json:"body"`
}

// LoopSpec says how a loop repeats. Exactly the fields of its kind are set:
// while/until: condition; for: count; forEach: over (a context array) and
// as (the name the current item is shown under).
type LoopSpec struct {
	Kind          LoopKind   `json:"kind"`
	Condition     *Condition `json:"condition,omitempty"`
	Count         int        `json:"count,omitempty"`
	Over          string     `json:"over,omitempty"`
	As            string     `json:"as,omitempty"`
	MaxIterations int        `json:"maxIterations"`
}
