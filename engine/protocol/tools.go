package protocol

import (
	"encoding/json"

	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/workflow"
)

// ToolName is the closed set of tools WorkRail serves.
type ToolName string

// The tools.
const (
	ToolList     ToolName = "list_workflows"
	ToolInspect  ToolName = "inspect_workflow"
	ToolStart    ToolName = "start_workflow"
	ToolContinue ToolName = "continue_workflow"
	// Gated by Features: listed and served only when their flag is on.
	ToolCheckpoint   ToolName = "checkpoint_workflow"
	ToolStartSession ToolName = "start_session"
	ToolResume       ToolName = "resume_session"
)

// Features are the flags that gate tools (config.json's features.*): a
// gated tool is listed, and served, only when its flag is on.
type Features struct {
	CheckpointWorkflow bool
	ResumeSession      bool
	StartSession       bool
}

// Tool is one tool as an MCP client sees it: what it is for, the
// arguments it takes and the results it returns.
type Tool struct {
	Name        ToolName
	Description string
	Input       json.RawMessage
	Output      json.RawMessage
	ReadOnly    bool
	Idempotent  bool
}

// Tool descriptions cost every chat context: keep them short and exact.
const (
	descList = "List the workflows WorkRail can run. Pick one, then call start_workflow with its id."

	descInspect = "Show one workflow before starting it: its inputs and step outline (mode metadata), or also every step's prompt (mode preview). Read-only."

	descStart = "Start a workflow run. Returns the first pending step: do what it says, then call continue_workflow with the arguments in nextCall. " +
		"context is only for external inputs the workflow declares (see inspect_workflow); mode picks how autonomous you may be. " +
		"To start it in the session of a run you hold, for the same work, send that run's stateToken."

	descContinue = "Advance or resume a run. Send the stateToken and ackToken of the last response unchanged (nextCall has them) " +
		"with your notes in output.notesMarkdown and any artifacts the step asks for: the step is recorded and the next one returned. " +
		"kind blocked: nothing advanced; fix what blockers say and send its nextCall. Without ackToken it only re-reads the pending step " +
		"(after losing context). Repeat until kind is complete. Never invent or edit tokens."

	descCheckpoint = "Save progress without advancing: send the stateToken and checkpointToken of the last response unchanged with a short recap " +
		"in output.notesMarkdown. Use it after substantial work between steps, so a rewind or a new chat loses nothing. " +
		"The same pending step comes back with fresh tokens: carry on with those."

	descStartSession = "Start a session for notes when no workflow fits the work: returns a step whose tokens checkpoint_workflow takes. " +
		"Record a recap with checkpoint_workflow after substantial work; finish with continue_workflow."

	descResume = "Find the work to pick up in a new chat, by words from it (query), git branch, HEAD commit or workspacePath. Read-only. " +
		"Each candidate carries a stateToken for its run's latest step: call continue_workflow with it (its nextCall) to carry on."
)

// Tools lists the tools f turns on, in the order tools/list shows them.
func Tools(f Features) []Tool {
	exec := union("step", "blocked", "complete", "error")
	tools := []Tool{
		{Name: ToolList, Description: descList, Input: listSchema, Output: union("workflows", "error"), ReadOnly: true, Idempotent: true},
		{Name: ToolInspect, Description: descInspect, Input: inspectSchema, Output: union("inspection", "error"), ReadOnly: true, Idempotent: true},
		{Name: ToolStart, Description: descStart, Input: startSchema(), Output: exec},
		{Name: ToolContinue, Description: descContinue, Input: continueSchema(), Output: exec, Idempotent: true},
	}
	if f.CheckpointWorkflow {
		tools = append(tools, Tool{Name: ToolCheckpoint, Description: descCheckpoint, Input: checkpointSchema, Output: union("step", "error"), Idempotent: true})
	}
	if f.StartSession {
		tools = append(tools, Tool{Name: ToolStartSession, Description: descStartSession, Input: startSessionSchema, Output: union("step", "error")})
	}
	if f.ResumeSession {
		tools = append(tools, Tool{Name: ToolResume, Description: descResume, Input: resumeSchema, Output: union("candidates", "error"), ReadOnly: true, Idempotent: true})
	}
	return tools
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic("protocol: schema: " + err.Error())
	}
	return string(b)
}

func prefsSchema() string {
	return `{"type":"object","additionalProperties":false,"properties":{
  "autonomy":{"enum":` + mustJSON(workflow.Autonomies()) + `},
  "riskPolicy":{"enum":` + mustJSON(workflow.RiskPolicies()) + `}}}`
}

func startSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","additionalProperties":false,"required":["workflowId"],"properties":{
"workflowId":{"type":"string","description":"id from list_workflows, e.g. wr.hello"},
"context":{"type":"object","description":"external inputs that conditions and loops read (not notes)"},
"mode":{"enum":` + mustJSON(outcome.Modes()) + `,"description":"a preset; or send preferences, not both"},
"preferences":` + prefsSchema() + `,
"workspacePath":{"type":"string","description":"absolute path of the workspace the agent works in"},
"stateToken":{"type":"string","description":"optional: a run's stateToken, to start in its session"}}}`)
}

func continueSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","additionalProperties":false,"required":["stateToken"],"properties":{
"stateToken":{"type":"string","description":"stateToken from the last response, unchanged"},
"ackToken":{"type":"string","description":"ackToken from the same response; omit to re-read the pending step"},
"context":{"type":"object","description":"external inputs that conditions and loops read (not notes)"},
"output":{"type":"object","additionalProperties":false,"properties":{
  "notesMarkdown":{"type":"string","description":"1-10 lines: what you did and found in this step"},
  "artifacts":{"type":"array","items":{"type":"object"},"description":"structured results; the step says which kinds it needs"},
  "resolvesGaps":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["gapId","summary"],
    "properties":{"gapId":{"type":"string"},"summary":{"type":"string"}}}},
  "supersedesOutputId":` + supersedesSchema + `}},
"preferences":` + prefsSchema() + `,
"workspacePath":{"type":"string","description":"absolute path of the workspace the agent works in"}}}`)
}

var checkpointSchema = json.RawMessage(`{"type":"object","additionalProperties":false,"required":["stateToken","checkpointToken","output"],"properties":{
"stateToken":{"type":"string","description":"stateToken from the last response, unchanged"},
"checkpointToken":{"type":"string","description":"checkpointToken from the same response, unchanged"},
"output":{"type":"object","additionalProperties":false,"required":["notesMarkdown"],"properties":{
  "notesMarkdown":{"type":"string","description":"1-10 lines: what you did and found since the last response"},
  "supersedesOutputId":` + supersedesSchema + `}}}}`)

// supersedesSchema is output.supersedesOutputId, which both writing
// tools take.
const supersedesSchema = `{"type":"string","description":"id (from the recap) of an earlier output this one corrects"}`

var startSessionSchema = json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{
"workspacePath":{"type":"string","description":"absolute path of the workspace the agent works in"}}}`)

var resumeSchema = json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{
"query":{"type":"string","description":"words from the work, e.g. \"auth bug\": every word must be in a run's notes (or its workflow id or name)"},
"gitBranch":{"type":"string","description":"the git branch checked out: sessions on it, or on branches starting with it, first"},
"gitHeadSha":{"type":"string","description":"the full sha of HEAD: sessions last seen at that commit first"},
"workspacePath":{"type":"string","description":"absolute path of the workspace: sessions of its repository first"}}}`)

var inspectSchema = json.RawMessage(`{"type":"object","additionalProperties":false,"required":["workflowId"],"properties":{
"workflowId":{"type":"string","description":"id from list_workflows"},
"mode":{"enum":["metadata","preview"],"description":"preview adds each step's prompt; default metadata"},
"workspacePath":{"type":"string","description":"absolute path of the workspace; adds its .workrail/workflows"},
"stateToken":{"type":"string","description":"a run's stateToken: show the version that run is pinned to"}}}`)

var listSchema = json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{
"workspacePath":{"type":"string","description":"absolute path of the workspace; adds its .workrail/workflows"}}}`)
