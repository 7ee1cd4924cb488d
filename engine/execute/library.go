package execute

import (
	"errors"
	"sync"

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
	return s.markdown(id, 0, func(v *bundle.Verified) (string, bool) { return bundle.Markdown(v), true })
}

// RunMarkdown renders one run of session id as Markdown
// (bundle.RunMarkdown), read as SessionMarkdown reads the session.
func (s *Service) RunMarkdown(id engine.SessionID, run engine.RunID) (string, error) {
	return s.markdown(id, run, func(v *bundle.Verified) (string, bool) { return bundle.RunMarkdown(v, run) })
}

// markdown renders session id (or one run of it) with render, or answers
// what it rendered at the same head of the log: a log only grows, and a
// session id is never given twice, so the same head is the same text.
// Health is checked every time, as every read checks it.
func (s *Service) markdown(id engine.SessionID, run engine.RunID, render func(*bundle.Verified) (string, bool)) (string, error) {
	if err := s.healthy(id, "shown"); err != nil {
		return "", err
	}
	var head engine.EventIndex
	if err := s.store.View(id, func(tx Tx) error { head = tx.Head(); return nil }); err != nil {
		return "", corrupt(id, err)
	}
	key := renderKey{id, run}
	if md, ok := s.rendered.get(key, head); ok {
		return md, nil
	}
	src, err := s.sourceOf(id, "shown")
	if err != nil {
		return "", err
	}
	v, err := bundle.Unsealed(src)
	if err != nil {
		return "", corrupt(id, err)
	}
	md, ok := render(v)
	if !ok {
		return "", engine.Errorf(engine.CodeInvalidInput, "session %s has no run %s; the resource %s lists its runs.", id, run, protocol.SessionURI(id)).
			With("sessionId", id.String()).With("runId", run.String())
	}
	s.rendered.put(key, engine.EventIndex(len(src.Events)), md)
	return md, nil
}

// healthy refuses a session that is not in the store, or not healthy;
// done says what would be done with it.
func (s *Service) healthy(id engine.SessionID, done string) error {
	h, err := s.store.Health(id)
	if errors.Is(err, engine.ErrNotFound) {
		return engine.Errorf(engine.CodeInvalidInput, "there is no session %s in this WorkRail store; `workrail sessions` lists them.", id).
			With("sessionId", id.String())
	}
	if err != nil {
		return s.internal("read session "+id.String(), err)
	}
	if h.Status != Healthy {
		return engine.Errorf(engine.CodeSessionCorrupt, "session %s is %s (%s), so it is not %s. Run `workrail doctor` to inspect it.",
			id, h.Status, h.Reason, done).With("sessionId", id.String()).With("health", string(h.Status))
	}
	return nil
}

// renderKey names a session's Markdown (run 0) or one run's.
type renderKey struct {
	session engine.SessionID
	run     engine.RunID
}

// rendered keeps the Markdown of the sessions and runs read last, each at
// the head of the log it was rendered from. It holds at most
// maxRendered texts; the zero value is ready to use.
type rendered struct {
	mu sync.Mutex
	m  map[renderKey]renderedText
}

type renderedText struct {
	head engine.EventIndex
	md   string
}

const maxRendered = 16

func (r *rendered) get(k renderKey, head engine.EventIndex) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.m[k]
	return t.md, ok && t.head == head
}

func (r *rendered) put(k renderKey, head engine.EventIndex, md string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.m[k]; !ok && len(r.m) >= maxRendered || r.m == nil {
		r.m = map[renderKey]renderedText{} // start over: the texts are cheap to render again
	}
	r.m[k] = renderedText{head, md}
}
