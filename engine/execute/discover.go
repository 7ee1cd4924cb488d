package execute

import (
	"github.com/workrail/workrail/engine/protocol"
)

// List answers list_workflows.
func (s *Service) List(raw []byte) protocol.Result {
	in, e := protocol.ParseList(raw)
	if e != nil {
		return s.answer("list", nil, badArguments(protocol.ToolList, raw, e))
	}
	return protocol.NewList(s.workflows.Catalog(in.WorkspacePath))
}

// Inspect answers inspect_workflow. It never writes.
func (s *Service) Inspect(raw []byte) protocol.Result {
	in, e := protocol.ParseInspect(raw)
	if e != nil {
		return s.answer("inspect", nil, badArguments(protocol.ToolInspect, raw, e))
	}
	entry, err := s.find(protocol.ToolInspect, raw, in.WorkspacePath, in.WorkflowID)
	if err != nil {
		return s.answer("inspect", nil, err)
	}
	return protocol.NewInspect(entry, in.Mode)
}
