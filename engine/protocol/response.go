// Package protocol owns the agent-facing contract of every tool: the tool
// list with descriptions and input and output schemas, the request shapes
// and their strict boundary parsing, the closed set of result kinds, and
// all text an agent reads (steps, blocked, complete, errors — the shim's
// DAEMON_UNAVAILABLE included — workflow lists and outlines). It is pure:
// callers pass in tokens, snapshots and compiled workflows.
package protocol

import (
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/fill"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// Kind is the closed set of result kinds every tool answers with.
type Kind string

// Result kinds: the execution union (step, blocked, complete, error),
// the discovery results of list_workflows and inspect_workflow, and
// resume_session's candidates.
const (
	KindStep       Kind = "step"
	KindBlocked    Kind = "blocked"
	KindComplete   Kind = "complete"
	KindError      Kind = "error"
	KindWorkflows  Kind = "workflows"
	KindWorkflow   Kind = "workflow"
	KindCandidates Kind = "candidates"
)

// Result is one tool result. Exactly one concrete type per Kind, so
// no field is ever a null that stands for a state.
type Result interface {
	ResultKind() Kind
	// RenderedText is the full text rendering, identical to the "text" field.
	RenderedText() string
}

// Pending is the step the agent must do now.
type Pending struct {
	StepID              workflow.StepID          `json:"stepId"`
	Title               string                   `json:"title"`
	Prompt              string                   `json:"prompt"`
	RequireConfirmation bool                     `json:"requireConfirmation"`
	Loops               []run.LoopPlace          `json:"loops,omitempty"`
	UserDependency      *workflow.UserDependency `json:"userDependency,omitempty"`
}

// SessionRef is informational: correctness is driven by tokens.
type SessionRef struct {
	SessionID engine.SessionID `json:"sessionId"`
	RunID     engine.RunID     `json:"runId"`
}

// WorkflowRef names the pinned workflow a run executes.
type WorkflowRef struct {
	ID   engine.WorkflowID   `json:"workflowId"`
	Name string              `json:"name"`
	Hash engine.WorkflowHash `json:"workflowHash"`
}

// NextCall is the exact call to make next, tokens filled in.
type NextCall struct {
	Tool      string       `json:"tool"`
	Arguments ContinueArgs `json:"arguments"`
}

// ContinueArgs are the arguments of a continue_workflow call as WorkRail
// suggests them.
type ContinueArgs struct {
	StateToken string  `json:"stateToken"`
	AckToken   string  `json:"ackToken,omitempty"`
	Output     *Output `json:"output,omitempty"`
}

// Rehydrate is the call that re-reads the pending step at stateToken: it
// writes nothing and hands out a fresh ackToken for that step.
func Rehydrate(stateToken string) NextCall {
	return NextCall{Tool: string(ToolContinue), Arguments: ContinueArgs{StateToken: stateToken}}
}

// Warning is a structured, non-fatal notice. The notices an attempt
// recorded (in advance_recorded) are shown as they were recorded, so a
// replay shows exactly what was recorded; a warning only an answer adds,
// never recorded, may carry the call that acts on it.
type Warning struct {
	Code     event.NoticeCode `json:"code"`
	Message  string           `json:"message"`
	NextCall *NextCall        `json:"nextCall,omitempty"`
	// Secrets: where secrets were replaced (SECRET_REDACTED only).
	Secrets []event.RedactedField `json:"secrets,omitempty"`
}

// Warnings shows recorded notices as warnings.
func Warnings(ns []event.Notice) []Warning {
	var ws []Warning
	for _, n := range ns {
		ws = append(ws, Warning{Code: n.Code, Message: n.Message, Secrets: n.Secrets})
	}
	return ws
}

// Notices are warnings as an attempt records them: code and message. A
// warning that carries a call is its answer's own and never recorded (the
// call's tokens belong to that answer, not the log).
func Notices(ws []Warning) []event.Notice {
	var ns []event.Notice
	for _, w := range ws {
		ns = append(ns, event.Notice{Code: w.Code, Message: w.Message, Secrets: w.Secrets})
	}
	return ns
}

// StepResult asks the agent to do the pending step.
type StepResult struct {
	Kind            Kind                 `json:"kind"`
	Text            string               `json:"text"`
	Pending         Pending              `json:"pending"`
	StateToken      string               `json:"stateToken"`
	AckToken        string               `json:"ackToken"`
	CheckpointToken string               `json:"checkpointToken"`
	IsComplete      bool                 `json:"isComplete"`
	Session         SessionRef           `json:"session"`
	Workflow        WorkflowRef          `json:"workflow"`
	Progress        Progress             `json:"progress"`
	Preferences     workflow.Preferences `json:"preferences"`
	Gaps            []Gap                `json:"gapsRecorded,omitempty"`
	Recap           *project.PathRecap   `json:"recap,omitempty"`
	Fork            *event.Fork          `json:"fork,omitempty"`
	Skipped         []event.Skip         `json:"skipped,omitempty"`
	// Checkpoint is set on checkpoint_workflow's answer: the node that
	// recorded the notes, which this step is rendered at.
	Checkpoint *Checkpointed `json:"checkpoint,omitempty"`
	NextCall   NextCall      `json:"nextCall"`
	// Fills lists every <<fill: …>> marker of NextCall: where, what
	// belongs there, whether the step needs it, and its options.
	Fills    []fill.Slot `json:"fills"`
	Warnings []Warning   `json:"warnings"`
	// Rules (the workflow's metaGuidance) and References: at start and
	// on rehydrate, when the workflow has them.
	Rules      []string    `json:"workflowRules,omitempty"`
	References []Reference `json:"references,omitempty"`
	// ConsoleURL is the run's page in the Console, set by the transport
	// that knows where the Console listens (WithConsoleLink).
	ConsoleURL string `json:"consoleUrl,omitempty"`
}

// Progress says which top-level part of the workflow the pending step is
// in (loops and conditions make a step count meaningless).
type Progress struct {
	Part  int `json:"part"`
	Parts int `json:"parts"`
}

// CompleteResult says the run has nothing left to do.
type CompleteResult struct {
	Kind        Kind                 `json:"kind"`
	Text        string               `json:"text"`
	StateToken  string               `json:"stateToken"`
	IsComplete  bool                 `json:"isComplete"`
	Session     SessionRef           `json:"session"`
	Workflow    WorkflowRef          `json:"workflow"`
	Preferences workflow.Preferences `json:"preferences"`
	Gaps        []Gap                `json:"gapsRecorded,omitempty"`
	// OpenGaps are the gaps the run's path leaves open, worst first, at
	// most MaxOpenGaps; OpenGapCount counts them all.
	OpenGaps     []OpenGap    `json:"openGaps,omitempty"`
	OpenGapCount int          `json:"openGapCount"`
	Skipped      []event.Skip `json:"skipped,omitempty"`
	Warnings     []Warning    `json:"warnings"`
	ConsoleURL   string       `json:"consoleUrl,omitempty"` // as StepResult's
}

// OpenGap is a gap a complete answer names: the gap, and the title of
// the step it is about.
type OpenGap struct {
	Gap
	StepTitle string `json:"stepTitle,omitempty"`
}

// BlockedResult says the pending step cannot advance in the effective mode
// until the blockers are fixed. The pending step and state are unchanged;
// the ackToken is a fresh attempt for the retry.
type BlockedResult struct {
	Kind            Kind                 `json:"kind"`
	Text            string               `json:"text"`
	Blockers        []event.Blocker      `json:"blockers"`
	Pending         Pending              `json:"pending"`
	StateToken      string               `json:"stateToken"`
	AckToken        string               `json:"ackToken"`
	CheckpointToken string               `json:"checkpointToken"`
	IsComplete      bool                 `json:"isComplete"`
	Session         SessionRef           `json:"session"`
	Workflow        WorkflowRef          `json:"workflow"`
	Preferences     workflow.Preferences `json:"preferences"`
	NextCall        NextCall             `json:"nextCall"`
	Fills           []fill.Slot          `json:"fills"` // as StepResult's
	Warnings        []Warning            `json:"warnings"`
	ConsoleURL      string               `json:"consoleUrl,omitempty"` // as StepResult's
}

// Gap is a gap recorded by an advance, as shown to the agent.
type Gap struct {
	GapID               engine.EventID    `json:"gapId"`
	CreatedAtEventIndex engine.EventIndex `json:"createdAtEventIndex"`
	event.GapRecordedData
}

// ResultKind implements Result.
func (r BlockedResult) ResultKind() Kind { return KindBlocked }

// RenderedText implements Result.
func (r BlockedResult) RenderedText() string { return r.Text }

// ErrorResult is an expected failure, as data.
type ErrorResult struct {
	Kind  Kind          `json:"kind"`
	Text  string        `json:"text"`
	Error *engine.Error `json:"error"`
	// NextCall is the call that fixes the error, when WorkRail knows it.
	NextCall *Call `json:"nextCall,omitempty"`
	// About is the session the failed call was about, when its stateToken
	// verified (0 otherwise): the daemon's log names it, so the Console's
	// recent errors link it. Never sent to the agent.
	About engine.SessionID `json:"-"`
}

// ResultKind implements Result.
func (r StepResult) ResultKind() Kind { return KindStep }

// ResultKind implements Result.
func (r CompleteResult) ResultKind() Kind { return KindComplete }

// ResultKind implements Result.
func (r ErrorResult) ResultKind() Kind { return KindError }

// RenderedText implements Result.
func (r StepResult) RenderedText() string { return r.Text }

// RenderedText implements Result.
func (r CompleteResult) RenderedText() string { return r.Text }

// RenderedText implements Result.
func (r ErrorResult) RenderedText() string { return r.Text }
