package execute

import (
	"time"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// Start begins a new session and run of a workflow.
func (s *Service) Start(raw []byte) protocol.Result {
	r, err := s.start(raw)
	return s.answer("start", r, err)
}

func (s *Service) start(raw []byte) (protocol.Result, error) {
	in, e := protocol.ParseStart(raw)
	if e != nil {
		return nil, badArguments(protocol.ToolStart, raw, e)
	}
	entry, err := s.find(protocol.ToolStart, raw, in.WorkspacePath, in.WorkflowID)
	if err != nil {
		return nil, err
	}
	c := entry.Compiled
	delta, e := outcome.Resolve(in.Preferences, outcome.ModeID(in.Mode))
	if e != nil {
		return nil, e
	}
	warnings, e := protocol.CheckContext(c.Context, in.Context, true)
	if e != nil {
		if _, missing := e.Details["missingContext"]; missing {
			return nil, withArgument(protocol.ToolStart, raw, e, "context", contextExample(c.Context, in.Context))
		}
		return nil, e
	}
	for _, n := range entry.Warnings {
		warnings = append(warnings, protocol.Warning{Code: n.Code, Message: n.Message})
	}
	prefs := outcome.Apply(s.defaults, delta)
	warnings = append(warnings, recommendationWarnings(c, prefs)...)
	move := run.Start(c, in.Context, prefs)
	create := func(fn func(Tx) error) error { _, err := s.store.Create(fn); return err }
	return inTx(create, func(tx Tx) (protocol.Result, error) {
		n, err := s.startRun(tx, c, move.Snapshot, in.WorkspacePath, delta, move.LoopExits)
		if err != nil {
			return nil, err
		}
		return s.renderFresh(tx, loaded{c: c, snap: move.Snapshot}, n, s.keys.Active(), moveFacts{skipped: move.Skipped}, warnings)
	})
}

// startRun appends a new session's first events: the session, the run
// pinned to its compiled workflow, the root node and the session's
// baseline preferences on it.
func (s *Service) startRun(tx Tx, c compile.Compiled, snap run.Snapshot, workspace string, delta workflow.Preferences, exits []event.LoopExit) (node, error) {
	if err := tx.PinWorkflow(c); err != nil {
		return node{}, err
	}
	created := &event.SessionCreatedData{CreatedAt: s.now().UTC().Format(time.RFC3339), WorkspacePath: workspace}
	if _, err := tx.Append(0, 0, created); err != nil {
		return node{}, err
	}
	rid, err := tx.NewRunID()
	if err != nil {
		return node{}, err
	}
	if _, err := tx.Append(rid, 0, &event.RunStartedData{WorkflowID: c.ID, WorkflowHash: c.Hash}); err != nil {
		return node{}, err
	}
	nid, err := appendNode(tx, rid, snap)
	if err != nil {
		return node{}, err
	}
	n := node{session: tx.Session(), run: rid, id: nid}
	if _, err := tx.Append(rid, nid, &event.PreferencesChangedData{Delta: delta, Effective: snap.Preferences}); err != nil {
		return n, err
	}
	for _, g := range loopGaps(exits) {
		if _, err := tx.Append(rid, nid, &g); err != nil {
			return n, err
		}
	}
	return n, traceRecommendation(tx, n, c, snap.Preferences)
}

func appendNode(tx Tx, rid engine.RunID, snap run.Snapshot) (engine.NodeID, error) {
	nid, err := tx.NewNodeID()
	if err != nil {
		return 0, err
	}
	ref, err := tx.PutSnapshot(snap)
	if err != nil {
		return 0, err
	}
	_, err = tx.Append(rid, nid, &event.NodeCreatedData{NodeKind: event.NodeStep, Snapshot: ref})
	return nid, err
}
