package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
)

// Health verifies session id's chain and derived records on first use
// and remembers the result: this process is the only writer, and its
// appends keep both valid. Derived records of another definition, or
// that differ from a refold of a log that verifies, are rebuilt from the
// log before Health answers (a difference is logged): the session is
// healthy, and whatever runs it next reads the refold, never the records
// that differed. Records that differ are indexes_damaged only where they
// cannot be rebuilt (a read-only store, a snapshot or pin the log
// references is damaged); a log that fails verification stays as it is.
func (s *Store) Health(id engine.SessionID) (execute.Health, error) {
	s.mu.Lock()
	h, ok := s.health[id]
	s.mu.Unlock()
	if ok {
		return h, nil
	}
	if h, ok, err := s.rebuildOtherDefinition(id); ok || err != nil {
		return h, err
	}
	err := s.view(id, func(t *Tx) error {
		r, err := t.verify(nil)
		h = r.Health
		if r.IndexProblem != "" {
			h = execute.Health{Status: execute.IndexesDamaged, LastGood: h.LastGood, Reason: r.IndexProblem}
		}
		return err
	})
	if errors.Is(err, ErrDamaged) {
		h, err = unreadable(err), nil
	}
	if err != nil {
		return execute.Health{}, err
	}
	if h.Status == execute.IndexesDamaged && !s.readOnly {
		return s.repair(id, h)
	}
	s.setHealth(id, h)
	return h, nil
}

// rebuildOtherDefinition rebuilds session id's records when they are of
// another definition than this build's, verifying its log whole on the
// way (the rebuild's check is the health check): ok reports that it did,
// and the session is healthy. A log that does not verify is left to the
// health check to describe.
func (s *Store) rebuildOtherDefinition(id engine.SessionID) (h execute.Health, ok bool, err error) {
	if s.readOnly {
		return h, false, nil
	}
	var other bool
	err = s.view(id, func(t *Tx) error { other = stale(t.b); return nil })
	if err != nil || !other {
		return h, false, nil // the health check reports it
	}
	r, err := s.rebuild(id)
	if err != nil {
		if errors.Is(err, engine.ErrNotFound) {
			return h, false, err
		}
		return h, false, nil
	}
	h = execute.Health{Status: execute.Healthy, LastGood: r.head}
	s.setHealth(id, h)
	return h, true, nil
}

// repair rebuilds session id's derived records, which differ from its
// log (h says how), from the log. A log that turns out not to verify (a
// snapshot or pin it references is damaged) leaves the session
// indexes_damaged, saying why.
func (s *Store) repair(id engine.SessionID, h execute.Health) (execute.Health, error) {
	if err := s.RebuildIndexes(id); err != nil {
		if errors.Is(err, engine.ErrNotFound) {
			return execute.Health{}, err
		}
		s.logf("session %s: derived records not rebuilt: %v", id, err)
		h.Reason = fmt.Sprintf("%s; not rebuilt: %v", h.Reason, err)
		s.setHealth(id, h)
		return h, nil
	}
	s.logf("session %s: derived records differed from the log (%s); rebuilt from the log", id, h.Reason)
	h = execute.Health{Status: execute.Healthy, LastGood: h.LastGood}
	s.setHealth(id, h)
	return h, nil
}

// KnownHealth is session id's health when this process verified it
// already, without verifying anything: a page that must answer at once
// shows what is known.
func (s *Store) KnownHealth(id engine.SessionID) (execute.Health, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.health[id]
	return h, ok
}

func (s *Store) setHealth(id engine.SessionID, h execute.Health) {
	s.mu.Lock()
	s.health[id] = h
	s.mu.Unlock()
}

// forgetHealth makes the next Health verify session id again.
func (s *Store) forgetHealth(id engine.SessionID) {
	s.mu.Lock()
	delete(s.health, id)
	s.mu.Unlock()
}

// verifyChain walks the log from index 1, recomputing every digest. It stops
// at the first event that is missing, out of order, undecodable, or whose
// digest does not match. visit, when set, sees each good event.
func (t *Tx) verifyChain(visit func(event.Event) error) execute.Health {
	return t.verifyChainAfter(0, engine.Digest{}, visit)
}

// verifyChainAfter is verifyChain over the events after index last,
// whose chain digest is prev.
func (t *Tx) verifyChainAfter(last engine.EventIndex, prev engine.Digest, visit func(event.Event) error) execute.Health {
	chain := t.b.Bucket(bucketChain)
	c := t.b.Bucket(bucketEvents).Cursor()
	k, v := c.First()
	if last > 0 {
		k, v = c.Seek(u64(uint64(last) + 1))
	}
	for ; k != nil; k, v = c.Next() {
		idx := engine.EventIndex(binary.BigEndian.Uint64(k))
		bad := func(reason string) execute.Health {
			return execute.Health{Status: execute.CorruptTail, FirstBad: last + 1, LastGood: last, Reason: fmt.Sprintf("event %d: %s", last+1, reason)}
		}
		if idx != last+1 {
			return bad(fmt.Sprintf("missing (next stored event is %d)", idx))
		}
		d := event.Chain(prev, v)
		if stored := chain.Get(k); !bytes.Equal(stored, d[:]) {
			return bad("digest does not match its content")
		}
		e, err := event.Decode(v)
		if err != nil {
			return bad(err.Error())
		}
		if e.Index != idx || e.Session != t.id {
			return bad("envelope names another session or index")
		}
		if visit != nil {
			if err := visit(e); err != nil {
				return bad(err.Error())
			}
		}
		prev, last = d, idx
	}
	if h, hd := t.head(); h != last || hd != prev {
		return execute.Health{Status: execute.CorruptTail, FirstBad: last + 1, LastGood: last, Reason: "head record does not match the log"}
	}
	return execute.Health{Status: execute.Healthy, LastGood: last}
}

// checkRefs checks that the snapshot or pinned workflow e references is
// stored whole.
func (t *Tx) checkRefs(e event.Event) error {
	r, ok := referenced(e)
	if !ok {
		return nil
	}
	if _, err := getCAS(t.tx.Bucket(r.bucket()), r.d); err != nil {
		return fmt.Errorf("%s: %w", r, err)
	}
	return nil
}

// unreadable is the health of a session whose pages cannot be read.
func unreadable(err error) execute.Health {
	return execute.Health{Status: execute.Unreadable, Reason: unwrapDamage(err)}
}

// Events returns the session's events up to its last good one, with its
// health: read-only views still work on a corrupt_tail session, and on one
// whose pages are damaged past the events read.
func (s *Store) Events(id engine.SessionID) ([]event.Event, execute.Health, error) {
	var evs []event.Event
	var h execute.Health
	err := s.view(id, func(t *Tx) error {
		if head := t.Head(); head <= 1<<16 { // the head record is checked against the log below
			evs = make([]event.Event, 0, head)
		}
		h = t.verifyChain(func(e event.Event) error {
			evs = append(evs, e)
			return nil
		})
		return nil
	})
	if errors.Is(err, ErrDamaged) {
		h, err = unreadable(err), nil
		h.LastGood = engine.EventIndex(len(evs))
	}
	return evs, h, err
}

// EventsAfter returns the session's events after index from, verified
// from the chain digest stored at from on, with the health of that part:
// a reader that verified the log up to from reads only what was added
// since. A digest missing at from is a damaged log.
func (s *Store) EventsAfter(id engine.SessionID, from engine.EventIndex) ([]event.Event, execute.Health, error) {
	var evs []event.Event
	var h execute.Health
	err := s.view(id, func(t *Tx) error {
		var prev engine.Digest
		if from > 0 {
			d := t.b.Bucket(bucketChain).Get(u64(uint64(from)))
			if len(d) != len(prev) {
				h = execute.Health{Status: execute.CorruptTail, FirstBad: from, LastGood: from - 1, Reason: fmt.Sprintf("event %d: no chain digest", from)}
				return nil
			}
			copy(prev[:], d)
		}
		h = t.verifyChainAfter(from, prev, func(e event.Event) error {
			evs = append(evs, e)
			return nil
		})
		return nil
	})
	if errors.Is(err, ErrDamaged) {
		h, err = unreadable(err), nil
		h.LastGood = from + engine.EventIndex(len(evs))
	}
	return evs, h, err
}

// SessionIDs lists every session, in creation order. Where the file is
// damaged it falls back to looking each id up on its own, so one damaged
// page costs only the sessions behind it.
func (s *Store) SessionIDs() ([]engine.SessionID, error) {
	var ids []engine.SessionID
	err := guarded(label("list sessions"), func() error {
		return s.db.View(func(tx *bbolt.Tx) error {
			return tx.Bucket(bucketSessions).ForEachBucket(func(k []byte) error {
				if len(k) != 8 {
					return errors.New("store: malformed session key")
				}
				ids = append(ids, engine.SessionID(binary.BigEndian.Uint64(k)))
				return nil
			})
		})
	})
	if errors.Is(err, ErrDamaged) {
		return s.probeSessionIDs()
	}
	return ids, err
}

// probeSessionIDs looks up every id the store ever handed out. An id
// whose lookup fails on damage is listed: its session exists, unreadable.
func (s *Store) probeSessionIDs() ([]engine.SessionID, error) {
	top, err := s.topSessionID()
	if err != nil {
		return nil, err
	}
	var ids []engine.SessionID
	for n := uint64(1); n <= top; n++ {
		found := true
		err := guarded(label("find session"), func() error {
			return s.db.View(func(tx *bbolt.Tx) error {
				found = tx.Bucket(bucketSessions).Bucket(sessionKey(engine.SessionID(n))) != nil
				return nil
			})
		})
		if found || err != nil {
			ids = append(ids, engine.SessionID(n))
		}
	}
	return ids, nil
}

// topSessionID is the highest session id the store has handed out.
func (s *Store) topSessionID() (uint64, error) {
	var top uint64
	err := guarded(label("list sessions"), func() error {
		return s.db.View(func(tx *bbolt.Tx) error {
			top = tx.Bucket(bucketSessions).Sequence()
			return nil
		})
	})
	return top, err
}

// Digest is the chain digest of session id's last event: what a verified
// log ends on.
func (s *Store) Digest(id engine.SessionID) (engine.Digest, error) {
	var d engine.Digest
	err := s.view(id, func(t *Tx) error {
		_, d = t.head()
		return nil
	})
	return d, err
}
