package execute

import (
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/bundle"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
)

// What an MCP client browses besides the tools: the workflows as prompts,
// and sessions, runs and workflow sources as resources. Every read goes
// through the paths the tools and `workrail export` use.

// Prompts lists the workflows startable from workspace as MCP prompts.
func (s *Service) Prompts(workspace string) []protocol.Prompt {
	return protocol.Prompts(s.workflows.Catalog(workspace))
}

// Prompt is the message that asks the agent to start workflow id with
// args (protocol.PromptMessage); a routine is not offered as a prompt.
func (s *Service) Prompt(workspace string, id engine.WorkflowID, args map[string]string) (string, error) {
	cat := s.workflows.Catalog(workspace)
	e, ok := cat.Get(id)
	if !ok || e.Compiled.Kind == workflow.KindRoutine {
		return "", unknownWorkflow(cat, id)
	}
	msg, err := protocol.PromptMessage(e, args, workspace)
	if err != nil {
		return "", err
	}
	return msg, nil
}

// WorkflowSource is workflow id's file as it was read and compiled, in
// the catalog workspace sees.
func (s *Service) WorkflowSource(workspace string, id engine.WorkflowID) ([]byte, error) {
	cat := s.workflows.Catalog(workspace)
	e, ok := cat.Get(id)
	if !ok {
		return nil, unknownWorkflow(cat, id)
	}
	return e.Text, nil
}

// SessionMarkdown renders session id as `workrail export --markdown`
// does (bundle.Markdown), from its log as the store verified it rather
// than from an encoded bundle: only a healthy session is shown.
func (s *Service) SessionMarkdown(id engine.SessionID) (string, error) {
	v, err := s.unsealed(id)
	if err != nil {
		return "", err
	}
	return bundle.Markdown(v), nil
}

// RunMarkdown renders one run of session id as Markdown
// (bundle.RunMarkdown), read as SessionMarkdown reads the session.
func (s *Service) RunMarkdown(id engine.SessionID, run engine.RunID) (string, error) {
	v, err := s.unsealed(id)
	if err != nil {
		return "", err
	}
	md, ok := bundle.RunMarkdown(v, run)
	if !ok {
		return "", engine.Errorf(engine.CodeInvalidInput, "session %s has no run %s; the resource %s lists its runs.", id, run, protocol.SessionURI(id)).
			With("sessionId", id.String()).With("runId", run.String())
	}
	return md, nil
}

// unsealed reads healthy session id for Markdown.
func (s *Service) unsealed(id engine.SessionID) (*bundle.Verified, error) {
	src, err := s.sourceOf(id, "shown")
	if err != nil {
		return nil, err
	}
	v, err := bundle.Unsealed(src)
	if err != nil {
		return nil, corrupt(id, err)
	}
	return v, nil
}
