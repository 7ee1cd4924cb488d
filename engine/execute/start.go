package execute

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/token"
	"github.com/workrail/workrail/engine/workflow"
)

// Start begins a run of a workflow: in a new session, or, given the
// stateToken of a run, in that run's session.
func (s *Service) Start(ctx context.Context, raw []byte) protocol.Result {
	return s.StartFrom(ctx, raw, "")
}

// StartFrom is Start for a client running in folder workdir: when the
// call names no workspacePath, the git repository there is observed. It
// changes nothing else: the catalog is the one the arguments name.
func (s *Service) StartFrom(ctx context.Context, raw []byte, workdir string) protocol.Result {
	r, err := s.start(ctx, raw, workdir)
	return s.answer("start", r, err)
}

func (s *Service) start(ctx context.Context, raw []byte, workdir string) (protocol.Result, error) {
	in, e := protocol.ParseStart(raw)
	if e != nil {
		return nil, badArguments(protocol.ToolStart, raw, e)
	}
	if in.StateToken != "" {
		return s.startBeside(ctx, raw, in.StateToken)
	}
	in, secrets := s.redactStart(in)
	entry, err := s.find(protocol.ToolStart, raw, in.WorkspacePath, in.WorkflowID)
	if err != nil {
		return nil, err
	}
	b, e := s.begin(in, entry)
	if e != nil {
		if _, missing := e.Details["missingContext"]; missing {
			return nil, withArgument(protocol.ToolStart, raw, e, "context", contextExample(entry.Compiled.Context, in.Context))
		}
		return nil, e
	}
	b.warnings = append(secrets, b.warnings...)
	return s.create(ctx, startOnce(ctx, protocol.ToolStart, raw), b, in.WorkspacePath, workdir)
}

// startBeside starts a run in the session of the run stateToken names,
// checked as continue_workflow checks it. A token that does not verify
// is refused with the same call without it, which starts a new session:
// copying nextCall still makes progress. Like any start it is not
// idempotent: the same call twice is two runs (unless a shim sends it
// again under its retry key: once.go).
func (s *Service) startBeside(ctx context.Context, raw []byte, stateToken string) (protocol.Result, error) {
	st, err := s.keys.Parse(stateToken, token.State)
	if err != nil {
		e := engine.AsError(err).With("pointer", "/stateToken")
		e.Message += " To start in the session of a run you hold, send the stateToken of its latest response (resume_session finds it); nextCall starts a new session instead."
		return nil, withoutArgument(protocol.ToolStart, raw, e, "stateToken")
	}
	r, err := s.startIn(ctx, st.Session, raw, 0, engine.WorkflowHash{}, event.OriginAgent)
	var e *engine.Error
	switch {
	case !errors.As(err, &e):
		return r, err
	case e.Details["missingContext"] != nil:
		return nil, s.contextFix(st.Session, raw, e)
	case e.Code == engine.CodeTokenUnknownNode, e.Code == engine.CodeSessionReplaced:
		// A genuine token of a session this store does not have (or no
		// longer has: a scrub replaced it).
		return nil, withoutArgument(protocol.ToolStart, raw, e.With("pointer", "/stateToken"), "stateToken")
	}
	return r, err
}

// contextFix answers a start in session sid that lacks required context
// as start answers one: with the same call, the context completed with
// example values (start has read the catalog entry, so it is there).
func (s *Service) contextFix(sid engine.SessionID, raw []byte, e *engine.Error) error {
	in, _ := protocol.ParseStart(raw) // startIn parsed raw already
	ws, err := s.workspace(sid)
	if err != nil {
		return e
	}
	entry, ok := s.workflows.Catalog(ws).Get(in.WorkflowID)
	if !ok {
		return e
	}
	return withArgument(protocol.ToolStart, raw, e, "context", contextExample(entry.Compiled.Context, in.Context))
}

// create records a new session with its first run, and what its
// workspace (else the client's workdir) shows, read before the
// transaction: it is I/O. A start made before under once is answered
// with the run it made.
func (s *Service) create(ctx context.Context, once onceKey, b beginning, workspace, workdir string) (protocol.Result, error) {
	obs := s.observe(cmp.Or(workspace, workdir))
	create := func(fn func(Tx) error) error {
		_, err := s.store.Create(s.writing(ctx, event.OriginAgent, fn))
		return err
	}
	r, err := inTx(create, func(tx Tx) (reply, error) {
		if err := once.unused(tx); err != nil {
			return reply{}, err
		}
		n, err := s.startRun(tx, b, workspace, obs)
		if err != nil {
			return reply{}, err
		}
		if err := once.record(tx, n); err != nil {
			return reply{}, err
		}
		return fresh(tx, loaded{c: b.c, snap: b.move.Snapshot}, n, s.keys.Active(), moveFacts{skipped: b.move.Skipped, rules: true, places: b.places}, b.warnings)
	})
	return s.startedOnce(r, err, b)
}

// beginning is a run checked and ready to record: its workflow, its first
// move, the preferences the start asked for and what to warn about.
type beginning struct {
	c        compile.Compiled
	repo     event.RepoPin // where c was read from, when a repository defined it
	move     run.Move
	delta    workflow.Preferences
	warnings []protocol.Warning
	places   []catalog.RefPlace // where the entry's package references are
}

// begin checks a start's preferences and context against the workflow
// entry names, as start_workflow does, and makes the run's first move.
func (s *Service) begin(in protocol.StartInput, entry catalog.Entry) (beginning, *engine.Error) {
	c := entry.Compiled
	delta, e := outcome.Resolve(in.Preferences, outcome.ModeID(in.Mode))
	if e != nil {
		return beginning{}, e
	}
	warnings, e := protocol.CheckContext(c.Workflow, in.Context, true)
	if e != nil {
		return beginning{}, e
	}
	warnings = append(warnings, loadWarnings(entry)...)
	prefs := outcome.Apply(s.defaults, delta)
	warnings = append(warnings, recommendationWarnings(c, prefs)...)
	move, err := run.Start(c, in.Context, prefs)
	if err != nil {
		return beginning{}, engine.AsError(err)
	}
	return beginning{c: c, repo: repoPin(entry.Source), move: move, delta: delta, warnings: warnings, places: entry.RefPlaces}, nil
}

// repoPin is the repository and commit a workflow of src was read from;
// none for any other source.
func repoPin(src catalog.Source) event.RepoPin {
	if src.Kind != catalog.Repo {
		return event.RepoPin{}
	}
	return event.RepoPin{URL: src.Repo.URL, Commit: src.Repo.Commit}
}

// startRun appends a new session's first events: the session, what its
// workspace showed, then its first run.
func (s *Service) startRun(tx Tx, b beginning, workspace string, obs []event.ObservationRecordedData) (node, error) {
	if err := tx.PinWorkflow(b.c); err != nil {
		return node{}, err
	}
	created := &event.SessionCreatedData{CreatedAt: s.now().UTC().Format(time.RFC3339), WorkspacePath: workspace}
	if _, err := tx.Append(0, 0, created); err != nil {
		return node{}, err
	}
	for i := range obs {
		if _, err := tx.Append(0, 0, &obs[i]); err != nil {
			return node{}, err
		}
	}
	return s.addRun(tx, b, 0)
}

// addRun appends a run to the session of tx: the run pinned to its
// compiled workflow (which the caller has pinned), naming the run it
// restarts if any, the root node and the baseline preferences on it.
func (s *Service) addRun(tx Tx, b beginning, restartOf engine.RunID) (node, error) {
	rid, err := tx.NewRunID()
	if err != nil {
		return node{}, err
	}
	if _, err := tx.Append(rid, 0, &event.RunStartedData{WorkflowID: b.c.ID, WorkflowHash: b.c.Hash, RestartOf: restartOf, Repo: b.repo}); err != nil {
		return node{}, err
	}
	snap := b.move.Snapshot
	nid, err := appendNode(tx, rid, snap)
	if err != nil {
		return node{}, err
	}
	n := node{session: tx.Session(), run: rid, id: nid}
	if _, err := tx.Append(rid, nid, &event.PreferencesChangedData{Delta: b.delta, Effective: snap.Preferences}); err != nil {
		return n, err
	}
	for _, g := range moveGaps(b.move) {
		if _, err := tx.Append(rid, nid, &g); err != nil {
			return n, err
		}
	}
	return n, traceRecommendation(tx, n, b.c, snap.Preferences)
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

// loadWarnings are the entry's load warnings as a start shows them: a
// legacy file's rewrites, dozens in a large one and nothing the agent can
// act on, as one line that counts them.
func loadWarnings(entry catalog.Entry) []protocol.Warning {
	var ws []protocol.Warning
	rewrites := 0
	for _, n := range entry.Warnings {
		if n.Code == event.NoticeLegacyFormat {
			rewrites++
			continue
		}
		ws = append(ws, protocol.Warning{Code: n.Code, Message: n.Message})
	}
	if rewrites > 0 {
		ws = append(ws, protocol.Warning{Code: event.NoticeLegacyFormat, Message: fmt.Sprintf(
			"this workflow is written in the %s format and read with %d rewrites, each as its file meant (inspect_workflow lists them)",
			entry.Compiled.Dialect, rewrites)})
	}
	return ws
}
