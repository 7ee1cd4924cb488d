package execute

import (
	"context"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/token"
	"github.com/workrail/workrail/engine/workflow"
)

// List answers list_workflows.
func (s *Service) List(_ context.Context, raw []byte) protocol.Result {
	in, e := protocol.ParseList(raw)
	if e != nil {
		return s.answer("list", nil, badArguments(protocol.ToolList, raw, e))
	}
	return protocol.NewList(s.workflows.Catalog(in.WorkspacePath))
}

// Inspect answers inspect_workflow. It never writes.
func (s *Service) Inspect(_ context.Context, raw []byte) protocol.Result {
	in, e := protocol.ParseInspect(raw)
	if e != nil {
		return s.answer("inspect", nil, badArguments(protocol.ToolInspect, raw, e))
	}
	if in.StateToken != "" {
		r, err := s.inspectPinned(in)
		return s.answer("inspect", r, err)
	}
	entry, err := s.find(protocol.ToolInspect, raw, in.WorkspacePath, in.WorkflowID)
	if err != nil {
		return s.answer("inspect", nil, err)
	}
	return protocol.NewInspect(entry, in.Mode)
}

// inspectPinned shows the version the stateToken's run is pinned to: what
// that run follows, whatever its id means now. When the id has drifted,
// the result says so and the summary names the source that still defines
// the pinned version, if one does.
func (s *Service) inspectPinned(in protocol.InspectInput) (protocol.Result, error) {
	st, err := s.keys.Parse(in.StateToken, token.State)
	if err != nil {
		return nil, engine.AsError(err).With("pointer", "/stateToken")
	}
	n := node{session: st.Session, run: st.Run, id: st.Node}
	if err := s.checkHealth(n.session); err != nil {
		return nil, err
	}
	var l loaded
	var from event.RepoPin
	err = s.store.View(n.session, func(tx ReadTx) error {
		if r, err := tx.Run(n.run); err == nil {
			from = r.Repo
		}
		l, err = s.load(tx, n)
		return err
	})
	if err != nil {
		return nil, err
	}
	c := l.c
	if c.ID != in.WorkflowID {
		return nil, engine.Errorf(engine.CodeInvalidInput,
			"this stateToken belongs to a run of %s, not %s: send workflowId %q with it, or leave stateToken out to see %s as it is now",
			c.ID, in.WorkflowID, c.ID, in.WorkflowID).With("pointer", "/workflowId")
	}
	drift, workspace, drifted := s.runDrift(n)
	if !drifted {
		if e, ok := s.workflows.Catalog(workspace).Get(c.ID); ok && e.Compiled.Hash == c.Hash {
			return protocol.NewInspectPinned(e, in.Mode, nil, from), nil
		}
	}
	status, _ := workflow.StatusOf(c.ID)
	e := catalog.Entry{Compiled: c, IDStatus: status, Source: drift.PinnedAt.Source}
	var warnings []protocol.Warning
	if drifted {
		warnings = append(warnings, protocol.DriftWarning(c.Version, drift))
	}
	return protocol.NewInspectPinned(e, in.Mode, warnings, from), nil
}
