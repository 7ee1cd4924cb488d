package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
)

// Tool descriptions cost every chat context: keep them short and exact.
const (
	descList = "List the workflows WorkRail can run. Pick one, then call start_workflow with its id."

	descInspect = "Show one workflow before starting it: its inputs and step outline (mode metadata), or also every step's prompt (mode preview). Read-only."

	descStart = "Start a workflow run. Returns the first pending step: do what it says, then call continue_workflow with the arguments in nextCall. " +
		"context is only for external inputs the workflow declares (see inspect_workflow); mode picks how autonomous you may be."

	descContinue = "Advance or resume a run. Send the stateToken and ackToken of the last response unchanged (nextCall has them) " +
		"with your notes in output.notesMarkdown and any artifacts the step asks for: the step is recorded and the next one returned. " +
		"kind blocked: nothing advanced; fix what blockers say and send its nextCall. Without ackToken it only re-reads the pending step " +
		"(after losing context). Repeat until kind is complete. Never invent or edit tokens."
)

const prefsSchema = `{"type":"object","additionalProperties":false,"properties":{
  "autonomy":{"enum":["guided","full_auto_stop_on_user_deps","full_auto_never_stop"]},
  "riskPolicy":{"enum":["conservative","balanced","aggressive"]}}}`

var startSchema = json.RawMessage(`{"type":"object","additionalProperties":false,"required":["workflowId"],"properties":{
"workflowId":{"type":"string","description":"id from list_workflows, e.g. wr.hello"},
"context":{"type":"object","description":"external inputs that conditions and loops read (not notes)"},
"mode":{"enum":["wr.modes.guided","wr.modes.full_auto_stop_on_user_deps","wr.modes.full_auto_never_stop"],"description":"a preset; or send preferences, not both"},
"preferences":` + prefsSchema + `,
"workspacePath":{"type":"string","description":"absolute path of the workspace the agent works in"}}}`)

var continueSchema = json.RawMessage(`{"type":"object","additionalProperties":false,"required":["stateToken"],"properties":{
"stateToken":{"type":"string","description":"stateToken from the last response, unchanged"},
"ackToken":{"type":"string","description":"ackToken from the same response; omit to re-read the pending step"},
"context":{"type":"object","description":"external inputs that conditions and loops read (not notes)"},
"output":{"type":"object","additionalProperties":false,"properties":{
  "notesMarkdown":{"type":"string","description":"1-10 lines: what you did and found in this step"},
  "artifacts":{"type":"array","items":{"type":"object"},"description":"structured results; the step says which kinds it needs"},
  "resolvesGaps":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["gapId","summary"],
    "properties":{"gapId":{"type":"string"},"summary":{"type":"string"}}}}}},
"preferences":` + prefsSchema + `,
"workspacePath":{"type":"string","description":"absolute path of the workspace the agent works in"}}}`)

var inspectSchema = json.RawMessage(`{"type":"object","additionalProperties":false,"required":["workflowId"],"properties":{
"workflowId":{"type":"string","description":"id from list_workflows"},
"mode":{"enum":["metadata","preview"],"description":"preview adds each step's prompt; default metadata"},
"workspacePath":{"type":"string","description":"absolute path of the workspace; adds its .workrail/workflows"}}}`)

var listSchema = json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{
"workspacePath":{"type":"string","description":"absolute path of the workspace; adds its .workrail/workflows"}}}`)

// NewMCPServer builds the MCP server whose tools run on x.
func NewMCPServer(x *Executor, version string) *mcpserver.MCPServer {
	s := mcpserver.NewMCPServer("workrail", version, mcpserver.WithToolCapabilities(false), mcpserver.WithRecovery())
	s.AddTool(tool("list_workflows", descList, listSchema,
		mcp.WithRawOutputSchema(listResultSchema), mcp.WithReadOnlyHintAnnotation(true), mcp.WithIdempotentHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false), mcp.WithOpenWorldHintAnnotation(false)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return toolResult(x.List(rawArgs(req))), nil
		})
	s.AddTool(tool("inspect_workflow", descInspect, inspectSchema,
		mcp.WithRawOutputSchema(inspectResultSchema), mcp.WithReadOnlyHintAnnotation(true), mcp.WithIdempotentHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false), mcp.WithOpenWorldHintAnnotation(false)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return toolResult(x.Inspect(rawArgs(req))), nil
		})
	s.AddTool(tool("start_workflow", descStart, startSchema,
		mcp.WithRawOutputSchema(resultSchema), mcp.WithReadOnlyHintAnnotation(false), mcp.WithIdempotentHintAnnotation(false),
		mcp.WithDestructiveHintAnnotation(false), mcp.WithOpenWorldHintAnnotation(false)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return toolResult(x.Start(rawArgs(req))), nil
		})
	s.AddTool(tool("continue_workflow", descContinue, continueSchema,
		mcp.WithRawOutputSchema(resultSchema), mcp.WithReadOnlyHintAnnotation(false), mcp.WithIdempotentHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false), mcp.WithOpenWorldHintAnnotation(false)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return toolResult(x.Continue(rawArgs(req))), nil
		})
	return s
}

// tool declares a tool with a hand-written input schema (mcp.NewTool would
// also set a generated one, and a tool may carry only one).
func tool(name, desc string, input json.RawMessage, opts ...mcp.ToolOption) mcp.Tool {
	t := mcp.NewToolWithRawSchema(name, desc, input)
	for _, o := range opts {
		o(&t)
	}
	return t
}

func rawArgs(req mcp.CallToolRequest) []byte {
	if len(req.Params.RawArguments) > 0 {
		return req.Params.RawArguments
	}
	if req.Params.Arguments == nil {
		return nil
	}
	b, _ := json.Marshal(req.Params.Arguments)
	return b
}

// toolResult carries the full text both as content[0].text and as
// structuredContent.text: some clients hand the model only one of them.
func toolResult(r protocol.Result) *mcp.CallToolResult {
	res := mcp.NewToolResultStructured(r, r.RenderedText())
	res.IsError = r.ResultKind() == protocol.KindError
	return res
}

// WorkflowSummary is one row of list_workflows.
type WorkflowSummary struct {
	ID          engine.WorkflowID `json:"id"`
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Version     string            `json:"version"`
	Kind        workflow.Kind     `json:"kind"`
	IDStatus    workflow.IDStatus `json:"idStatus"`
	Source      Source            `json:"source"`
	Warnings    []Notice          `json:"warnings,omitempty"`
}

// ListResult is list_workflows' result.
type ListResult struct {
	Kind      string            `json:"kind"`
	Text      string            `json:"text"`
	Workflows []WorkflowSummary `json:"workflows"`
	Shadowed  []Shadow          `json:"shadowed,omitempty"`
	Problems  []LoadProblem     `json:"problems,omitempty"`
}

// ResultKind implements protocol.Result for the discovery listing.
func (ListResult) ResultKind() protocol.Kind { return "workflows" }

// RenderedText implements protocol.Result.
func (l ListResult) RenderedText() string { return l.Text }

// List answers list_workflows.
func (x *Executor) List(raw []byte) protocol.Result {
	in, e := protocol.ParseList(raw)
	if e != nil {
		return badArguments("list_workflows", raw, e)
	}
	cat := x.workflows.Catalog(in.WorkspacePath)
	out := ListResult{Kind: "workflows", Workflows: []WorkflowSummary{}, Shadowed: cat.Shadowed, Problems: cat.Problems}
	var b strings.Builder
	b.WriteString("# Workflows\n\n")
	for _, e := range cat.All() {
		c := e.Compiled
		out.Workflows = append(out.Workflows, WorkflowSummary{ID: c.ID, Name: c.Name, Description: c.Description,
			Version: c.Version, Kind: c.Kind, IDStatus: e.IDStatus, Source: e.Source, Warnings: e.Warnings})
		fmt.Fprintf(&b, "- %s (%s): %s. %s\n", c.ID, c.Kind, c.Name, c.Description)
		for _, w := range e.Warnings {
			fmt.Fprintf(&b, "  warning %s: %s\n", w.Code, w.Message)
		}
	}
	for _, sh := range cat.Shadowed {
		fmt.Fprintf(&b, "\nNote: %s from %s (%s) is shadowed by the %s one.\n", sh.ID, sh.Shadowed.Kind, sh.File, sh.Winner.Kind)
	}
	for _, p := range cat.Problems {
		fmt.Fprintf(&b, "\nNot loaded: %s: %s\n", p.File, p.Problems[0])
	}
	b.WriteString("\nTo begin, call start_workflow with {\"workflowId\": \"<id>\"}.\n")
	out.Text = b.String()
	return out
}
