package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/server/home"
)

// Tools is what the MCP handlers call: the use cases, one per tool, each
// taking the call's context (it ends when the client goes away) and the
// raw arguments, and answering with a result.
type Tools interface {
	List(ctx context.Context, raw []byte) protocol.Result
	Inspect(ctx context.Context, raw []byte) protocol.Result
	// StartFrom and StartSessionFrom also take the folder the client runs
	// in (a shim's working folder; empty over plain HTTP).
	StartFrom(ctx context.Context, raw []byte, workdir string) protocol.Result
	Continue(ctx context.Context, raw []byte) protocol.Result
	Checkpoint(ctx context.Context, raw []byte) protocol.Result
	StartSessionFrom(ctx context.Context, raw []byte, workdir string) protocol.Result
	ResumeSession(ctx context.Context, raw []byte) protocol.Result
}

// NewMCPServer builds the MCP server whose tools run on t, serving only
// the tools features turns on: each handler decodes nothing itself, calls
// the use case with the raw arguments and encodes its result. Each call is
// one line in log.
// Its results carry no links and it declares no prompts or resources:
// the daemon's (mcpHandler) do.
func NewMCPServer(t Tools, features protocol.Features, version string, log *slog.Logger) *mcpserver.MCPServer {
	return mcpServer(newToolCalls(t, features, log, ""), version, false)
}

// mcpServer is the MCP server that declares calls' tools and runs them
// for the calls answers leaves to it, and tells a client how WorkRail
// works (protocol.Instructions); with library it declares the
// prompts (whose list changes) and resources capabilities, whose methods
// the library handler answers.
func mcpServer(calls *toolCalls, version string, library bool) *mcpserver.MCPServer {
	sopts := []mcpserver.ServerOption{mcpserver.WithToolCapabilities(false), mcpserver.WithRecovery(), mcpserver.WithInstructions(protocol.Instructions)}
	if library {
		sopts = append(sopts, mcpserver.WithPromptCapabilities(true), mcpserver.WithResourceCapabilities(false, false))
	}
	s := mcpserver.NewMCPServer(serverName, version, sopts...)
	for _, spec := range calls.specs {
		s.AddTool(tool(spec), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ctx = protocol.WithRetryKey(ctx, req.Header.Get(home.RetryKeyHeader))
			r := calls.call(ctx, spec.Name, rawArgs(ctx, req), req.Header.Get(home.WorkdirHeader))
			links := calls.console != ""
			// Measured as answers writes it: this path is the rare one.
			var big *tooLarge
			if errors.As(writeAnswer(new(bytes.Buffer), json.RawMessage("0"), r, links), &big) {
				calls.tooLarge(ctx, spec.Name, big.size)
				r, links = protocol.NewError(protocol.AnswerTooLarge(spec.Name, big.size)), false
			}
			return toolResult(r, links), nil
		})
	}
	return s
}

// toolCalls runs the tools features turns on, each call logged in one
// line and its result linked to its run in the Console when console is set.
type toolCalls struct {
	specs   []protocol.Tool
	run     map[protocol.ToolName]func(ctx context.Context, raw []byte, workdir string) protocol.Result
	log     *slog.Logger
	console string // the Console's URL; empty: results carry no links
}

func newToolCalls(t Tools, features protocol.Features, log *slog.Logger, console string) *toolCalls {
	all := map[protocol.ToolName]func(ctx context.Context, raw []byte, workdir string) protocol.Result{
		protocol.ToolList: anywhere(t.List), protocol.ToolInspect: anywhere(t.Inspect), protocol.ToolStart: t.StartFrom,
		protocol.ToolContinue: anywhere(t.Continue), protocol.ToolCheckpoint: anywhere(t.Checkpoint),
		protocol.ToolStartSession: t.StartSessionFrom, protocol.ToolResume: anywhere(t.ResumeSession),
	}
	c := &toolCalls{specs: protocol.Tools(features), run: map[protocol.ToolName]func(context.Context, []byte, string) protocol.Result{}, log: log, console: console}
	for _, spec := range c.specs {
		call, ok := all[spec.Name]
		if !ok {
			panic("server: no use case serves " + string(spec.Name))
		}
		c.run[spec.Name] = call
	}
	return c
}

// serves reports whether name is one of the tools calls runs.
func (c *toolCalls) serves(name string) bool {
	_, ok := c.run[protocol.ToolName(name)]
	return ok
}

// call runs the tool name, which calls serves, and logs it; a panic is
// logged and goes on up.
func (c *toolCalls) call(ctx context.Context, name protocol.ToolName, raw []byte, workdir string) protocol.Result {
	start := time.Now()
	defer logPanic(ctx, c.log, name, start)
	r := c.run[name](ctx, raw, workdir)
	logCall(ctx, c.log, name, r, time.Since(start))
	return protocol.WithConsoleLink(r, c.console)
}

// tooLarge logs an answer given up at size bytes, over
// protocol.MaxAnswerBytes, and answered with the error that says so.
func (c *toolCalls) tooLarge(ctx context.Context, name protocol.ToolName, size int) {
	c.log.LogAttrs(ctx, slog.LevelError, "tool answer over the limit", slog.String("tool", string(name)),
		slog.Int("answerBytes", size), slog.Int("limitBytes", protocol.MaxAnswerBytes))
}

// anywhere adapts a use case that does not read the client's folder.
func anywhere(uc func(context.Context, []byte) protocol.Result) func(context.Context, []byte, string) protocol.Result {
	return func(ctx context.Context, raw []byte, _ string) protocol.Result { return uc(ctx, raw) }
}

// logCall writes a tool call's line: the tool, the session when the
// result names one, the result's kind, the error code of an error, and how
// long it took. Never the arguments or the result's text: they hold what
// the user and the agent wrote.
func logCall(ctx context.Context, log *slog.Logger, name protocol.ToolName, r protocol.Result, took time.Duration) {
	attrs := []slog.Attr{slog.String("tool", string(name))}
	if s, ok := session(r); ok {
		attrs = append(attrs, slog.String("session", s))
	}
	attrs = append(attrs, slog.String("kind", string(r.ResultKind())))
	level, msg := slog.LevelInfo, "tool call"
	if e, ok := r.(protocol.ErrorResult); ok && e.Error != nil {
		// The message is what the Console's recent errors say. A call its
		// client cancelled is no failure: info, not an error.
		level, msg = slog.LevelError, "tool call answered with an error"
		if protocol.IsCancelled(e.Error) {
			level, msg = slog.LevelInfo, "tool call cancelled"
		}
		// The code only: an error's message may quote what the agent sent.
		attrs = append(attrs, slog.String("code", string(e.Error.Code)))
	}
	attrs = append(attrs, durationMs(took))
	log.LogAttrs(ctx, level, msg, attrs...)
}

// logPanic logs a use case that panicked and panics on, so the server's
// recovery answers the call.
func logPanic(ctx context.Context, log *slog.Logger, name protocol.ToolName, start time.Time) {
	if p := recover(); p != nil {
		log.LogAttrs(ctx, slog.LevelError, "tool call panicked", slog.String("tool", string(name)),
			slog.Any("err", p), durationMs(time.Since(start)))
		panic(p)
	}
}

func durationMs(d time.Duration) slog.Attr {
	return slog.Float64("durationMs", float64(d.Microseconds())/1000)
}

// session is the session a result is about, when it says.
func session(r protocol.Result) (string, bool) {
	switch r := r.(type) {
	case protocol.StepResult:
		return r.Session.SessionID.String(), true
	case protocol.BlockedResult:
		return r.Session.SessionID.String(), true
	case protocol.CompleteResult:
		return r.Session.SessionID.String(), true
	case protocol.ErrorResult:
		return r.About.String(), r.About != 0
	}
	return "", false
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

// rawArgs are a call's arguments as sent: those the guard took out of the
// message (withArguments), else what the library kept of them.
func rawArgs(ctx context.Context, req mcp.CallToolRequest) []byte {
	if args, ok := argumentsOf(ctx); ok {
		return args
	}
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
// With links, a result about a run also carries a resource_link to its
// session, and resume_session's candidates one each.
func toolResult(r protocol.Result, links bool) *mcp.CallToolResult {
	res := mcp.NewToolResultStructured(r, r.RenderedText())
	res.IsError = r.ResultKind() == protocol.KindError
	if links {
		for _, ref := range runsOf(r) {
			res.Content = append(res.Content, mcp.NewResourceLink(protocol.SessionURI(ref.SessionID), ref.SessionID.String(),
				"WorkRail session "+ref.SessionID.String()+" (run "+ref.RunID.String()+") as Markdown", markdown))
		}
	}
	return res
}

// runsOf lists the runs a result is about.
func runsOf(r protocol.Result) []protocol.SessionRef {
	if ref, ok := protocol.RunOf(r); ok {
		return []protocol.SessionRef{ref}
	}
	c, ok := r.(protocol.ResumeResult)
	if !ok {
		return nil
	}
	refs := make([]protocol.SessionRef, len(c.Candidates))
	for i, cand := range c.Candidates {
		refs[i] = cand.Session
	}
	return refs
}
