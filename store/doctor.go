package store

import (
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
)

// Report is the verified health of one session. IndexProblem, when set,
// says how the derived indexes differ from a refold of the log.
type Report struct {
	Session      engine.SessionID `json:"sessionId"`
	Health       execute.Health   `json:"health"`
	IndexProblem string           `json:"indexProblem,omitempty"`
}

// OK reports whether the session is healthy with consistent indexes.
func (r Report) OK() bool { return r.Health.Status == execute.Healthy && r.IndexProblem == "" }

// Doctor verifies every session fully (chain, snapshots, pinned workflows,
// derived indexes), bypassing the health cache.
func (s *Store) Doctor() ([]Report, error) {
	ids, err := s.SessionIDs()
	if err != nil {
		return nil, err
	}
	out := make([]Report, 0, len(ids))
	for _, id := range ids {
		r, err := s.Verify(id)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// Verify checks session id completely, bypassing the health cache: the
// chain, every snapshot and pinned workflow its events reference and, for
// a healthy log, its derived indexes.
func (s *Store) Verify(id engine.SessionID) (Report, error) {
	var r Report
	err := s.view(id, func(t *Tx) error {
		var err error
		r, err = t.verify(t.checkRefs)
		return err
	})
	return r, err
}

// verify checks the chain, passing each good event to check when set, and,
// for a healthy log, the derived indexes.
func (t *Tx) verify(check func(event.Event) error) (Report, error) {
	r := Report{Session: t.id}
	var evs []event.Event
	r.Health = t.verifyChain(func(e event.Event) error {
		evs = append(evs, e)
		if check != nil {
			return check(e)
		}
		return nil
	})
	if r.Health.Status != execute.Healthy {
		return r, nil
	}
	var err error
	r.IndexProblem, err = t.checkIndexes(evs)
	return r, err
}
