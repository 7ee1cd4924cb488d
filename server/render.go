package server

import (
	"encoding/json"
	"fmt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/token"
	"github.com/workrail/workrail/store"
)

// moveFacts is what a result reports besides the node itself: what the
// move passed over, the gaps it recorded, and the recap or branches to
// show.
type moveFacts struct {
	skipped []event.Skip
	gaps    []protocol.Gap
	recap   *event.Recap
	fork    *event.Fork
}

// fromRecord renders the response of a recorded attempt from the record
// (and the node it created): the first answer and every replay take this
// same path, so they are byte-identical.
func (x *Executor) fromRecord(tx *store.Tx, from node, rec event.Event) protocol.Result {
	d, ok := rec.Data.(*event.AdvanceRecordedData)
	if !ok {
		return x.internal("replay", fmt.Errorf("event %d is %s, not advance_recorded", rec.Index, rec.Kind))
	}
	ws := d.Notices
	if d.Outcome == event.OutcomeBlocked {
		return x.renderBlocked(tx, from, d, ws)
	}
	to := node{session: from.session, run: from.run, id: d.ToNode}
	_, c, snap, e := x.load(tx, to)
	if e != nil {
		return protocol.NewError(e)
	}
	return x.renderFresh(tx, c, snap, to, token.KeyID(d.KeyID), moveFacts{skipped: d.Skipped, fork: d.Fork}, ws...)
}

// renderFresh renders a node just created (by start or an advance), with
// the gaps recorded on it.
func (x *Executor) renderFresh(tx *store.Tx, c compile.Compiled, snap run.Snapshot, n node, kid token.KeyID, facts moveFacts, warnings ...protocol.Warning) protocol.Result {
	info, err := tx.Node(n.id)
	if err != nil {
		return x.internal("render", err)
	}
	if facts.gaps, err = gapsOf(tx, info); err != nil {
		return x.internal("render", err)
	}
	return x.render(c, snap, n, 0, kid, facts, warnings...)
}

func gapsOf(tx *store.Tx, info store.NodeInfo) ([]protocol.Gap, error) {
	var out []protocol.Gap
	for _, i := range info.Gaps {
		ev, err := tx.Event(i)
		if err != nil {
			return nil, err
		}
		out = append(out, protocol.Gap{GapID: ev.ID, CreatedAtEventIndex: ev.Index, GapRecordedData: *ev.Data.(*event.GapRecordedData)})
	}
	return out, nil
}

// renderBlocked answers a blocked attempt: the same node and pending step,
// a fresh attempt for the retry, the recorded blockers.
func (x *Executor) renderBlocked(tx *store.Tx, n node, d *event.AdvanceRecordedData, ws []protocol.Warning) protocol.Result {
	_, c, snap, e := x.load(tx, n)
	if e != nil {
		return protocol.NewError(e)
	}
	kid := token.KeyID(d.KeyID)
	toks, err := x.tokens(n, d.Attempt+1, kid)
	if err != nil {
		return x.internal("mint", err)
	}
	place, _ := run.PendingStep(c, snap)
	v := x.view(c, snap, n, toks, ws)
	v.Examples = examples(c, place.Step, true)
	return protocol.NewBlocked(v, pendingOf(place), d.Blockers)
}

// render builds the result for node n at snapshot snap: the pending step
// with tokens for the given attempt, or completion.
func (x *Executor) render(c compile.Compiled, snap run.Snapshot, n node, attempt engine.Attempt, kid token.KeyID, facts moveFacts, warnings ...protocol.Warning) protocol.Result {
	toks, err := x.tokens(n, attempt, kid)
	if err != nil {
		return x.internal("mint", err)
	}
	v := x.view(c, snap, n, toks, warnings)
	v.Skipped, v.Recap, v.Fork, v.Gaps = facts.skipped, facts.recap, facts.fork, facts.gaps
	place, pending := run.PendingStep(c, snap)
	if !pending {
		return protocol.NewComplete(v)
	}
	v.Examples = examples(c, place.Step, false)
	return protocol.NewStep(v, pendingOf(place), protocol.Progress{Part: snap.Position.Path[0].Index + 1, Parts: len(c.Steps)})
}

func (x *Executor) view(c compile.Compiled, snap run.Snapshot, n node, toks protocol.Tokens, ws []protocol.Warning) protocol.View {
	return protocol.View{
		Workflow:    protocol.WorkflowRef{ID: c.ID, Name: c.Name, Hash: c.Hash},
		Session:     protocol.SessionRef{SessionID: n.session, RunID: n.run},
		Preferences: snap.Preferences, Tokens: toks, Warnings: ws,
	}
}

// tokens mints the handles of node n; a complete node gets only a state
// token.
func (x *Executor) tokens(n node, attempt engine.Attempt, kid token.KeyID) (protocol.Tokens, error) {
	claims := token.Claims{Kind: token.State, Key: kid, Session: n.session, Run: n.run, Node: n.id}
	var t protocol.Tokens
	var err error
	if t.State, err = x.keys.Mint(claims); err != nil {
		return t, err
	}
	claims.Kind, claims.Attempt = token.Ack, attempt
	if t.Ack, err = x.keys.Mint(claims); err != nil {
		return t, err
	}
	claims.Kind = token.Checkpoint
	t.Checkpoint, err = x.keys.Mint(claims)
	return t, err
}

func pendingOf(p run.Place) protocol.Pending {
	s := p.Step
	return protocol.Pending{StepID: s.ID, Title: s.Title, Prompt: s.Prompt, RequireConfirmation: s.RequireConfirmation,
		Loops: p.Loops, UserDependency: s.UserDependency}
}

// examples are the artifacts a step's next call should carry: its
// required output's example and, for a retry after a block, the user
// response its user-only dependency waits for.
func examples(c compile.Compiled, s *compile.Step, retry bool) []json.RawMessage {
	var out []json.RawMessage
	if ex := outcome.OutputExample(c, s); ex != nil {
		out = append(out, ex)
	}
	if retry && s.UserDependency != nil {
		out = append(out, json.RawMessage(outcome.UserResponseExample(s.UserDependency)))
	}
	return out
}
