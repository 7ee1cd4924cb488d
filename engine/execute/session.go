package execute

import (
	"context"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/protocol"
)

// Observer reads what a workspace folder shows at a start: its git
// branch, HEAD commit and repository root. It does I/O, so it is passed
// in (WithObserver); it never fails, leaving out what it cannot read.
type Observer interface {
	Observe(workspace string) []event.ObservationRecordedData
}

// WithObserver records what o observes of a start's workspace.
func WithObserver(o Observer) Option {
	return func(s *Service) { s.observer = o }
}

// WithFeatures tells the use cases which gated tools are served, so the
// answers offer only those.
func WithFeatures(f protocol.Features) Option {
	return func(s *Service) { s.features = f }
}

// noObserver observes nothing: a Service built without an Observer.
type noObserver struct{}

func (noObserver) Observe(string) []event.ObservationRecordedData { return nil }

// observe is what the observer sees of workspace; nothing without one.
func (s *Service) observe(workspace string) []event.ObservationRecordedData {
	if workspace == "" {
		return nil
	}
	return s.observer.Observe(workspace)
}

// SessionWorkflow is the bundled workflow start_session runs: one step
// that stays pending while the agent checkpoints its notes, and that
// continue_workflow completes when the work is done.
const SessionWorkflow engine.WorkflowID = "wr.session"

// StartSession starts a session for notes without a workflow of the
// user's: a session whose one run is SessionWorkflow, answered like
// start_workflow, so checkpoint_workflow takes its tokens as any run's.
func (s *Service) StartSession(ctx context.Context, raw []byte) protocol.Result {
	return s.StartSessionFrom(ctx, raw, "")
}

// StartSessionFrom is StartSession for a client running in folder
// workdir, observed as StartFrom does.
func (s *Service) StartSessionFrom(ctx context.Context, raw []byte, workdir string) protocol.Result {
	r, err := s.startSession(ctx, raw, workdir)
	return s.answer("start_session", r, err)
}

func (s *Service) startSession(ctx context.Context, raw []byte, workdir string) (protocol.Result, error) {
	in, e := protocol.ParseStartSession(raw)
	if e != nil {
		return nil, badArguments(protocol.ToolStartSession, raw, e)
	}
	entry, ok := s.workflows.Catalog(in.WorkspacePath).Get(SessionWorkflow)
	if !ok {
		return nil, engine.Errorf(engine.CodeWorkflowNotFound,
			"the bundled workflow %s that start_session runs is not in the catalog; start a workflow with start_workflow instead.", SessionWorkflow)
	}
	b, e := s.begin(protocol.StartInput{WorkflowID: SessionWorkflow, WorkspacePath: in.WorkspacePath}, entry)
	if e != nil {
		return nil, e
	}
	return s.create(ctx, startOnce(ctx, protocol.ToolStartSession, raw), b, in.WorkspacePath, workdir)
}
