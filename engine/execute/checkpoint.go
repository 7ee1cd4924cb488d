package execute

import (
	"context"
	"errors"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/token"
)

// Checkpoint records the agent's recap at the node its stateToken names
// without advancing: a checkpoint node with that node's snapshot, linked
// from it, carrying the notes. The answer is the same pending step at the
// checkpoint node, with its tokens, so the agent carries on from there
// (the run's preferred tip now). The same (stateToken, checkpointToken)
// again creates nothing and answers as the first time.
func (s *Service) Checkpoint(ctx context.Context, raw []byte) protocol.Result {
	r, err := s.checkpoint(ctx, raw)
	return s.about(s.answer("checkpoint", r, s.replacement(err, raw)), raw)
}

func (s *Service) checkpoint(ctx context.Context, raw []byte) (protocol.Result, error) {
	in, e := protocol.ParseCheckpoint(raw)
	if e != nil {
		return nil, badArguments(protocol.ToolCheckpoint, raw, e)
	}
	st, err := s.keys.Parse(in.StateToken, token.State)
	if err != nil {
		return nil, engine.AsError(err).With("pointer", "/stateToken")
	}
	n := node{session: st.Session, run: st.Run, id: st.Node}
	if err := s.checkHealth(n.session); err != nil {
		return nil, err
	}
	// A checkpointToken that does not fit the stateToken is fixed the way
	// a bad ackToken is: re-reading the step hands out the one that fits.
	chk, err := s.keys.Parse(in.CheckpointToken, token.Checkpoint)
	if err != nil {
		return nil, rehydrateFix(engine.AsError(err).With("pointer", "/checkpointToken"), in.StateToken)
	}
	if err := token.CheckScope(st, chk); err != nil {
		return nil, rehydrateFix(engine.AsError(err), in.StateToken)
	}
	in, secrets := s.redactCheckpoint(in)
	update := func(fn func(Tx) error) error { return s.store.Update(n.session, s.writing(ctx, event.OriginAgent, fn)) }
	return s.rendered(inTx(update, func(tx Tx) (reply, error) {
		l, err := s.load(tx, n)
		if err != nil {
			return reply{}, err
		}
		done, err := checkpointOf(tx, l.info, chk.Attempt)
		if err == nil {
			return s.replayCheckpoint(tx, n, done, *in.Output, secrets)
		}
		if !errors.Is(err, engine.ErrNotFound) {
			return reply{}, err
		}
		place, pending := run.PendingStep(l.c, l.snap)
		if !pending {
			return reply{}, engine.Errorf(engine.CodeInvalidInput,
				"this run is complete, so there is no step to checkpoint and nothing was recorded. Start a new run with start_workflow for further work.")
		}
		if err := checkSupersedes(tx, n.session, l.info, in.Output.SupersedesOutputID, true); err != nil {
			return reply{}, err
		}
		edge := event.EdgeCreatedData{EdgeKind: event.EdgeCheckpoint, From: n.id, Attempt: chk.Attempt, KeyID: uint32(s.keys.Active())}
		notes := &event.NodeOutputAppendedData{StepID: place.Step.ID, NotesMarkdown: in.Output.NotesMarkdown, Supersedes: in.Output.SupersedesOutputID}
		if edge.To, err = appendCheckpoint(tx, l, n, edge, notes); err != nil {
			return reply{}, err
		}
		return s.checkpointed(tx, n, edge, secrets)
	}))
}

// recordedCheckpoint is a checkpoint already taken: its edge, and the
// output it recorded.
type recordedCheckpoint struct {
	edge event.EdgeCreatedData
	out  protocol.CheckpointOutput
}

// appendCheckpoint appends a checkpoint's three events, in this order and
// together: the node (the parent's snapshot: nothing advances), the edge
// to it, and its notes. checkpointOf reads them back in this layout.
func appendCheckpoint(tx Tx, l loaded, n node, edge event.EdgeCreatedData, out *event.NodeOutputAppendedData) (engine.NodeID, error) {
	child, err := tx.NewNodeID()
	if err != nil {
		return 0, err
	}
	if _, err := tx.Append(n.run, child, &event.NodeCreatedData{NodeKind: event.NodeCheckpoint, Snapshot: l.info.Snapshot}); err != nil {
		return 0, err
	}
	edge.To = child
	if _, err := tx.Append(n.run, child, &edge); err != nil {
		return 0, err
	}
	_, err = tx.Append(n.run, child, out)
	return child, err
}

// checkpointOf finds the checkpoint taken at parent with the
// checkpointToken of attempt a: a checkpoint child whose edge names that
// attempt. It is not found (engine.ErrNotFound) when there is none yet.
func checkpointOf(tx ReadTx, parent project.Node, a engine.Attempt) (recordedCheckpoint, error) {
	for _, id := range parent.Children {
		child, err := tx.Node(id)
		if err != nil {
			return recordedCheckpoint{}, err
		}
		if child.Kind != event.NodeCheckpoint {
			continue
		}
		cp, err := readCheckpoint(tx, child)
		if err != nil {
			return cp, err
		}
		if cp.edge.Attempt == a {
			return cp, nil
		}
	}
	return recordedCheckpoint{}, engine.ErrNotFound
}

// readCheckpoint reads a checkpoint node's edge and notes, which follow
// its node_created (appendCheckpoint's layout).
func readCheckpoint(tx ReadTx, child project.Node) (recordedCheckpoint, error) {
	var cp recordedCheckpoint
	ev, err := tx.Event(child.CreatedAt + 1)
	if err != nil {
		return cp, err
	}
	edge, ok := ev.Data.(*event.EdgeCreatedData)
	if !ok || edge.To != child.ID || edge.EdgeKind != event.EdgeCheckpoint || len(child.Outputs) == 0 {
		return cp, corrupt(tx.Session(), errors.New("checkpoint "+child.ID.String()+" lacks its edge or notes"))
	}
	cp.edge = *edge
	out, err := tx.Event(child.Outputs[0])
	if err != nil {
		return cp, err
	}
	if d, ok := out.Data.(*event.NodeOutputAppendedData); ok {
		cp.out = protocol.CheckpointOutput{NotesMarkdown: d.NotesMarkdown, SupersedesOutputID: d.Supersedes}
	}
	return cp, nil
}

// replayCheckpoint answers a checkpointToken already used as it first
// answered; an output other than the recorded one (notes, or the output
// they replace) is not recorded, and the answer says so (that answer
// only: it is never recorded). Notes are compared redacted, and the
// redaction's warning (never recorded either) is shown again, so the
// same call answers the same bytes.
func (s *Service) replayCheckpoint(tx ReadTx, n node, cp recordedCheckpoint, out protocol.CheckpointOutput, secrets []protocol.Warning) (reply, error) {
	added := secrets
	if out != cp.out {
		added = append(added, protocol.CheckpointIgnoredOnReplay())
	}
	return s.checkpointed(tx, n, cp.edge, added)
}

// checkpointed gathers a checkpoint's answer from what it recorded: the
// pending step at the checkpoint node, its first attempt's tokens minted
// with the recorded key, and the id of the notes it keeps.
func (s *Service) checkpointed(tx ReadTx, from node, edge event.EdgeCreatedData, added []protocol.Warning) (reply, error) {
	to := node{session: from.session, run: from.run, id: edge.To}
	l, err := s.load(tx, to)
	if err != nil {
		return reply{}, err
	}
	if len(l.info.Outputs) == 0 {
		return reply{}, corrupt(from.session, errors.New("checkpoint "+to.id.String()+" lacks its notes"))
	}
	cp := &protocol.Checkpointed{NodeID: to.id, OutputID: engine.NewEventID(from.session, l.info.Outputs[0])}
	return reply{l: l, n: to, kid: token.KeyID(edge.KeyID), facts: moveFacts{checkpoint: cp}, warnings: added}, nil
}
