package server

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/workrail/workrail/engine/protocol"
)

// Tools is what the MCP handlers call: the use cases, one per tool, each
// taking the raw arguments and answering with a result.
type Tools interface {
	List(raw []byte) protocol.Result
	Inspect(raw []byte) protocol.Result
	Start(raw []byte) protocol.Result
	Continue(raw []byte) protocol.Result
}

// NewMCPServer builds the MCP server whose tools run on t: each handler
// decodes nothing itself, calls the use case with the raw arguments and
// encodes its result.
func NewMCPServer(t Tools, version string) *mcpserver.MCPServer {
	s := mcpserver.NewMCPServer("workrail", version, mcpserver.WithToolCapabilities(false), mcpserver.WithRecovery())
	run := map[protocol.ToolName]func([]byte) protocol.Result{
		protocol.ToolList: t.List, protocol.ToolInspect: t.Inspect, protocol.ToolStart: t.Start, protocol.ToolContinue: t.Continue,
	}
	for _, spec := range protocol.Tools() {
		call := run[spec.Name]
		s.AddTool(tool(spec), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return toolResult(call(rawArgs(req))), nil
		})
	}
	return s
}

// tool declares a tool with its hand-written input schema (mcp.NewTool
// would also set a generated one, and a tool may carry only one).
func tool(spec protocol.Tool) mcp.Tool {
	t := mcp.NewToolWithRawSchema(string(spec.Name), spec.Description, spec.Input)
	for _, o := range []mcp.ToolOption{
		mcp.WithRawOutputSchema(spec.Output), mcp.WithReadOnlyHintAnnotation(spec.ReadOnly),
		mcp.WithIdempotentHintAnnotation(spec.Idempotent), mcp.WithDestructiveHintAnnotation(false),
		mcp.WithOpenWorldHintAnnotation(false),
	} {
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
