package execute

import (
	"fmt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/token"
	"github.com/workrail/workrail/engine/workflow"
)

// moveFacts is what a result reports besides the node itself: what the
// move passed over, the gaps it recorded, and the recap or branches to
// show.
type moveFacts struct {
	skipped    []event.Skip
	gaps       []protocol.Gap
	recap      *project.PathRecap
	fork       *event.Fork
	checkpoint *protocol.Checkpointed
	// rules: the run starts or is rehydrated here, so the answer shows
	// the workflow's rules and references, with where those read from the
	// workflow's package are (places, from the catalog entry).
	rules  bool
	places []catalog.RefPlace
	// open: the run is complete here, and these gaps of its path are
	// still open (worst first), for the answer to name.
	open []project.GapState
	// rehydrate: the answer re-reads the node and wrote nothing.
	rehydrate bool
}

// reply is what an answer is rendered from, gathered in the transaction
// that read or wrote it: the node the answer leaves the run at, with its
// snapshot and pinned workflow; the attempt its ackToken names and the key
// its tokens are minted with; what the move recorded; and, for a blocked
// attempt, its blockers. A use case renders it (render) only after that
// transaction has ended: a write commits its facts first, and no writer
// is held while tokens are minted and text is built.
type reply struct {
	l        loaded
	n        node
	attempt  engine.Attempt
	kid      token.KeyID
	facts    moveFacts
	warnings []protocol.Warning
	// blocked: the attempt was blocked; the step stays pending, and the
	// answer hands out attempt+1 for the retry.
	blocked  bool
	blockers []event.Blocker
}

// rendered renders r once its transaction has ended.
func (s *Service) rendered(r reply, err error) (protocol.Result, error) {
	if err != nil {
		return nil, err
	}
	return s.render(r)
}

// fromRecord gathers the answer of a recorded attempt from the record
// (and the node it created): the first answer and every replay take this
// same path, so they are byte-identical. added are warnings a replay shows
// after the recorded ones: never recorded, they are that replay's own.
func (s *Service) fromRecord(tx ReadTx, from node, rec event.Event, added []protocol.Warning) (reply, error) {
	d, ok := rec.Data.(*event.AdvanceRecordedData)
	if !ok {
		return reply{}, fmt.Errorf("execute: replay: event %d is %s, not advance_recorded", rec.Index, rec.Kind)
	}
	warnings := append(protocol.Warnings(d.Notices), added...)
	if d.Outcome == event.OutcomeBlocked {
		l, err := s.load(tx, from)
		return reply{l: l, n: from, attempt: d.Attempt + 1, kid: token.KeyID(d.KeyID), warnings: warnings, blocked: true, blockers: d.Blockers}, err
	}
	to := node{session: from.session, run: from.run, id: d.ToNode}
	l, err := s.load(tx, to)
	if err != nil {
		return reply{}, err
	}
	return fresh(tx, l, to, token.KeyID(d.KeyID), moveFacts{skipped: d.Skipped, fork: d.Fork}, warnings)
}

// fresh gathers the answer on a node just created (by start or an
// advance), with the gaps recorded on it.
func fresh(tx ReadTx, l loaded, n node, kid token.KeyID, facts moveFacts, warnings []protocol.Warning) (reply, error) {
	info := l.info
	if info.ID != n.id { // a start's loaded holds no node yet
		var err error
		if info, err = tx.Node(n.id); err != nil {
			return reply{}, err
		}
	}
	gaps, err := project.GapsOn(tx, info)
	if err != nil {
		return reply{}, err
	}
	for _, g := range gaps {
		facts.gaps = append(facts.gaps, protocol.Gap{GapID: g.ID, CreatedAtEventIndex: g.CreatedAt, GapRecordedData: g.Gap})
	}
	if facts.open, err = openAt(tx, l.snap, info); err != nil {
		return reply{}, err
	}
	return reply{l: l, n: n, kid: kid, facts: facts, warnings: warnings}, nil
}

// openAt is, for a run complete at node info, the gaps its path leaves
// open, as of the last event that touched the node (so the first answer,
// its replays and a rehydrate name the same ones), read from the run's
// projection; none while a step is pending.
func openAt(tx ReadTx, snap run.Snapshot, info project.Node) ([]project.GapState, error) {
	if snap.Position.Kind == run.Pending {
		return nil, nil
	}
	return project.OpenOnPathOf(tx, tx, info.Run, info.ID, info.LastActivity)
}

// render builds the result of r: for a blocked attempt, the same pending
// step with a fresh attempt for the retry and the recorded blockers;
// otherwise the pending step with tokens for r's attempt, or completion.
func (s *Service) render(r reply) (protocol.Result, error) {
	toks, err := s.tokens(r.n, r.attempt, r.kid)
	if err != nil {
		return nil, err
	}
	l := r.l
	v := s.view(l, r.n, toks, r.warnings)
	place, pending := run.PendingStep(l.c, l.snap)
	if r.blocked {
		v.Ask = askAt(l, place)
		p, err := pendingOf(l, place)
		if err != nil {
			return nil, err
		}
		return protocol.NewBlocked(v, p, r.blockers), nil
	}
	f := r.facts
	v.Skipped, v.Recap, v.Fork, v.Gaps, v.Checkpoint, v.Rehydrate = f.skipped, f.recap, f.fork, f.gaps, f.checkpoint, f.rehydrate
	v.OpenGaps = openGaps(l, f.open)
	if f.rules {
		v.Rules, v.References = l.c.MetaGuidance, references(l.c.References, f.places)
	}
	if !pending {
		return protocol.NewComplete(v), nil
	}
	v.Ask = askAt(l, place)
	p, err := pendingOf(l, place)
	if err != nil {
		return nil, err
	}
	return protocol.NewStep(v, p, protocol.Progress{Part: l.snap.Position.Path[0].Index + 1, Parts: len(l.c.Steps)}), nil
}

// references are a workflow's references as the agent is shown them,
// each read from the package with its place, when one was looked for.
func references(refs []workflow.Reference, places []catalog.RefPlace) []protocol.Reference {
	var out []protocol.Reference
	for _, r := range refs {
		ref := protocol.Reference{Reference: r}
		for _, p := range places {
			if p.ID == r.ID {
				ref.Path, ref.LookedIn = p.Path, p.LookedIn
			}
		}
		out = append(out, ref)
	}
	return out
}

// openGaps are the gaps a complete answer names, each with the title of
// the step it is about.
func openGaps(l loaded, open []project.GapState) []protocol.OpenGap {
	var out []protocol.OpenGap
	for _, g := range open {
		o := protocol.OpenGap{Gap: protocol.Gap{GapID: g.ID, CreatedAtEventIndex: g.CreatedAt, GapRecordedData: g.Gap}}
		if st, ok := l.c.Step(g.Gap.RelatedStepID); ok {
			o.StepTitle = st.Title
		}
		out = append(out, o)
	}
	return out
}

func (s *Service) view(l loaded, n node, toks protocol.Tokens, ws []protocol.Warning) protocol.View {
	return protocol.View{
		Workflow:    protocol.WorkflowRef{ID: l.c.ID, Name: l.c.Name, Hash: l.c.Hash},
		Session:     protocol.SessionRef{SessionID: n.session, RunID: n.run},
		Preferences: l.snap.Preferences, Tokens: toks, Warnings: ws, OfferCheckpoint: s.features.CheckpointWorkflow,
	}
}

// tokens mints the handles of node n; a complete node gets only a state
// token.
func (s *Service) tokens(n node, attempt engine.Attempt, kid token.KeyID) (protocol.Tokens, error) {
	claims := token.Claims{Kind: token.State, Key: kid, Session: n.session, Run: n.run, Node: n.id}
	var t protocol.Tokens
	var err error
	if t.State, err = s.keys.Mint(claims); err != nil {
		return t, err
	}
	claims.Kind, claims.Attempt = token.Ack, attempt
	if t.Ack, err = s.keys.Mint(claims); err != nil {
		return t, err
	}
	claims.Kind = token.Checkpoint
	t.Checkpoint, err = s.keys.Mint(claims)
	return t, err
}

// pendingOf renders pending step p of node l: start, advance, rehydrate
// and replay all take this path, so they say the same thing. Its user
// dependency is what the step needs of the user there: the one it
// declares, or the confirmation it asks. A step that would render past
// the limit of a prompt is its PAYLOAD_TOO_LARGE error.
func pendingOf(l loaded, p run.Place) (protocol.Pending, error) {
	st := p.Step
	r, err := run.Render(l.c, l.snap, p)
	return protocol.Pending{StepID: st.ID, Title: r.Title, Prompt: r.Prompt, RequireConfirmation: r.RequireConfirmation,
		Loops: p.Loops, UserDependency: needAt(l, p).Dependency()}, err
}

func needAt(l loaded, p run.Place) outcome.UserNeed { return run.Need(p.Step, run.Scope(l.c, l.snap)) }

// askAt is what the next call at pending step p of node l asks the agent
// to write, in the node's mode.
func askAt(l loaded, p run.Place) outcome.Ask {
	return outcome.AskOf(l.c, p.Step, l.snap.Preferences.Autonomy, needAt(l, p))
}
