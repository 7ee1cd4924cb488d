package execute

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/token"
	"github.com/workrail/workrail/engine/workflow"
)

// The Console's actions on a run: fork it at a node, restart it on the
// current version, hand a node to a chat. Each is built from the calls an
// agent makes and runs through their own paths (parse, check, record), so
// the Console never becomes a second way of executing a run.

// Place names one node of one run in one session: where a person acts
// from, and where an answer leaves the run.
type Place struct {
	Session engine.SessionID
	Run     engine.RunID
	Node    engine.NodeID
}

// forkAttemptGap is how far past a node's highest recorded attempt a fork
// from the Console numbers its own. Every ackToken ever handed out for a
// node names an attempt at most one past the highest recorded when it was
// handed out (a first answer hands out 0, a rehydrate the next unused one,
// a blocked answer its attempt plus one), and attempts are recorded once,
// answered from their record ever after. So the next unused number may
// already sit in a chat, unused (a rehydrate or a blocked answer handed it
// out, and rehydrates write nothing): were the fork to take it, that
// chat's acknowledgement would be answered with the fork's record and its
// own output dropped. Past the gap, only a chain of this many blocked
// retries in a row at one node could reach the fork's number. The numbers
// skipped stay free: a chat holding one records its attempt as usual, and
// rehydrates go on from the fork's number plus one.
const forkAttemptGap = project.ConsoleAttempts

// Fork starts a new branch at node at.Node whose step is pending again
// under edited: the node's context as a person edited it, a JSON object.
//
// A node with a parent is forked the way a rewound chat forks it: a
// continue_workflow call with the parent's stateToken and an ackToken of a
// fresh attempt (see forkAttemptGap), carrying the output the parent's
// step was acknowledged with when it made the node (its notes, artifacts
// and gap resolutions) and the context keys that differ from the parent's,
// run through Continue's own path. The answer is what that call answers:
// a step (or completion) on a new sibling branch; blocked, since the call
// runs under the parent's preferences and does not repeat a preference
// change the original acknowledgement made; or an error, with nothing
// written. Keys the parent's context has cannot be removed: a continue
// call merges its context over the parent's.
//
// The root has no parent: forking it starts a new run of the run's pinned
// version in the same session, with edited as its start context, that
// names the run it restarts.
//
// The Place is where the answer leaves the run: the new node, the node a
// blocked attempt stays at, or nothing for an error.
func (s *Service) Fork(ctx context.Context, at Place, edited []byte) (protocol.Result, Place) {
	r, err := s.fork(ctx, at, edited)
	return s.placed("fork", r, err)
}

// Restart starts run at.Run over as a new run in the same session, on the
// version its workflow id means now in the workspace the session was
// started in, with edited as its start context and the preferences the
// run started with; the new run names the run it restarts. at.Node is not
// read.
func (s *Service) Restart(ctx context.Context, at Place, edited []byte) (protocol.Result, Place) {
	r, err := s.again(ctx, at, edited, false)
	return s.placed("restart", r, err)
}

// Resume is what an agent gets that picks a run up at node at.Node with
// the node's stateToken alone: a rehydrate through Continue's own path,
// which writes nothing. Its stateToken is what a person hands a chat.
func (s *Service) Resume(ctx context.Context, at Place) protocol.Result {
	if at.Session == 0 || at.Run == 0 || at.Node == 0 {
		return protocol.NewError(unknownNode(at.Session))
	}
	st, err := s.keys.Mint(token.Claims{Kind: token.State, Key: s.keys.Active(), Session: at.Session, Run: at.Run, Node: at.Node})
	if err != nil {
		return s.answer("resume", nil, err)
	}
	raw, err := json.Marshal(protocol.ContinueArgs{StateToken: st})
	if err != nil {
		return s.answer("resume", nil, err)
	}
	return s.Continue(ctx, raw)
}

// placed answers like the tools and says where the answer left the run,
// read from its stateToken (minted by this service a moment ago).
func (s *Service) placed(op string, r protocol.Result, err error) (protocol.Result, Place) {
	r = s.answer(op, r, err)
	var st string
	switch v := r.(type) {
	case protocol.StepResult:
		st = v.StateToken
	case protocol.CompleteResult:
		st = v.StateToken
	case protocol.BlockedResult:
		st = v.StateToken
	default:
		return r, Place{}
	}
	c, err := s.keys.Parse(st, token.State)
	if err != nil {
		return s.answer(op, nil, err), Place{}
	}
	return r, Place{Session: c.Session, Run: c.Run, Node: c.Node}
}

// forkArgs are the continue_workflow arguments of a fork. Context is the
// edited text first (checked as sent), then only the keys that changed.
type forkArgs struct {
	StateToken string           `json:"stateToken"`
	AckToken   string           `json:"ackToken"`
	Context    any              `json:"context,omitempty"`
	Output     *protocol.Output `json:"output,omitempty"`
}

func (s *Service) fork(ctx context.Context, at Place, edited []byte) (protocol.Result, error) {
	sent, err := contextArgument(edited)
	if err != nil {
		return nil, err
	}
	if err := s.checkHealth(at.Session); err != nil {
		return nil, err
	}
	var args forkArgs
	var parentContext map[string]any
	root := false
	err = s.store.View(at.Session, func(tx ReadTx) error {
		l, err := s.load(tx, node{session: at.Session, run: at.Run, id: at.Node})
		if err != nil {
			return err
		}
		if root = l.info.Parent == 0; root {
			return nil
		}
		parent := node{session: at.Session, run: at.Run, id: l.info.Parent}
		p, err := s.load(tx, parent)
		if err != nil {
			return err
		}
		if args.Output, err = ackOutput(tx, p, l.info); err != nil {
			return err
		}
		toks, err := s.tokens(parent, p.info.Attempts+forkAttemptGap, s.keys.Active())
		args.StateToken, args.AckToken, parentContext = toks.State, toks.Ack, p.snap.Context
		return err
	})
	if err != nil {
		return nil, err
	}
	if root {
		return s.again(ctx, at, edited, true)
	}
	// The edited context as sent passes the tools' own boundary checks
	// first (one JSON object, storable values, no key twice), so their
	// errors point into what the person wrote.
	args.Context = sent
	in, e := protocol.ParseContinue(mustJSON(args))
	if e != nil {
		return nil, e
	}
	changed, e := changedContext(parentContext, in.Context)
	if e != nil {
		return nil, e
	}
	args.Context = nil
	if len(changed) > 0 {
		args.Context = changed
	}
	return s.cont(ctx, mustJSON(args), event.OriginConsole)
}

// ackOutput is the output of the acknowledgement at parent p that made
// node n: its record comes just before n's node_created, in the same
// transaction, and what it carried was recorded on n (notes and artifacts
// as n's output for p's step, gap resolutions as gap records naming the
// gap they resolve; nothing else records either on n).
func ackOutput(tx ReadTx, p loaded, n project.Node) (*protocol.Output, error) {
	rec, err := tx.Event(n.CreatedAt - 1)
	if err != nil {
		return nil, corrupt(tx.Session(), err)
	}
	if d, ok := rec.Data.(*event.AdvanceRecordedData); !ok || rec.Node != p.info.ID || d.ToNode != n.ID {
		return nil, corrupt(tx.Session(), fmt.Errorf("event %d is not the attempt at %s that made %s", rec.Index, p.info.ID, n.ID))
	}
	step := p.snap.Position.Step
	var out protocol.Output
	for _, i := range n.Outputs {
		e, err := tx.Event(i)
		if err != nil {
			return nil, corrupt(tx.Session(), err)
		}
		if d, ok := e.Data.(*event.NodeOutputAppendedData); ok && d.StepID == step {
			out.NotesMarkdown, out.Artifacts, out.SupersedesOutputID = d.NotesMarkdown, d.Artifacts, d.Supersedes
			break
		}
	}
	for _, i := range n.Gaps {
		e, err := tx.Event(i)
		if err != nil {
			return nil, corrupt(tx.Session(), err)
		}
		if d, ok := e.Data.(*event.GapRecordedData); ok && d.ResolvesGapID != "" {
			out.ResolvesGaps = append(out.ResolvesGaps, protocol.GapResolution{GapID: d.ResolvesGapID, Summary: d.Summary})
		}
	}
	if out.NotesMarkdown == "" && len(out.Artifacts) == 0 && len(out.ResolvesGaps) == 0 {
		return nil, nil
	}
	return &out, nil
}

// changedContext is what a continue call must send so that the context of
// the node it makes is edited: the keys whose value differs from the
// parent's. A key of the parent's missing from edited cannot be sent:
// context is merged over the parent's, never cut.
func changedContext(parent, edited map[string]any) (map[string]any, *engine.Error) {
	for _, k := range slices.Sorted(maps.Keys(parent)) {
		if _, ok := edited[k]; !ok {
			return nil, engine.Errorf(engine.CodeInvalidInput,
				"context.%s cannot be removed here: the step before this node already had it, and a fork keeps its context and sets values over it. Give it another value instead.", k).
				With("pointer", "/context/"+k)
		}
	}
	out := map[string]any{}
	for k, v := range edited {
		if pv, ok := parent[k]; !ok || !workflow.SameValue(pv, mustJSON(v)) {
			out[k] = v
		}
	}
	return out, nil
}

// again starts run at.Run over in its session with edited as the start
// context and the preferences the run started with: on its pinned version,
// or on what its workflow id means now.
func (s *Service) again(ctx context.Context, at Place, edited []byte, pinned bool) (protocol.Result, error) {
	sent, err := contextArgument(edited)
	if err != nil {
		return nil, err
	}
	if err := s.checkHealth(at.Session); err != nil {
		return nil, err
	}
	var args protocol.StartInput
	var pin engine.WorkflowHash
	err = s.store.View(at.Session, func(tx ReadTx) error {
		r, err := tx.Run(at.Run)
		if err != nil {
			return unknownNode(at.Session)
		}
		root, err := s.load(tx, node{session: at.Session, run: at.Run, id: r.Root})
		if err != nil {
			return err
		}
		prefs := root.snap.Preferences
		args = protocol.StartInput{WorkflowID: r.WorkflowID, Preferences: &prefs}
		if pinned {
			pin = r.WorkflowHash
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	raw := mustJSON(struct {
		protocol.StartInput
		Context json.RawMessage `json:"context"`
	}{args, sent})
	return s.startIn(ctx, at.Session, raw, at.Run, pin, event.OriginConsole)
}

// startIn starts a run in existing session sid, as start without a
// stateToken starts one in a new session: raw are start_workflow's arguments, checked the
// same way, with the same warnings, and no session_created is written.
// The workflow is what its id means now in the catalog of the workspace
// the session was started in, or, when pin is set, that pinned version
// (whose id must be the one raw names). The run pins its compiled
// workflow, and names restartOf, a run of the session (the log's fold
// refuses any other), as the run it starts over. origin is who asked.
func (s *Service) startIn(ctx context.Context, sid engine.SessionID, raw []byte, restartOf engine.RunID, pin engine.WorkflowHash, origin event.Origin) (protocol.Result, error) {
	in, e := protocol.ParseStart(raw)
	if e != nil {
		return nil, e
	}
	in, secrets := s.redactStart(in)
	workspace, err := s.workspace(sid)
	if err != nil {
		return nil, err
	}
	if in.WorkspacePath != "" && in.WorkspacePath != workspace {
		return nil, engine.Errorf(engine.CodeInvalidInput,
			"session %s was started in workspace %q; a run in it starts there too, not in %q.", sid, workspace, in.WorkspacePath).
			With("pointer", "/workspacePath")
	}
	var entry catalog.Entry
	var from event.RepoPin // a pinned version's repository: the run restarted's
	if pin == (engine.WorkflowHash{}) {
		cat := s.workflows.Catalog(workspace)
		var ok bool
		if entry, ok = cat.Get(in.WorkflowID); !ok {
			return nil, unknownWorkflow(cat, in.WorkflowID)
		}
	} else {
		read := func(tx ReadTx) (err error) {
			if r, err := tx.Run(restartOf); err == nil && r.WorkflowHash == pin {
				from = r.Repo
			}
			entry.Compiled, err = s.pinnedWorkflow(tx, pin)
			return err
		}
		if err := s.store.View(sid, read); err != nil {
			return nil, err
		}
		if entry.Compiled.ID != in.WorkflowID {
			return nil, engine.Errorf(engine.CodeInvalidInput, "the version pinned as %s is %s, not %s.", pin, entry.Compiled.ID, in.WorkflowID).
				With("pointer", "/workflowId")
		}
	}
	b, e := s.begin(in, entry)
	if e != nil {
		return nil, e
	}
	if pin != (engine.WorkflowHash{}) {
		b.repo = from
	}
	b.warnings = append(secrets, b.warnings...)
	once := startOnce(ctx, protocol.ToolStart, raw)
	update := func(fn func(Tx) error) error { return s.store.Update(sid, s.writing(ctx, origin, fn)) }
	r, err := inTx(update, func(tx Tx) (reply, error) {
		if err := once.unused(tx); err != nil {
			return reply{}, err
		}
		if err := tx.PinWorkflow(b.c); err != nil {
			return reply{}, err
		}
		n, err := s.addRun(tx, b, restartOf)
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

// workspace is the workspace session sid was started in, after checking
// the session can be run.
func (s *Service) workspace(sid engine.SessionID) (string, error) {
	if err := s.checkHealth(sid); err != nil {
		return "", err
	}
	var ws string
	err := s.store.View(sid, func(tx ReadTx) error {
		e, err := tx.Event(1)
		if err != nil {
			return corrupt(sid, err)
		}
		d, ok := e.Data.(*event.SessionCreatedData)
		if !ok {
			return corrupt(sid, errors.New("its first event is not session_created"))
		}
		ws = d.WorkspacePath
		return nil
	})
	return ws, err
}

// contextArgument is a context a person wrote, as the JSON value of a
// call's context argument: empty text is an empty object, and text that
// is not JSON is refused where it stops being JSON. The call's own parse
// checks the rest.
func contextArgument(text []byte) (json.RawMessage, error) {
	text = bytes.TrimSpace(text)
	if len(text) == 0 {
		return json.RawMessage("{}"), nil
	}
	var v json.RawMessage // only checked as JSON: values are left to the call's parse
	var syntax *json.SyntaxError
	if err := json.Unmarshal(text, &v); errors.As(err, &syntax) {
		line, col := lineCol(text, syntax.Offset)
		return nil, engine.Errorf(engine.CodeInvalidInput, "context is not valid JSON: %v at line %d, column %d.", err, line, col).
			With("pointer", "/context").With("line", line).With("column", col)
	}
	return v, nil
}

// lineCol is the line and column (from 1, in bytes) where the byte at
// offset ends: a JSON syntax error's offset is just past what it read.
func lineCol(text []byte, offset int64) (line, col int) {
	before := text[:min(max(offset-1, 0), int64(len(text)))]
	line = bytes.Count(before, []byte("\n")) + 1
	return line, len(before) - bytes.LastIndexByte(before, '\n')
}

// mustJSON encodes what this package built from values it checked: it
// cannot fail.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("execute: encode %T: %v", v, err))
	}
	return b
}
