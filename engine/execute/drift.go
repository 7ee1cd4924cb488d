package execute

import (
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/event"
)

// Drift compares a run's pin (workflow id and hash) with the catalog
// workspace sees now, through the same Workflows port the use cases use:
// ok is false when the id still resolves to the pinned version. The
// Console calls it for its drift badges and banners with the workspace
// the session recorded (project.Overview.Workspace); see catalog.Drift
// for the rule.
func Drift(w Workflows, workspace string, id engine.WorkflowID, pinned engine.WorkflowHash) (catalog.Drift, bool) {
	return w.Catalog(workspace).Drift(id, pinned)
}

// Drift is the package's Drift over the service's own workflow catalog.
func (s *Service) Drift(workspace string, id engine.WorkflowID, pinned engine.WorkflowHash) (catalog.Drift, bool) {
	return Drift(s.workflows, workspace, id, pinned)
}

// runDrift is the drift of the run node n belongs to, against the catalog
// of the workspace its session was started in. It reads the pin and the
// workspace in one read transaction and the catalog outside it (reading
// workflow folders is I/O, held under no transaction). Anything it cannot
// read means no drift: the caller's own reads report the failure. It also
// returns that workspace.
func (s *Service) runDrift(n node) (catalog.Drift, string, bool) {
	var pin struct {
		id        engine.WorkflowID
		hash      engine.WorkflowHash
		workspace string
	}
	err := s.store.View(n.session, func(tx ReadTx) error {
		r, err := tx.Run(n.run)
		if err != nil {
			return err
		}
		pin.id, pin.hash = r.WorkflowID, r.WorkflowHash
		if e, err := tx.Event(1); err == nil {
			if d, ok := e.Data.(*event.SessionCreatedData); ok {
				pin.workspace = d.WorkspacePath
			}
		}
		return nil
	})
	if err != nil {
		return catalog.Drift{}, "", false
	}
	d, drifted := s.Drift(pin.workspace, pin.id, pin.hash)
	return d, pin.workspace, drifted
}
