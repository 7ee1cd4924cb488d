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
	var p pin
	if s.store.View(n.session, func(tx ReadTx) error { p = pinOf(tx, n.run); return nil }) != nil {
		return catalog.Drift{}, "", false
	}
	d, drifted := p.drift(s)
	return d, p.workspace, drifted
}

// pin is what a run's drift is read from: the workflow id and hash it is
// pinned to, and the workspace its session was started in.
type pin struct {
	id        engine.WorkflowID
	hash      engine.WorkflowHash
	workspace string
}

// pinOf reads run's pin in tx; a run it cannot read has none (no drift).
func pinOf(tx ReadTx, run engine.RunID) pin {
	r, err := tx.Run(run)
	if err != nil {
		return pin{}
	}
	p := pin{id: r.WorkflowID, hash: r.WorkflowHash}
	if e, err := tx.Event(1); err == nil {
		if d, ok := e.Data.(*event.SessionCreatedData); ok {
			p.workspace = d.WorkspacePath
		}
	}
	return p
}

// drift compares p with the catalog its workspace sees now: I/O, so never
// under a transaction.
func (p pin) drift(s *Service) (catalog.Drift, bool) {
	if p.id == "" {
		return catalog.Drift{}, false
	}
	return s.Drift(p.workspace, p.id, p.hash)
}

// places are where the package references of p's pinned version are, as
// the catalog its workspace sees now reads them (I/O: never under a
// transaction); none when that version is no longer defined.
func (p pin) places(s *Service) []catalog.RefPlace {
	if p.id == "" {
		return nil
	}
	e, ok := s.workflows.Catalog(p.workspace).Definition(p.id, p.hash)
	if !ok {
		return nil
	}
	return e.RefPlaces
}
