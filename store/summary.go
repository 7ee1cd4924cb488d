package store

import (
	"encoding/json"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
)

// SessionSummary is what the Console lists for one session.
type SessionSummary struct {
	ID        engine.SessionID
	CreatedAt string // informational, from session_created
	Runs      []RunInfo
	Events    engine.EventIndex
	Health    Health
}

// Summaries lists every session, newest first (by id: never by clock).
func (s *Store) Summaries() ([]SessionSummary, error) {
	ids, err := s.SessionIDs()
	if err != nil {
		return nil, err
	}
	out := make([]SessionSummary, 0, len(ids))
	for i := len(ids) - 1; i >= 0; i-- {
		sum, err := s.summary(ids[i])
		if err != nil {
			return nil, err
		}
		out = append(out, sum)
	}
	return out, nil
}

func (s *Store) summary(id engine.SessionID) (SessionSummary, error) {
	h, err := s.Health(id)
	if err != nil {
		return SessionSummary{}, err
	}
	sum := SessionSummary{ID: id, Health: h}
	err = s.View(id, func(t *Tx) error {
		sum.Events, _ = t.head()
		if e, err := t.Event(1); err == nil {
			if d, ok := e.Data.(*event.SessionCreatedData); ok {
				sum.CreatedAt = d.CreatedAt
			}
		}
		return t.b.Bucket(bucketRuns).ForEach(func(k, v []byte) error {
			var r RunInfo
			if err := json.Unmarshal(v, &r); err != nil {
				return err
			}
			sum.Runs = append(sum.Runs, r)
			return nil
		})
	})
	return sum, err
}
