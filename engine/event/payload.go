package event

import (
	"encoding/json"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/workflow"
)

// SessionCreatedData opens a session. CreatedAt is informational only (never
// used for ordering). ImportedFrom is set on a session made by importing a
// bundle, and absent otherwise, so every other log encodes as before.
type SessionCreatedData struct {
	CreatedAt     string        `json:"createdAt"`
	WorkspacePath string        `json:"workspacePath,omitempty"`
	ImportedFrom  *ImportSource `json:"importedFrom,omitempty"`
}

// ImportSource names the session a bundle was exported from: its id in
// the store it came from and the chain digest of its last event, which
// together say which log, as of when, this session copies.
type ImportSource struct {
	Session   engine.SessionID `json:"sessionId"`
	ChainHead engine.Digest    `json:"chainHead"`
}

// ObservationRecordedData is a high-signal local fact (e.g. git branch).
type ObservationRecordedData struct {
	Key   ObservationKey `json:"key"`
	Value string         `json:"value"`
}

// ObservationKey is the closed set of observation keys.
type ObservationKey string

// Observation keys.
const (
	ObsGitBranch  ObservationKey = "git_branch"
	ObsGitHeadSHA ObservationKey = "git_head_sha"
	// ObsRepoRoot is the absolute top folder of the repository the
	// workspace is in, so resume can rank the same repository first.
	ObsRepoRoot ObservationKey = "repo_root"
)

// ObservationKeys lists the observation keys in a fixed order.
func ObservationKeys() []ObservationKey {
	return []ObservationKey{ObsGitBranch, ObsGitHeadSHA, ObsRepoRoot}
}

// RunStartedData pins a run to one compiled workflow. RestartOf names the
// run of the same session this one starts over (from the Console: a fork
// at a run's first node, or a restart on the current version); it is
// absent otherwise, so a run started by start_workflow encodes as before.
// Repo names the repository and commit the workflow was read from, when
// a repository of workflowRepos defined it; absent for every other
// source, so those runs, and every log written before, encode as before.
type RunStartedData struct {
	Repo         RepoPin             `json:"repo,omitzero"`
	WorkflowID   engine.WorkflowID   `json:"workflowId"`
	WorkflowHash engine.WorkflowHash `json:"workflowHash"`
	RestartOf    engine.RunID        `json:"restartOf,omitzero"`
}

// RepoPin is where a run's workflow was read from: a repository's address
// (never with credentials) and the commit, 40 hex digits (64 for a
// SHA-256 repository), whose files were read.
type RepoPin struct {
	URL    string `json:"url"`
	Commit string `json:"commit"`
}

// Short is the commit's first 12 hex digits.
func (p RepoPin) Short() string { return p.Commit[:min(len(p.Commit), 12)] }

// NodeKind is the closed set of node kinds.
type NodeKind string

// Node kinds.
const (
	NodeStep       NodeKind = "step"
	NodeCheckpoint NodeKind = "checkpoint"
)

// NodeKinds lists the node kinds in a fixed order.
func NodeKinds() []NodeKind { return []NodeKind{NodeStep, NodeCheckpoint} }

// NodeCreatedData records a durable snapshot node.
type NodeCreatedData struct {
	NodeKind NodeKind           `json:"nodeKind"`
	Snapshot engine.SnapshotRef `json:"snapshotRef"`
}

// EdgeKind is the closed set of edge kinds.
type EdgeKind string

// Edge kinds.
const (
	EdgeAckedStep        EdgeKind = "acked_step"
	EdgeForkedFromNonTip EdgeKind = "forked_from_non_tip"
	EdgeCheckpoint       EdgeKind = "checkpoint"
)

// EdgeKinds lists the edge kinds in a fixed order.
func EdgeKinds() []EdgeKind { return []EdgeKind{EdgeAckedStep, EdgeForkedFromNonTip, EdgeCheckpoint} }

// EdgeCreatedData links a parent node to a child node. A checkpoint edge
// also records what makes its checkpoint idempotent and its answer
// replayable: the checkpointToken's attempt, and the key the answer's
// tokens were minted with. Other edges leave both out, so they encode as
// before.
type EdgeCreatedData struct {
	EdgeKind EdgeKind       `json:"edgeKind"`
	From     engine.NodeID  `json:"fromNodeId"`
	To       engine.NodeID  `json:"toNodeId"`
	Attempt  engine.Attempt `json:"attempt,omitzero"`
	KeyID    uint32         `json:"keyId,omitzero"`
}

// NodeOutputAppendedData is the one durable write path for notes and
// artifacts. An output is named by its event's id; corrections supersede an
// earlier output by that id, nothing is mutated.
type NodeOutputAppendedData struct {
	// StepID is the step the output reports on.
	StepID        workflow.StepID   `json:"stepId"`
	NotesMarkdown string            `json:"notesMarkdown,omitempty"`
	Artifacts     []json.RawMessage `json:"artifacts,omitempty"`
	Supersedes    engine.EventID    `json:"supersedesOutputId,omitempty"`
}

// PreferencesChangedData stores a preference delta and the effective
// snapshot that applies from this node on.
type PreferencesChangedData struct {
	Delta     workflow.Preferences `json:"delta"`
	Effective workflow.Preferences `json:"effective"`
}

// CapabilityObservedData records an observed capability status.
type CapabilityObservedData struct {
	Capability workflow.Capability `json:"capability"`
	Status     CapabilityStatus    `json:"status"`
	Provenance Provenance          `json:"provenance"`
	Detail     string              `json:"detail,omitempty"`
}

// CapabilityStatus is the closed set of observed capability states.
type CapabilityStatus string

// Capability states.
const (
	CapabilityUnknown     CapabilityStatus = "unknown"
	CapabilityAvailable   CapabilityStatus = "available"
	CapabilityUnavailable CapabilityStatus = "unavailable"
)

// CapabilityStatuses lists the capability states in a fixed order.
func CapabilityStatuses() []CapabilityStatus {
	return []CapabilityStatus{CapabilityUnknown, CapabilityAvailable, CapabilityUnavailable}
}

// Provenance is the closed set of ways a capability was observed. Only
// strong provenance (probe_step, attempted_use) can unlock a required
// capability.
type Provenance string

// Provenances.
const (
	ProbeStep    Provenance = "probe_step"
	AttemptedUse Provenance = "attempted_use"
	ManualClaim  Provenance = "manual_claim"
)

// Provenances lists the provenances, strong first.
func Provenances() []Provenance { return []Provenance{ProbeStep, AttemptedUse, ManualClaim} }

// Strong reports whether p is enforcement-grade.
func (p Provenance) Strong() bool { return p == ProbeStep || p == AttemptedUse }

// GapReason is the closed set of gap reasons.
type GapReason string

// Gap reasons.
const (
	GapUserOnlyDependency GapReason = "user_only_dependency"
	GapAssumptionMade     GapReason = "assumption_made"
	GapCapabilityMissing  GapReason = "capability_missing"
	GapOutputMissing      GapReason = "required_output_missing_or_invalid"
	GapWorkflowDivergence GapReason = "workflow_divergence"
	// A step advanced (full_auto_never_stop) without the notes its
	// workflow requires, with notes its criteria reject, or with an
	// assessment whose consequence asked for a follow-up.
	GapNotesMissing       GapReason = "notes_missing"
	GapNotesCriteriaUnmet GapReason = "notes_criteria_unmet"
	GapAssessmentFollowup GapReason = "assessment_followup_required"
)

// GapReasons lists the gap reasons in a fixed order.
func GapReasons() []GapReason {
	return []GapReason{GapUserOnlyDependency, GapAssumptionMade, GapCapabilityMissing, GapOutputMissing, GapWorkflowDivergence,
		GapNotesMissing, GapNotesCriteriaUnmet, GapAssessmentFollowup}
}

// GapSeverity is the closed set of gap severities.
type GapSeverity string

// Gap severities.
const (
	SeverityWarning  GapSeverity = "warning"
	SeverityCritical GapSeverity = "critical"
)

// GapSeverities lists the gap severities, gravest first.
func GapSeverities() []GapSeverity { return []GapSeverity{SeverityCritical, SeverityWarning} }

// GapRecordedData is an append-only disclosure; a gap is resolved only by a
// later gap record whose ResolvesGapID names it. The gap's id is its
// event's id.
type GapRecordedData struct {
	Reason        GapReason                     `json:"reason"`
	Dependency    workflow.UserDependencyReason `json:"userDependencyReason,omitempty"`
	Severity      GapSeverity                   `json:"severity"`
	Summary       string                        `json:"summary"`
	RelatedStepID workflow.StepID               `json:"relatedStepId,omitempty"`
	HowToResolve  string                        `json:"howToResolve,omitempty"`
	ResolvesGapID engine.EventID                `json:"resolvesGapId,omitempty"`
}

// DivergenceReason is the closed set of reasons an agent deviated.
type DivergenceReason string

// Divergence reasons.
const (
	DivergeUserInstruction   DivergenceReason = "user_instruction"
	DivergeStepNotApplicable DivergenceReason = "step_not_applicable"
	DivergeBetterApproach    DivergenceReason = "better_approach_found"
	DivergeMissingCapability DivergenceReason = "missing_capability"
	DivergeScopeChange       DivergenceReason = "scope_change"
)

// DivergenceReasons lists the divergence reasons in a fixed order.
func DivergenceReasons() []DivergenceReason {
	return []DivergenceReason{DivergeUserInstruction, DivergeStepNotApplicable, DivergeBetterApproach, DivergeMissingCapability, DivergeScopeChange}
}

// DivergenceRecordedData marks an intentional deviation from a step.
type DivergenceRecordedData struct {
	Reason        DivergenceReason `json:"reason"`
	Summary       string           `json:"summary"`
	RelatedStepID workflow.StepID  `json:"relatedStepId,omitempty"`
}

// TraceKind is the closed set of decision trace kinds.
type TraceKind string

// Trace kinds.
const (
	TraceDetectedNonTipAdvance  TraceKind = "detected_non_tip_advance"
	TraceRecommendationExceeded TraceKind = "recommendation_exceeded"
	TraceLoopExitedAtMax        TraceKind = "loop_exited_at_max_iterations"
	TraceSkippedStepRunsLate    TraceKind = "skipped_step_runs_late"
)

// TraceKinds lists the decision trace kinds in a fixed order.
func TraceKinds() []TraceKind {
	return []TraceKind{TraceDetectedNonTipAdvance, TraceRecommendationExceeded, TraceLoopExitedAtMax, TraceSkippedStepRunsLate}
}

// DecisionTraceAppendedData explains a decision; never needed for
// correctness, always bounded.
type DecisionTraceAppendedData struct {
	TraceKind TraceKind `json:"traceKind"`
	Summary   string    `json:"summary"`
}

// Outcome is the closed set of ack attempt outcomes.
type Outcome string

// Outcomes.
const (
	OutcomeAdvanced Outcome = "advanced"
	OutcomeBlocked  Outcome = "blocked"
)

// Outcomes lists the attempt outcomes in a fixed order.
func Outcomes() []Outcome { return []Outcome{OutcomeAdvanced, OutcomeBlocked} }

// SkipReason is the closed set of reasons a step or loop did not run.
type SkipReason string

// Skip reasons.
const (
	ConditionFalse SkipReason = "condition_false"
	LoopNotEntered SkipReason = "loop_not_entered"
)

// SkipReasons lists the skip reasons in a fixed order.
func SkipReasons() []SkipReason { return []SkipReason{ConditionFalse, LoopNotEntered} }

// Skip records a step or loop passed over, and the variables its condition
// read that were not set: the data the seeds' incident lacked.
type Skip struct {
	StepID    workflow.StepID `json:"stepId"`
	Reason    SkipReason      `json:"reason"`
	Condition string          `json:"condition,omitempty"`
	Unset     []string        `json:"unsetVariables,omitempty"`
}

// ExitReason is the closed set of reasons a loop ended.
type ExitReason string

// Loop exit reasons.
const (
	ConditionMet  ExitReason = "condition_met"
	CountDone     ExitReason = "count_done"
	ItemsDone     ExitReason = "items_done"
	StopRequested ExitReason = "stop_requested"
	MaxIterations ExitReason = "max_iterations"
)

// ExitReasons lists the loop exit reasons in a fixed order.
func ExitReasons() []ExitReason {
	return []ExitReason{ConditionMet, CountDone, ItemsDone, StopRequested, MaxIterations}
}

// LoopExit records a loop that ended during a move.
type LoopExit struct {
	LoopID     workflow.StepID `json:"loopId"`
	Reason     ExitReason      `json:"reason"`
	Iterations int             `json:"iterations"`
}

// AdvanceRecordedData is the durable record of one ack attempt and its
// outcome. Replays of the same attempt are answered from it alone.
type AdvanceRecordedData struct {
	Attempt engine.Attempt `json:"attempt"`
	// KeyID is the token key that signed the response, so a replay re-mints
	// byte-identical tokens after a key rotation.
	KeyID   uint32        `json:"keyId"`
	Outcome Outcome       `json:"outcome"`
	ToNode  engine.NodeID `json:"toNodeId,omitzero"`
	// What the move passed over and which loops ended on the way.
	Skipped   []Skip     `json:"skipped,omitempty"`
	LoopExits []LoopExit `json:"loopExits,omitempty"`
	// Notices are the warnings the response carried, kept so a replay
	// answers with them too.
	Notices []Notice `json:"notices,omitempty"`
	// Fork is set when this attempt advanced a node that already had
	// children: what the agent's rewound chat had lost, as it stood then.
	Fork *Fork `json:"fork,omitempty"`
	// Blockers are set when the outcome is blocked.
	Blockers []Blocker `json:"blockers,omitempty"`
}

// BlockerCode is the closed set of blocker codes.
type BlockerCode string

// Blocker codes.
const (
	BlockUserOnlyDependency            BlockerCode = "USER_ONLY_DEPENDENCY"
	BlockMissingRequiredOutput         BlockerCode = "MISSING_REQUIRED_OUTPUT"
	BlockInvalidRequiredOutput         BlockerCode = "INVALID_REQUIRED_OUTPUT"
	BlockRequiredCapabilityUnknown     BlockerCode = "REQUIRED_CAPABILITY_UNKNOWN"
	BlockRequiredCapabilityUnavailable BlockerCode = "REQUIRED_CAPABILITY_UNAVAILABLE"
	BlockInvariantViolation            BlockerCode = "INVARIANT_VIOLATION"
	BlockStorageCorruptionDetected     BlockerCode = "STORAGE_CORRUPTION_DETECTED"
	BlockMissingRequiredNotes          BlockerCode = "MISSING_REQUIRED_NOTES"
	BlockNotesCriteriaUnmet            BlockerCode = "NOTES_CRITERIA_UNMET"
	BlockAssessmentFollowupRequired    BlockerCode = "ASSESSMENT_FOLLOWUP_REQUIRED"
)

// PointerKind is the closed set of things a blocker points at.
type PointerKind string

// Pointer kinds.
const (
	PointContextKey     PointerKind = "context_key"
	PointOutputContract PointerKind = "output_contract"
	PointCapability     PointerKind = "capability"
	PointWorkflowStep   PointerKind = "workflow_step"
)

// PointerKinds lists the pointer kinds in a fixed order.
func PointerKinds() []PointerKind {
	return []PointerKind{PointContextKey, PointOutputContract, PointCapability, PointWorkflowStep}
}

// Pointer says what a blocker is about; exactly the field of its kind is set.
type Pointer struct {
	Kind        PointerKind          `json:"kind"`
	Key         string               `json:"key,omitempty"`
	ContractRef workflow.ContractRef `json:"contractRef,omitempty"`
	Capability  workflow.Capability  `json:"capability,omitempty"`
	StepID      workflow.StepID      `json:"stepId,omitempty"`
}

// Blocker is one reason execution cannot advance in the effective mode.
type Blocker struct {
	Code         BlockerCode `json:"code"`
	Pointer      Pointer     `json:"pointer"`
	Message      string      `json:"message"`
	SuggestedFix string      `json:"suggestedFix,omitempty"`
}

// Fork is the bounded picture of the branches that existed when a rewound
// chat advanced again from the same node.
type Fork struct {
	Siblings   []Branch `json:"siblings"`
	Omitted    int      `json:"omittedSiblings,omitzero"`
	Downstream Recap    `json:"downstream"`
}

// Branch summarises one existing child branch.
type Branch struct {
	Node    engine.NodeID   `json:"nodeId"`
	StepID  workflow.StepID `json:"stepId,omitempty"` // pending at the branch's tip; empty when complete
	Depth   int             `json:"depth"`            // nodes from the fork point to the tip
	Summary string          `json:"summary,omitempty"`
}

// Recap is durable notes in order, within a byte budget. When entries did
// not fit, Omitted says how many of the oldest were left out.
type Recap struct {
	Entries []RecapEntry `json:"entries"`
	Omitted int          `json:"omitted,omitzero"`
	Policy  string       `json:"policy,omitempty"` // "kept_most_recent" when Omitted > 0
}

// RecapEntry is one step's notes.
type RecapEntry struct {
	Node          engine.NodeID   `json:"nodeId"`
	StepID        workflow.StepID `json:"stepId"`
	NotesMarkdown string          `json:"notesMarkdown"`
	Artifacts     []string        `json:"artifactKinds,omitempty"`
}

// Notice is a structured warning as recorded.
type Notice struct {
	Code    NoticeCode `json:"code"`
	Message string     `json:"message"`
	// Secrets names, for SECRET_REDACTED, the fields in which secrets
	// were replaced by markers (never the secrets). Absent otherwise, so
	// every older notice encodes as before.
	Secrets []RedactedField `json:"secrets,omitempty"`
}

// RedactedField is one field of a call in which secrets were replaced:
// its JSON pointer in the call's arguments and the ids of the rules that
// matched there.
type RedactedField struct {
	Pointer string   `json:"pointer"`
	Rules   []string `json:"rules"`
}

func (*SessionCreatedData) Kind() Kind        { return SessionCreated }
func (*ObservationRecordedData) Kind() Kind   { return ObservationRecorded }
func (*RunStartedData) Kind() Kind            { return RunStarted }
func (*NodeCreatedData) Kind() Kind           { return NodeCreated }
func (*EdgeCreatedData) Kind() Kind           { return EdgeCreated }
func (*NodeOutputAppendedData) Kind() Kind    { return NodeOutputAppended }
func (*PreferencesChangedData) Kind() Kind    { return PreferencesChanged }
func (*CapabilityObservedData) Kind() Kind    { return CapabilityObserved }
func (*GapRecordedData) Kind() Kind           { return GapRecorded }
func (*DivergenceRecordedData) Kind() Kind    { return DivergenceRecorded }
func (*DecisionTraceAppendedData) Kind() Kind { return DecisionTraceAppended }
func (*AdvanceRecordedData) Kind() Kind       { return AdvanceRecorded }
