package store

import "github.com/workrail/workrail/engine"

// Report is the verified health of one session.
type Report struct {
	Session engine.SessionID `json:"sessionId"`
	Health  Health           `json:"health"`
}

// Doctor verifies every session fully (chain, snapshots, pinned workflows),
// bypassing the health cache.
func (s *Store) Doctor() ([]Report, error) {
	ids, err := s.SessionIDs()
	if err != nil {
		return nil, err
	}
	out := make([]Report, 0, len(ids))
	for _, id := range ids {
		h, err := s.Verify(id)
		if err != nil {
			return nil, err
		}
		out = append(out, Report{Session: id, Health: h})
	}
	return out, nil
}
