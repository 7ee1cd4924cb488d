package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
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
	now       func() time.Time
	logf      func(format string, args ...any)

	pinned sync.Map // engine.WorkflowHash → compile.Compiled
}

// NewExecutor wires an executor. now is the clock for informational
// timestamps only; logf receives internal errors.
func NewExecutor(s *store.Store, keys *token.Ring, reg *Registry, now func() time.Time, logf func(string, ...any)) *Executor {
	return &Executor{store: s, keys: keys, workflows: reg, now: now, logf: logf}
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
		return protocol.NewError(perr)
	}
	cat := x.workflows.Catalog(in.WorkspacePath)
	entry, ok := cat.Get(in.WorkflowID)
	if !ok {
		return protocol.NewError(unknownWorkflow(cat, in.WorkflowID))
	}
	c := entry.Compiled
	warnings, cerr := protocol.CheckContext(c.Context, in.Context, true)
	if cerr != nil {
		return protocol.NewError(cerr)
	}
	for _, n := range entry.Warnings {
		warnings = append(warnings, protocol.Warning{Code: n.Code, Message: n.Message})
	}
	move := run.Start(c, in.Context)
	var n node
	sid, err := x.store.Create(func(tx *store.Tx) error {
		var err error
		n, err = startRun(tx, c, move.Snapshot, x.now(), in.WorkspacePath)
		return err
	})
	if err != nil {
		return x.internal("start", err)
	}
	n.session = sid
	return x.render(c, move.Snapshot, n, 0, x.keys.Active(), moveFacts{skipped: move.Skipped, exits: move.LoopExits}, warnings...)
}

// moveFacts is what a result reports besides the node itself: what the
// move passed over on its way, and the recap or branches to show.
type moveFacts struct {
	skipped []event.Skip
	exits   []event.LoopExit
	recap   *event.Recap
	fork    *event.Fork
}

func startRun(tx *store.Tx, c compile.Compiled, snap run.Snapshot, now time.Time, workspace string) (node, error) {
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
	return node{run: rid, id: nid}, err
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
		return protocol.NewError(perr)
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
		return protocol.NewError(engine.AsError(err).With("pointer", "/ackToken"))
	}
	if err := token.CheckScope(st, ack); err != nil {
		return protocol.NewError(engine.AsError(err))
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
	if h.Status != store.Healthy {
		return engine.Errorf(engine.CodeSessionCorrupt,
			"session %s failed verification at event %d (%s); it is read-only. Start a new run with start_workflow; run `workrail doctor` to inspect.",
			sid, h.FirstBad, h.Reason).With("firstBadIndex", h.FirstBad).With("lastGoodIndex", h.LastGood)
	}
	return nil
}

func unknownNode(sid engine.SessionID) *engine.Error {
	return engine.Errorf(engine.CodeTokenUnknownNode,
		"the token is genuine but this WorkRail store has no such node (session %s). Start a new run with start_workflow.", sid)
}

// rehydrate returns the pending step of a node again, with a fresh attempt
// ackToken. It writes nothing.
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
			if facts.fork, err = forkFacts(tx, info, pendingStepOf(tx)); err != nil {
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
// writes, so context and output would otherwise vanish silently.
func ignoredOnRehydrate(in protocol.ContinueInput) []protocol.Warning {
	var ws []protocol.Warning
	if len(in.Context) > 0 {
		ws = append(ws, protocol.Warning{Code: "CONTEXT_IGNORED_ON_REHYDRATE",
			Message: "context was not applied: without ackToken this call only re-reads the pending step. Send context together with ackToken."})
	}
	if in.Output != nil {
		ws = append(ws, protocol.Warning{Code: "OUTPUT_IGNORED_ON_REHYDRATE",
			Message: "output was not stored: without ackToken this call only re-reads the pending step. Send output together with ackToken."})
	}
	return ws
}

// advance records one ack attempt. An attempt already recorded is answered
// from its record; a new one appends the advance in one transaction.
func (x *Executor) advance(n node, attempt engine.Attempt, in protocol.ContinueInput) protocol.Result {
	var res protocol.Result
	err := x.store.Update(n.session, func(tx *store.Tx) error {
		res = nil
		rec, err := tx.RecordedAttempt(n.id, attempt)
		if err == nil {
			res = x.fromRecord(tx, n, rec)
			return nil
		}
		if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		info, c, snap, e := x.load(tx, n)
		if e != nil {
			res = protocol.NewError(e)
			return nil
		}
		if snap.Position.Kind == run.Complete {
			res = protocol.NewError(engine.Errorf(engine.CodeInvalidInput, "this run is already complete; there is nothing to acknowledge."))
			return nil
		}
		warnings, e := protocol.CheckContext(c.Context, in.Context, false)
		if e != nil {
			res = protocol.NewError(e)
			return nil
		}
		rec, err = x.appendAdvance(tx, n, attempt, info, c, snap, in, warnings)
		if err != nil {
			return err
		}
		res = x.fromRecord(tx, n, rec)
		return nil
	})
	if err != nil {
		return x.internal("advance", err)
	}
	return res
}

func (x *Executor) appendAdvance(tx *store.Tx, n node, attempt engine.Attempt, info store.NodeInfo, c compile.Compiled, snap run.Snapshot, in protocol.ContinueInput, warnings []protocol.Warning) (event.Event, error) {
	move, err := run.Advance(c, snap, in.Context, stopRequested(in.Output))
	if err != nil {
		return event.Event{}, err
	}
	next := move.Snapshot
	var fork *event.Fork
	if len(info.Children) > 0 {
		if fork, err = forkFacts(tx, info, pendingStepOf(tx)); err != nil {
			return event.Event{}, err
		}
	}
	child, err := tx.NewNodeID()
	if err != nil {
		return event.Event{}, err
	}
	rec, err := tx.Append(n.run, n.id, &event.AdvanceRecordedData{
		Attempt: attempt, KeyID: uint32(x.keys.Active()), Outcome: event.OutcomeAdvanced, ToNode: child,
		Skipped: move.Skipped, LoopExits: move.LoopExits, Notices: notices(warnings), Fork: fork})
	if err != nil {
		return event.Event{}, err
	}
	ref, err := tx.PutSnapshot(next)
	if err != nil {
		return event.Event{}, err
	}
	if _, err := tx.Append(n.run, child, &event.NodeCreatedData{NodeKind: event.NodeStep, Snapshot: ref}); err != nil {
		return event.Event{}, err
	}
	if err := appendEdge(tx, n, child, len(info.Children)); err != nil {
		return event.Event{}, err
	}
	if in.Output != nil && (in.Output.NotesMarkdown != "" || len(in.Output.Artifacts) > 0) {
		out := &event.NodeOutputAppendedData{StepID: snap.Position.Step, NotesMarkdown: in.Output.NotesMarkdown, Artifacts: in.Output.Artifacts}
		if _, err := tx.Append(n.run, child, out); err != nil {
			return event.Event{}, err
		}
	}
	return rec, nil
}

// appendEdge links parent to child. A parent that already has children is
// a rewound chat advancing again: the new branch is a fork, and why is
// traced.
func appendEdge(tx *store.Tx, n node, child engine.NodeID, siblings int) error {
	kind := event.EdgeAckedStep
	if siblings > 0 {
		kind = event.EdgeForkedFromNonTip
		trace := &event.DecisionTraceAppendedData{TraceKind: event.TraceDetectedNonTipAdvance,
			Summary: fmt.Sprintf("%s already had %d child node(s); advancing again forked a new branch", n.id, siblings)}
		if _, err := tx.Append(n.run, n.id, trace); err != nil {
			return err
		}
	}
	_, err := tx.Append(n.run, child, &event.EdgeCreatedData{EdgeKind: kind, From: n.id, To: child})
	return err
}

// fromRecord renders the response of a recorded attempt from the record
// alone: the first answer and every replay take this same path, so they
// are byte-identical.
func (x *Executor) fromRecord(tx *store.Tx, from node, rec event.Event) protocol.Result {
	d, ok := rec.Data.(*event.AdvanceRecordedData)
	if !ok {
		return x.internal("replay", fmt.Errorf("event %d is %s, not advance_recorded", rec.Index, rec.Kind))
	}
	to := node{session: from.session, run: from.run, id: d.ToNode}
	_, c, snap, e := x.load(tx, to)
	if e != nil {
		return protocol.NewError(e)
	}
	ws := make([]protocol.Warning, len(d.Notices))
	for i, nt := range d.Notices {
		ws[i] = protocol.Warning{Code: nt.Code, Message: nt.Message}
	}
	return x.render(c, snap, to, 0, token.KeyID(d.KeyID), moveFacts{skipped: d.Skipped, exits: d.LoopExits, fork: d.Fork}, ws...)
}

func notices(ws []protocol.Warning) []event.Notice {
	out := make([]event.Notice, len(ws))
	for i, w := range ws {
		out[i] = event.Notice{Code: w.Code, Message: w.Message}
	}
	return out
}

// stopRequested reports whether output carries a loop_control artifact
// asking the enclosing loop to stop.
func stopRequested(out *protocol.Output) bool {
	if out == nil {
		return false
	}
	for _, a := range out.Artifacts {
		var lc struct {
			Kind     string `json:"kind"`
			Decision string `json:"decision"`
		}
		if json.Unmarshal(a, &lc) == nil && lc.Kind == string(workflow.ContractLoopControl) && lc.Decision == "stop" {
			return true
		}
	}
	return false
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

// render builds the result for node n at snapshot snap: the pending step
// with tokens for the given attempt, or completion.
func (x *Executor) render(c compile.Compiled, snap run.Snapshot, n node, attempt engine.Attempt, kid token.KeyID, facts moveFacts, warnings ...protocol.Warning) protocol.Result {
	claims := token.Claims{Kind: token.State, Key: kid, Session: n.session, Run: n.run, Node: n.id}
	st, err := x.keys.Mint(claims)
	if err != nil {
		return x.internal("mint", err)
	}
	v := protocol.View{
		Workflow: protocol.WorkflowRef{ID: c.ID, Name: c.Name, Hash: c.Hash},
		Session:  protocol.SessionRef{SessionID: n.session, RunID: n.run},
		Tokens:   protocol.Tokens{State: st}, Skipped: facts.skipped, Recap: facts.recap, Fork: facts.fork,
		Warnings: append(loopWarnings(facts.exits), warnings...),
	}
	place, pending := run.PendingStep(c, snap)
	if !pending {
		return protocol.NewComplete(v)
	}
	claims.Kind, claims.Attempt = token.Ack, attempt
	ack, err := x.keys.Mint(claims)
	if err != nil {
		return x.internal("mint", err)
	}
	claims.Kind = token.Checkpoint
	chk, err := x.keys.Mint(claims)
	if err != nil {
		return x.internal("mint", err)
	}
	v.Tokens.Ack, v.Tokens.Checkpoint = ack, chk
	s := place.Step
	p := protocol.Pending{StepID: s.ID, Title: s.Title, Prompt: s.Prompt, RequireConfirmation: s.RequireConfirmation, Loops: place.Loops}
	return protocol.NewStep(v, p, protocol.Progress{Part: snap.Position.Path[0].Index + 1, Parts: len(c.Steps)})
}

// loopWarnings discloses loops cut off by their iteration bound.
func loopWarnings(exits []event.LoopExit) []protocol.Warning {
	var ws []protocol.Warning
	for _, e := range exits {
		if e.Reason == event.MaxIterations {
			ws = append(ws, protocol.Warning{Code: "LOOP_MAX_ITERATIONS",
				Message: fmt.Sprintf("loop %s stopped after its maximum of %d iterations, not because its condition was met", e.LoopID, e.Iterations)})
		}
	}
	return ws
}

func unknownWorkflow(cat *Catalog, id engine.WorkflowID) *engine.Error {
	known := cat.IDs()
	e := engine.Errorf(engine.CodeWorkflowNotFound, "no workflow has id %q. Call list_workflows to see the ids you can start.", id).
		With("pointer", "/workflowId")
	if s := engine.Closest(string(id), known); s != "" {
		e.Suggestions = []engine.Suggestion{{Path: "workflowId", DidYouMean: s}}
	}
	return e
}

func (x *Executor) internal(op string, err error) protocol.Result {
	x.logf("%s: %v", op, err)
	return protocol.NewError(engine.AsError(err))
}
