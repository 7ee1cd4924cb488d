package execute

import (
	"fmt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/bundle"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/run"
)

// Export returns session id as a bundle: deterministic JSON bytes (the
// same session, unchanged, always gives the same bytes). Only a healthy
// session is exported.
func (s *Service) Export(id engine.SessionID, o bundle.ExportOptions) ([]byte, error) {
	b, err := s.build(id, o)
	if err != nil {
		return nil, err
	}
	out, err := bundle.Encode(b)
	if err != nil {
		return nil, s.internal("export", err)
	}
	return out, nil
}

// ExportMarkdown renders session id as Markdown for a pull request: its
// runs, steps, notes, gaps (open and resolved), forks and checkpoints,
// from the same bundle Export writes with o, so it says nothing the
// bundle does not.
func (s *Service) ExportMarkdown(id engine.SessionID, o bundle.ExportOptions) (string, error) {
	out, err := s.Export(id, o)
	if err != nil {
		return "", err
	}
	v, err := bundle.Read(out)
	if err != nil {
		return "", s.internal("export markdown", err)
	}
	return bundle.Markdown(v), nil
}

// Import verifies bundle b and, unless dryRun, stores it as a new session
// of its own (never merged into one that exists, whatever its id was):
// the events appended in order, so the indexes, overview and resume
// record are folded as for any append; event-id references mapped to the
// new session; run and node ids kept, so the session's sequences go on
// after them; snapshots and workflows stored by address. Nothing is
// minted: an agent picks the session up with a rehydrate of one of its
// nodes. A dry run verifies and reports what an import would add, and
// writes nothing.
func (s *Service) Import(b []byte, dryRun bool) (bundle.ImportReport, error) {
	v, err := bundle.Read(b)
	if err != nil {
		return bundle.ImportReport{}, engine.AsError(err)
	}
	rep := v.Report(dryRun)
	snaps, wfs := v.References()
	heldSnaps, heldWfs, err := s.store.Holds(snaps, wfs)
	if err != nil {
		return bundle.ImportReport{}, s.internal("import", err)
	}
	rep.SnapshotsPresent, rep.SnapshotsAdded = heldSnaps, len(snaps)-heldSnaps
	rep.WorkflowsPresent, rep.WorkflowsAdded = heldWfs, len(wfs)-heldWfs
	if dryRun {
		return rep, nil
	}
	id, err := s.store.Create(func(tx Tx) error { return importInto(tx, v) })
	if err != nil {
		return bundle.ImportReport{}, s.internal("import", err)
	}
	rep.Session = id
	return rep, nil
}

// importInto appends a verified bundle's session to the new session of
// tx: workflows pinned, snapshots stored, each run and node id allocated
// as its event comes (so the sequences end where the bundle's do), and
// each event appended at the index it had.
func importInto(tx Tx, v *bundle.Verified) error {
	_, wfs := v.References()
	for _, h := range wfs {
		if err := tx.PinWorkflow(v.Workflows[h]); err != nil {
			return err
		}
	}
	for _, e := range v.Events {
		if err := allocate(tx, v, e); err != nil {
			return err
		}
		tx.Stamp(e.Stamp()) // an imported event keeps when and by whom it was written
		got, err := tx.Append(e.Run, e.Node, v.Remap(e, tx.Session()))
		if err != nil {
			return err
		}
		if got.Index != e.Index {
			return fmt.Errorf("import: event %d was appended at %d", e.Index, got.Index)
		}
	}
	return nil
}

// allocate takes the run or node id an event introduces from the new
// session's sequence, storing a node's snapshot; verification has checked
// the bundle hands ids out in the same order.
func allocate(tx Tx, v *bundle.Verified, e event.Event) error {
	switch d := e.Data.(type) {
	case *event.RunStartedData:
		id, err := tx.NewRunID()
		if err == nil && id != e.Run {
			err = fmt.Errorf("import: event %d starts %s, but the new session's next run is %s", e.Index, e.Run, id)
		}
		return err
	case *event.NodeCreatedData:
		ref, err := tx.PutSnapshot(v.Snapshots[d.Snapshot])
		if err == nil && ref != d.Snapshot {
			err = fmt.Errorf("import: snapshot %s was stored as %s", d.Snapshot, ref)
		}
		if err != nil {
			return err
		}
		id, err := tx.NewNodeID()
		if err == nil && id != e.Node {
			err = fmt.Errorf("import: event %d creates %s, but the new session's next node is %s", e.Index, e.Node, id)
		}
		return err
	}
	return nil
}

// build reads session id and builds its bundle.
func (s *Service) build(id engine.SessionID, o bundle.ExportOptions) (*bundle.Bundle, error) {
	src, err := s.sourceOf(id, "exported")
	if err != nil {
		return nil, err
	}
	if o.Redact && o.Keys == nil {
		o.Keys = s.secrets // a key holding a secret is masked too
	}
	b, err := bundle.Build(src, o)
	if err != nil {
		return nil, corrupt(id, err)
	}
	return b, nil
}

// sourceOf reads session id, which must be healthy, for a bundle: done
// says what would be done with it.
func (s *Service) sourceOf(id engine.SessionID, done string) (bundle.Source, error) {
	if err := s.healthy(id, done+": a bundle holds only a log that verifies"); err != nil {
		return bundle.Source{}, err
	}
	src, err := inTx(func(fn func(ReadTx) error) error { return s.store.View(id, fn) }, source)
	if err != nil {
		return src, corrupt(id, err)
	}
	return src, nil
}

// source reads a session's events and the snapshots and pinned
// workflows they name.
func source(tx ReadTx) (bundle.Source, error) {
	src := bundle.Source{Snapshots: map[engine.SnapshotRef]run.Snapshot{}, Workflows: map[engine.WorkflowHash][]byte{}}
	head := tx.Head()
	src.Events = make([]event.Event, 0, head)
	for i := engine.EventIndex(1); i <= head; i++ {
		e, err := tx.Event(i)
		if err != nil {
			return src, err
		}
		src.Events = append(src.Events, e)
	}
	err := bundle.WalkReferences(src.Events, func(_ event.Event, ref engine.SnapshotRef) error {
		snap, err := tx.Snapshot(ref)
		src.Snapshots[ref] = snap
		return err
	}, func(_ event.Event, h engine.WorkflowHash) error {
		c, err := tx.Workflow(h)
		src.Workflows[h] = c.Canonical
		return err
	})
	return src, err
}

// internal logs an unexpected failure and returns the INTERNAL error.
func (s *Service) internal(op string, err error) error {
	s.logf("%s: %v", op, err)
	return engine.AsError(err)
}
