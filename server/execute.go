package server

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/token"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/store"
)

// Executor carries out the execution tools against the store: it is where
// tokens, the pure engine and durable truth meet. Every expected failure
// comes back as a protocol.ErrorResult, never as a Go error.
type Executor struct {
	store     *store.Store
	keys      *token.Ring
	workflows *Registry
	defaults  workflow.Preferences // global default preferences
	now       func() time.Time
	logf      func(format string, args ...any)

	pinned sync.Map // engine.WorkflowHash → compile.Compiled
}

// NewExecutor wires an executor. defaults are the global preferences new
// sessions copy; now is the clock for informational timestamps only; logf
// receives internal errors.
func NewExecutor(s *store.Store, keys *token.Ring, reg *Registry, defaults workflow.Preferences, now func() time.Time, logf func(string, ...any)) *Executor {
	return &Executor{store: s, keys: keys, workflows: reg, defaults: outcome.Apply(outcome.Default, defaults), now: now, logf: logf}
}

// node names one node of one run in one session.
type node struct {
	session engine.SessionID
	run     engine.RunID
	id      engine.NodeID
}

// Start begins a new session and run of a workflow.
func (x *Executor) Start(raw []byte) protocol.Result {
	in, perr := protocol.ParseStart(raw)
	if perr != nil {
		return badArguments("start_workflow", raw, perr)
	}
	entry, miss := x.find("start_workflow", raw, in.WorkspacePath, in.WorkflowID)
	if miss != nil {
		return miss
	}
	c := entry.Compiled
	delta, perr := outcome.Resolve(in.Preferences, outcome.ModeID(in.Mode))
	if perr != nil {
		return protocol.NewError(perr)
	}
	warnings, perr := protocol.CheckContext(c.Context, in.Context, true)
	if perr != nil {
		if _, missing := perr.Details["missingContext"]; missing {
			return withArgument("start_workflow", raw, perr, "context", contextExample(c.Context, in.Context))
		}
		return protocol.NewError(perr)
	}
	for _, n := range entry.Warnings {
		warnings = append(warnings, protocol.Warning{Code: n.Code, Message: n.Message})
	}
	prefs := outcome.Apply(x.defaults, delta)
	warnings = append(warnings, recommendationWarnings(c, prefs)...)
	move := run.Start(c, in.Context, prefs)
	var res protocol.Result
	_, err := x.store.Create(func(tx *store.Tx) error {
		n, err := startRun(tx, c, move.Snapshot, x.now(), in.WorkspacePath, delta, move.LoopExits)
		if err != nil {
			return err
		}
		n.session = tx.Session()
		res = x.renderFresh(tx, c, move.Snapshot, n, x.keys.Active(), moveFacts{skipped: move.Skipped}, warnings...)
		return nil
	})
	if err != nil {
		return x.internal("start", err)
	}
	return res
}

// startRun appends a new session's first events: the session, the run
// pinned to its compiled workflow, the root node and the session's
// baseline preferences on it.
func startRun(tx *store.Tx, c compile.Compiled, snap run.Snapshot, now time.Time, workspace string, delta workflow.Preferences, exits []event.LoopExit) (node, error) {
	if err := tx.PinWorkflow(c); err != nil {
		return node{}, err
	}
	if _, err := tx.Append(0, 0, &event.SessionCreatedData{CreatedAt: now.UTC().Format(time.RFC3339), WorkspacePath: workspace}); err != nil {
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
	n := node{run: rid, id: nid}
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

func appendNode(tx *store.Tx, rid engine.RunID, snap run.Snapshot) (engine.NodeID, error) {
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

// Continue advances (ackToken present) or rehydrates (no ackToken) a run.
func (x *Executor) Continue(raw []byte) protocol.Result {
	in, perr := protocol.ParseContinue(raw)
	if perr != nil {
		return badArguments("continue_workflow", raw, perr)
	}
	if in.Preferences != nil {
		if e := outcome.CheckPreferences(*in.Preferences, "/preferences"); e != nil {
			return protocol.NewError(e)
		}
	}
	st, err := x.keys.Parse(in.StateToken, token.State)
	if err != nil {
		return protocol.NewError(engine.AsError(err).With("pointer", "/stateToken"))
	}
	n := node{session: st.Session, run: st.Run, id: st.Node}
	if e := x.checkHealth(n.session); e != nil {
		return protocol.NewError(e)
	}
	if in.AckToken == "" {
		return x.rehydrate(n, in)
	}
	ack, err := x.keys.Parse(in.AckToken, token.Ack)
	if err != nil {
		return rehydrateFix(engine.AsError(err).With("pointer", "/ackToken"), in.StateToken)
	}
	if err := token.CheckScope(st, ack); err != nil {
		return rehydrateFix(engine.AsError(err), in.StateToken)
	}
	return x.advance(n, ack.Attempt, in)
}

func (x *Executor) checkHealth(sid engine.SessionID) *engine.Error {
	h, err := x.store.Health(sid)
	if errors.Is(err, store.ErrNotFound) {
		return unknownNode(sid)
	}
	if err != nil {
		x.logf("health %s: %v", sid, err)
		return engine.AsError(err)
	}
	switch h.Status {
	case store.Healthy:
		return nil
	case store.IndexesDamaged:
		return engine.Errorf(engine.CodeSessionCorrupt,
			"session %s has a complete, verified log but its indexes do not match it (%s), so it is not run from them. Nothing is lost: stop the daemon and run `workrail doctor --rebuild-indexes`, then send this call again; or start a new run with start_workflow.",
			sid, h.Reason).With("indexProblem", h.Reason).With("lastGoodIndex", h.LastGood)
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

// rehydrate returns the pending step of a node again, with a fresh attempt
// ackToken, the notes recorded so far and, for a node that already has
// children, the branches below it. It writes nothing.
func (x *Executor) rehydrate(n node, in protocol.ContinueInput) protocol.Result {
	var res protocol.Result
	err := x.store.View(n.session, func(tx *store.Tx) error {
		info, c, snap, e := x.load(tx, n)
		if e != nil {
			res = protocol.NewError(e)
			return nil
		}
		r, err := recap(tx, info, 0)
		if err != nil {
			return err
		}
		facts := moveFacts{recap: &r}
		if len(info.Children) > 0 {
			if facts.fork, err = forkFacts(tx, info); err != nil {
				return err
			}
		}
		res = x.render(c, snap, n, info.Attempts, x.keys.Active(), facts, ignoredOnRehydrate(in)...)
		return nil
	})
	if err != nil {
		return x.internal("rehydrate", err)
	}
	return res
}

// ignoredOnRehydrate discloses inputs a rehydrate cannot use: it never
// writes, so they would otherwise vanish silently.
func ignoredOnRehydrate(in protocol.ContinueInput) []protocol.Warning {
	var ws []protocol.Warning
	for _, ignored := range []struct {
		set  bool
		code string
		name string
	}{
		{len(in.Context) > 0, "CONTEXT_IGNORED_ON_REHYDRATE", "context was not applied"},
		{in.Output != nil, "OUTPUT_IGNORED_ON_REHYDRATE", "output was not stored"},
		{in.Preferences != nil, "PREFERENCES_IGNORED_ON_REHYDRATE", "preferences were not changed"},
	} {
		if ignored.set {
			ws = append(ws, protocol.Warning{Code: ignored.code,
				Message: ignored.name + ": without ackToken this call only re-reads the pending step. Send it together with ackToken."})
		}
	}
	return ws
}

// load reads a node, its snapshot and its pinned workflow, and checks they
// belong together.
func (x *Executor) load(tx *store.Tx, n node) (store.NodeInfo, compile.Compiled, run.Snapshot, *engine.Error) {
	info, err := tx.Node(n.id)
	if err != nil || info.Run != n.run {
		return info, compile.Compiled{}, run.Snapshot{}, unknownNode(n.session)
	}
	var snap run.Snapshot
	if err := tx.Snapshot(info.Snapshot, &snap); err != nil {
		return info, compile.Compiled{}, run.Snapshot{}, corrupt(n.session, err)
	}
	c, e := x.pinnedWorkflow(tx, snap.WorkflowHash)
	if e != nil {
		return info, c, snap, e
	}
	if err := run.Check(c, snap); err != nil {
		return info, c, snap, corrupt(n.session, err)
	}
	return info, c, snap, nil
}

func corrupt(sid engine.SessionID, err error) *engine.Error {
	return engine.Errorf(engine.CodeSessionCorrupt,
		"session %s has a damaged record (%v); it is read-only. Start a new run with start_workflow; run `workrail doctor` to inspect.", sid, err)
}

// pinnedWorkflow returns the compiled workflow a run is pinned to, from the
// store (cached: pinned workflows never change).
func (x *Executor) pinnedWorkflow(tx *store.Tx, h engine.WorkflowHash) (compile.Compiled, *engine.Error) {
	if c, ok := x.pinned.Load(h); ok {
		return c.(compile.Compiled), nil
	}
	c, err := tx.Workflow(h)
	if err != nil {
		return c, engine.Errorf(engine.CodePinnedMissing,
			"the workflow this run is pinned to (%s) is missing or damaged in the store, so the run cannot continue. Start a new run with start_workflow.", h).
			With("workflowHash", h.String())
	}
	x.pinned.Store(h, c)
	return c, nil
}

// find looks a workflow up for a call to tool; when there is none, the
// error result suggests the same call with the closest id.
func (x *Executor) find(tool string, raw []byte, workspace string, id engine.WorkflowID) (Entry, protocol.Result) {
	cat := x.workflows.Catalog(workspace)
	if entry, ok := cat.Get(id); ok {
		return entry, nil
	}
	e := unknownWorkflow(cat, id)
	if len(e.Suggestions) == 1 {
		return Entry{}, withArgument(tool, raw, e, "workflowId", e.Suggestions[0].DidYouMean)
	}
	return Entry{}, protocol.NewError(e)
}

func unknownWorkflow(cat *Catalog, id engine.WorkflowID) *engine.Error {
	msg := fmt.Sprintf("no workflow has id %q. Call list_workflows to see the ids you can start.", id)
	if n := len(cat.Problems); n > 0 {
		msg += fmt.Sprintf(" Some workflows could not be loaded (%d problem(s)), and a broken file may be the one you mean: list_workflows shows them under \"Not loaded\".", n)
	}
	e := engine.Errorf(engine.CodeWorkflowNotFound, "%s", msg).With("pointer", "/workflowId")
	if s := engine.Closest(string(id), cat.IDs()); s != "" {
		e.Suggestions = []engine.Suggestion{{Path: "workflowId", DidYouMean: s}}
	}
	return e
}

func (x *Executor) internal(op string, err error) protocol.Result {
	x.logf("%s: %v", op, err)
	return protocol.NewError(engine.AsError(err))
}
