package execute

import (
	"context"
	"errors"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/canon"
	"github.com/workrail/workrail/engine/protocol"
)

// A start is not idempotent: the same call twice is two runs, by design
// (an agent may mean it). But a start whose daemon went away after its
// commit and before its answer reached the client has made a run nobody
// holds the tokens of; sent again, it would make a second and leave the
// first behind. So a start that comes with a retry key (one the shim
// minted for that call, sent again unchanged with it: protocol.RetryKey)
// is recorded under it in its transaction, and the same call sent again
// is answered with the run it made, not started anew.

// onceKey is what a start under a retry key is recorded under; zero for a
// call that came with none (over plain HTTP, or from the Console), which
// starts every time.
type onceKey struct {
	key StartKey
	set bool
}

// startOnce is the key of a call of tool with arguments raw, from the
// retry key ctx carries.
func startOnce(ctx context.Context, tool protocol.ToolName, raw []byte) onceKey {
	k := protocol.RetryKey(ctx)
	if k == "" {
		return onceKey{}
	}
	b := append(append(append(append([]byte(tool), 0), k...), 0), raw...)
	return onceKey{key: StartKey(engine.Sum(b)), set: true}
}

// startedBefore rolls back a start made before under the same key; the
// run it made is the answer.
type startedBefore struct{ run Started }

func (startedBefore) Error() string { return "execute: this start was made before" }

// unused refuses, with startedBefore, a start whose key has a run.
func (o onceKey) unused(tx Tx) error {
	if !o.set {
		return nil
	}
	r, ok, err := tx.StartedBy(o.key)
	if err != nil || !ok {
		return err
	}
	return startedBefore{r}
}

// record notes that the start under o made n's run.
func (o onceKey) record(tx Tx, n node) error {
	if !o.set {
		return nil
	}
	return tx.RecordStart(o.key, Started{Session: n.session, Run: n.run})
}

// startedOnce renders a start's reply, or, when it was made before, the
// answer of the run it made then.
func (s *Service) startedOnce(r reply, err error, b beginning) (protocol.Result, error) {
	var before startedBefore
	if errors.As(err, &before) {
		return s.startAgain(before.run, b)
	}
	return s.rendered(r, err)
}

// startAgain answers a start sent again with the run it made: its root, with
// the first attempt's tokens, as the first answer had them. b, read from
// the same arguments, makes the same first move when the workflow pinned
// and the root's snapshot are those it makes; then the answer also says
// what the first said of that move (steps it skipped, warnings). Neither
// is recorded, so otherwise it says nothing of them.
func (s *Service) startAgain(prior Started, b beginning) (protocol.Result, error) {
	view := func(fn func(ReadTx) error) error { return s.store.View(prior.Session, fn) }
	return s.rendered(inTx(view, func(tx ReadTx) (reply, error) {
		r, err := tx.Run(prior.Run)
		if err != nil {
			return reply{}, unknownNode(prior.Session)
		}
		n := node{session: prior.Session, run: prior.Run, id: r.Root}
		l, err := s.load(tx, n)
		if err != nil {
			return reply{}, err
		}
		facts, warnings := moveFacts{rules: true, places: b.places}, []protocol.Warning(nil)
		if _, d, err := canon.Digest(b.move.Snapshot); err == nil && l.c.Hash == b.c.Hash && engine.SnapshotRef(d) == l.info.Snapshot {
			facts.skipped, warnings = b.move.Skipped, b.warnings
		}
		return fresh(tx, l, n, s.keys.Active(), facts, warnings)
	}))
}
