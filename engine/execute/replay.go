package execute

import (
	"bytes"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/canon"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/run"
)

// replay answers an attempt already recorded, from its record, as it
// first answered. The output a call carries is recorded only by the
// attempt it makes, so a spent ackToken sent with an output other than
// the one its attempt recorded loses that output: the answer then warns,
// with the rehydrate that hands out a fresh ackToken to record it with.
// The same output (or none) adds nothing, and the replay is the first
// answer byte for byte.
//
// Only an advanced attempt is compared. A blocked one recorded no output
// at all, and its answer already says nothing advanced and hands out the
// next attempt to send the output with (itself a replay, compared in
// turn, if spent).
func (s *Service) replay(tx ReadTx, n node, rec event.Event, in protocol.ContinueInput) (reply, error) {
	var added []protocol.Warning
	if d, ok := rec.Data.(*event.AdvanceRecordedData); ok && d.Outcome == event.OutcomeAdvanced && !emptyOutput(in.Output) {
		recorded, err := s.recordedOutput(tx, n, d.ToNode)
		if err != nil {
			return reply{}, err
		}
		sent, err := s.kept(tx, n, *in.Output)
		if err != nil {
			return reply{}, err
		}
		if !sameOutput(recorded, sent) {
			added = append(added, protocol.OutputIgnoredOnReplay(in.StateToken))
		}
	}
	return s.fromRecord(tx, n, rec, added)
}

// recordedOutput is the output the attempt at n that made node child
// recorded, read back from what its transaction wrote (nil for none).
func (s *Service) recordedOutput(tx ReadTx, n node, child engine.NodeID) (*protocol.Output, error) {
	p, err := s.load(tx, n)
	if err != nil {
		return nil, err
	}
	info, err := tx.Node(child)
	if err != nil {
		return nil, corrupt(n.session, err)
	}
	return ackOutput(tx, p, info)
}

// kept is what of output the attempt at n would record: never what still
// holds WorkRail's template, which the attempt left out.
func (s *Service) kept(tx ReadTx, n node, out protocol.Output) (*protocol.Output, error) {
	l, err := s.load(tx, n)
	if err != nil {
		return nil, err
	}
	if place, ok := run.PendingStep(l.c, l.snap); ok {
		out.NotesMarkdown, out.Artifacts = outcome.Kept(askAt(l, place), out.NotesMarkdown, out.Artifacts)
	}
	if emptyOutput(&out) {
		return nil, nil // as the attempt recorded it: nothing
	}
	return &out, nil
}

// emptyOutput is an output that records nothing, like none: there is
// nothing in it to lose.
func emptyOutput(o *protocol.Output) bool {
	return o == nil || (o.NotesMarkdown == "" && len(o.Artifacts) == 0 && len(o.ResolvesGaps) == 0)
}

// sameOutput compares two outputs by their canonical JSON (RFC 8785), so
// key order, spacing and number spelling inside artifacts never make them
// differ. Outputs that cannot be canonicalised count as different: the
// warning that follows costs a rehydrate, silence would cost the output.
func sameOutput(a, b *protocol.Output) bool {
	ca, errA := canon.JSON(a)
	cb, errB := canon.JSON(b)
	return errA == nil && errB == nil && bytes.Equal(ca, cb)
}
