package store

import "github.com/workrail/workrail/engine/execute"

// Checked counts the sessions whose health this process has verified, by
// status: the Console's health summary, which never verifies a session
// just to count it (at 10,000 sessions that would read every log).
func (s *Store) Checked() map[execute.HealthStatus]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[execute.HealthStatus]int{}
	for _, h := range s.health {
		out[h.Status]++
	}
	return out
}
