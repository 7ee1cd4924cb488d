// Package execute holds WorkRail's use cases: list and inspect workflows,
// start a run, continue it (rehydrate, advance, replay, fork). It decides
// which events are written and in what order, against the store port it
// declares (Store, Tx); keys, clock and the workflow catalog are passed
// in. Every answer is a protocol.Result: expected failures travel inside
// as one error channel (*engine.Error, or a fixable one carrying the call
// that fixes it) and leave as an error result.
package execute

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/redact"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/token"
	"github.com/workrail/workrail/engine/workflow"
)

// Workflows gives the catalog one call sees: bundled and configured
// workflows plus, for a workspace, its project workflows.
type Workflows interface {
	Catalog(workspace string) *catalog.Catalog
}

// Service runs the use cases.
type Service struct {
	store     Store
	keys      *token.Ring
	workflows Workflows
	defaults  workflow.Preferences // global default preferences
	now       func() time.Time
	logf      func(format string, args ...any)
	observer  Observer
	features  protocol.Features
	secrets   redact.Scanner

	pinned    sync.Map // engine.WorkflowHash → compile.Compiled
	markdowns rendered // the Markdown of sessions and runs lately read (library.go)

	// unstamped leaves events without time and origin: set only by the
	// benchmark that measures what stamping costs (export_test.go).
	unstamped bool
}

// Option sets up a Service beyond what New requires.
type Option func(*Service)

// New returns the use cases over store. defaults are the global
// preferences new sessions copy (over the built-in default); now is the
// clock for informational timestamps only; logf receives internal errors.
func New(store Store, keys *token.Ring, workflows Workflows, defaults workflow.Preferences, now func() time.Time, logf func(string, ...any), opts ...Option) *Service {
	s := &Service{store: store, keys: keys, workflows: workflows, defaults: outcome.Apply(outcome.Default(), defaults), now: now, logf: logf,
		observer: noObserver{}, secrets: redact.None{}}
	for _, o := range opts {
		o(s)
	}
	return s
}

// node names one node of one run in one session.
type node struct {
	session engine.SessionID
	run     engine.RunID
	id      engine.NodeID
}

// answer turns a use case's outcome into the result the agent gets: an
// expected failure becomes an error result (with the call that fixes it
// when there is one); anything else is internal, logged here in full.
func (s *Service) answer(op string, r protocol.Result, err error) protocol.Result {
	if err == nil {
		return r
	}
	var f *fixable
	if errors.As(err, &f) {
		return protocol.WithFix(protocol.NewError(f.err), string(f.tool), f.args)
	}
	var e *engine.Error
	if errors.As(err, &e) {
		return protocol.NewError(e)
	}
	s.logf("%s: %v", op, err)
	return protocol.NewError(engine.AsError(err))
}

// about names on an error answer the session its call's stateToken
// verifiably names, so the daemon's log can link the error to it. Only
// the error path parses the token again.
func (s *Service) about(r protocol.Result, raw []byte) protocol.Result {
	e, ok := r.(protocol.ErrorResult)
	if !ok {
		return r
	}
	var in struct {
		StateToken string `json:"stateToken"`
	}
	if json.Unmarshal(raw, &in) != nil || in.StateToken == "" {
		return r
	}
	if st, err := s.keys.Parse(in.StateToken, token.State); err == nil {
		e.About = st.Session
	}
	return e
}

// writing is fn as every write transaction of the use cases runs it: the
// transaction first stamped with the clock's time and origin o, for every
// event fn appends; and given up, everything fn appended rolled back with
// it, when ctx ends before fn returns. ctx is checked once more after fn,
// the last moment before the store commits, so a request whose caller
// went away costs no commit, and a write is either whole or absent.
func (s *Service) writing(ctx context.Context, o event.Origin, fn func(Tx) error) func(Tx) error {
	return func(tx Tx) error {
		if err := ctx.Err(); err != nil {
			return cancelled(err)
		}
		if !s.unstamped {
			tx.Stamp(event.Stamp{At: event.MillisOf(s.now()), Origin: o})
		}
		if err := fn(tx); err != nil {
			return err
		}
		return cancelled(ctx.Err())
	}
}

// cancelled is the answer to a request whose context ended (err) before
// its write was committed: nothing of it was recorded, so sending it again
// is safe. Nil for a context still live.
func cancelled(err error) error {
	if err == nil {
		return nil
	}
	return engine.Errorf(engine.CodeCancelled,
		"the call was cancelled (%v) before anything it would write was recorded; nothing changed. Send it again if it is still wanted.", err)
}

// inTx runs fn in a transaction and carries its result out. The store may
// run fn more than once; the last run's result is the one committed.
func inTx[X, T any](txn func(func(X) error) error, fn func(X) (T, error)) (T, error) {
	var out T
	err := txn(func(tx X) error {
		var err error
		out, err = fn(tx)
		return err
	})
	return out, err
}

// checkHealth refuses to run a session whose log or indexes are damaged.
func (s *Service) checkHealth(sid engine.SessionID) error {
	h, err := s.store.Health(sid)
	if rp := asReplaced(err); rp != nil {
		return rp
	}
	if errors.Is(err, engine.ErrNotFound) {
		return unknownNode(sid)
	}
	if err != nil {
		return err
	}
	switch h.Status {
	case Healthy:
		return nil
	case IndexesDamaged:
		return engine.Errorf(engine.CodeSessionCorrupt,
			"session %s has a complete, verified log but its indexes do not match it and could not be rebuilt from it (%s), so it is not run from them. Stop the daemon and run `workrail doctor` to see why, then `workrail doctor --rebuild-indexes`, and send this call again; or start a new run with start_workflow.",
			sid, h.Reason).With("indexProblem", h.Reason).With("lastGoodIndex", h.LastGood)
	case Unreadable:
		return engine.Errorf(engine.CodeSessionCorrupt,
			"the database file is damaged where session %s is stored (%s), so it cannot be read or run. Other sessions are not affected. Start a new run with start_workflow; to recover what is intact, stop the daemon and run `workrail doctor`, then `workrail doctor --salvage NEW.db`.",
			sid, h.Reason).With("damage", h.Reason)
	default:
		return engine.Errorf(engine.CodeSessionCorrupt,
			"session %s failed verification at event %d (%s); it is read-only. Start a new run with start_workflow; run `workrail doctor` to inspect.",
			sid, h.FirstBad, h.Reason).With("firstBadIndex", h.FirstBad).With("lastGoodIndex", h.LastGood)
	}
}

func unknownNode(sid engine.SessionID) *engine.Error {
	return engine.Errorf(engine.CodeTokenUnknownNode,
		"the token is genuine but this WorkRail store has no such node (session %s). Start a new run with start_workflow.", sid)
}

func corrupt(sid engine.SessionID, err error) *engine.Error {
	return engine.Errorf(engine.CodeSessionCorrupt,
		"session %s has a damaged record (%v); it is read-only. Start a new run with start_workflow; run `workrail doctor` to inspect.", sid, err)
}

// loaded is a node with its snapshot and the workflow its run is pinned to.
type loaded struct {
	info project.Node
	c    compile.Compiled
	snap run.Snapshot
}

// load reads a node, its snapshot and its pinned workflow, and checks they
// belong together.
func (s *Service) load(tx ReadTx, n node) (loaded, error) {
	info, err := tx.Node(n.id)
	if err != nil || info.Run != n.run {
		return loaded{}, unknownNode(n.session)
	}
	snap, err := tx.Snapshot(info.Snapshot)
	if err != nil {
		return loaded{}, corrupt(n.session, err)
	}
	c, err := s.pinnedWorkflow(tx, snap.WorkflowHash)
	if err != nil {
		return loaded{}, err
	}
	if err := run.Check(c, snap); err != nil {
		return loaded{}, corrupt(n.session, err)
	}
	return loaded{info: info, c: c, snap: snap}, nil
}

// pinnedWorkflow returns the compiled workflow a run is pinned to, from the
// store (cached: pinned workflows never change).
func (s *Service) pinnedWorkflow(tx ReadTx, h engine.WorkflowHash) (compile.Compiled, error) {
	if c, ok := s.pinned.Load(h); ok {
		return c.(compile.Compiled), nil
	}
	c, err := tx.Workflow(h)
	if err != nil {
		return c, engine.Errorf(engine.CodePinnedMissing,
			"the workflow this run is pinned to (%s) is missing or damaged in the store, so the run cannot continue. Start a new run with start_workflow.", h).
			With("workflowHash", h.String())
	}
	s.pinned.Store(h, c)
	return c, nil
}

// find looks a workflow up for a call to tool; when there is none, the
// error suggests the same call with the closest id.
func (s *Service) find(tool protocol.ToolName, raw []byte, workspace string, id engine.WorkflowID) (catalog.Entry, error) {
	cat := s.workflows.Catalog(workspace)
	if entry, ok := cat.Get(id); ok {
		return entry, nil
	}
	e := unknownWorkflow(cat, id)
	if len(e.Suggestions) == 1 {
		return catalog.Entry{}, withArgument(tool, raw, e, "workflowId", e.Suggestions[0].DidYouMean)
	}
	return catalog.Entry{}, e
}

func unknownWorkflow(cat *catalog.Catalog, id engine.WorkflowID) *engine.Error {
	msg := fmt.Sprintf("no workflow has id %q. Call list_workflows to see the ids you can start.", id)
	if p, ok := brokenFileOf(cat, id); ok {
		msg = fmt.Sprintf("workflow %q does not load: %s: %s. Until its file is fixed (workrail validate shows where), call list_workflows to see the ids you can start.",
			id, p.File, p.Problems.Error())
	} else if n := len(cat.Problems); n > 0 {
		msg += fmt.Sprintf(" Some workflows could not be loaded (%d problem(s)), and a broken file may be the one you mean: list_workflows shows them under \"Not loaded\".", n)
	}
	e := engine.Errorf(engine.CodeWorkflowNotFound, "%s", msg).With("pointer", "/workflowId")
	if s := engine.Closest(string(id), cat.IDs()); s != "" {
		e.Suggestions = []engine.Suggestion{{Path: "workflowId", DidYouMean: s}}
	}
	return e
}

// brokenFileOf is the load problem of the file meant to define id (a
// workflow over its limits, say), when one is.
func brokenFileOf(cat *catalog.Catalog, id engine.WorkflowID) (catalog.LoadProblem, bool) {
	for _, p := range cat.Problems {
		if p.ID == id {
			return p, true
		}
	}
	return catalog.LoadProblem{}, false
}
