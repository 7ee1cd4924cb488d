package event

import (
	"encoding/json"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/workflow"
)

// SessionCreatedData opens a session. CreatedAt is informational only (never
// used for ordering).
type SessionCreatedData struct {
	CreatedAt     string `json:"createdAt"`
	WorkspacePath string `json:"workspacePath,omitempty"`
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
)

// RunStartedData pins a run to one compiled workflow.
type RunStartedData struct {
	WorkflowID   engine.WorkflowID   `json:"workflowId"`
	WorkflowHash engine.WorkflowHash `json:"workflowHash"`
}

// NodeKind is the closed set of node kinds.
type NodeKind string

// Node kinds.
const (
	NodeStep       NodeKind = "step"
	NodeCheckpoint NodeKind = "checkpoint"
)

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

// EdgeCreatedData links a parent node to a child node.
type EdgeCreatedData struct {
	EdgeKind EdgeKind      `json:"edgeKind"`
	From     engine.NodeID `json:"fromNodeId"`
	To       engine.NodeID `json:"toNodeId"`
}

// NodeOutputAppendedData is the one durable write path for notes and
// artifacts. An output is named by its event's id; corrections supersede an
// earlier output by that id, nothing is mutated.
type NodeOutputAppendedData struct {
	NotesMarkdown string            `json:"notesMarkdown,omitempty"`
	Artifacts     []json.RawMessage `json:"artifacts,omitempty"`
	Supersedes    engine.EventID    `json:"supersedesOutputId,omitempty"`
}

// PreferencesChangedData stores a preference delta and the effective
// snapshot that applies from this node on.
type PreferencesChangedData struct {
	Delta     map[string]string `json:"delta"`
	Effective map[string]string `json:"effective"`
}

// CapabilityObservedData records an observed capability status.
type CapabilityObservedData struct {
	Capability string `json:"capability"`
	Status     string `json:"status"`
	Provenance string `json:"provenance"`
}

// GapRecordedData is an append-only disclosure; resolution is linkage.
type GapRecordedData struct {
	GapID         string `json:"gapId"`
	Reason        string `json:"reason"`
	Severity      string `json:"severity"`
	Summary       string `json:"summary"`
	RelatedStepID string `json:"relatedStepId,omitempty"`
	HowToResolve  string `json:"howToResolve,omitempty"`
	ResolvesGapID string `json:"resolvesGapId,omitempty"`
}

// DivergenceRecordedData marks an intentional deviation from a step.
type DivergenceRecordedData struct {
	Reason        string `json:"reason"`
	Summary       string `json:"summary"`
	RelatedStepID string `json:"relatedStepId,omitempty"`
}

// TraceKind is the closed set of decision trace kinds.
type TraceKind string

// Trace kinds.
const (
	TraceDetectedNonTipAdvance TraceKind = "detected_non_tip_advance"
)

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

// SkipReason is the closed set of reasons a step or loop did not run.
type SkipReason string

// Skip reasons.
const (
	ConditionFalse SkipReason = "condition_false"
	LoopNotEntered SkipReason = "loop_not_entered"
)

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
}

// Notice is a structured warning as recorded.
type Notice struct {
	Code    string `json:"code"`
	Message string `json:"message"`
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
