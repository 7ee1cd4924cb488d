package sources

import (
	"fmt"
	"sync"
	"time"
)

// readTimeout is how long reading one file (stat, open and read) or
// listing one folder may take before it is given up.
const readTimeout = 2 * time.Second

// slowError is a read given up at its deadline, or refused because an
// earlier read of the same path was given up and has not returned yet.
type slowError struct {
	after   time.Duration
	earlier bool
}

func (e *slowError) Error() string {
	if e.earlier {
		return fmt.Sprintf("did not answer: an earlier read of it has not finished after %v "+
			"(a slow or unresponsive filesystem?); it is skipped until that read returns", e.after)
	}
	return fmt.Sprintf("did not answer within %v (a slow or unresponsive filesystem?); "+
		"it is skipped on this call and read again on the next", e.after)
}

// stuck counts, per path, the reads given up at their deadline that
// have not returned yet.
type stuck struct {
	mu sync.Mutex
	n  map[string]int
}

func (s *stuck) add(path string, d int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n == nil {
		s.n = map[string]int{}
	}
	if s.n[path] += d; s.n[path] == 0 {
		delete(s.n, path)
	}
}

func (s *stuck) busy(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n[path] > 0
}

// within runs read, which reads path, on its own goroutine and waits at
// most d for it. A read still running at d is given up: within returns a
// *slowError, and read finishes (or not) on its own. Until it does, within
// refuses further reads of path, so a stuck filesystem costs one goroutine
// per path rather than one per call.
func within[T any](s *stuck, path string, d time.Duration, read func() (T, error)) (T, error) {
	var zero T
	if s.busy(path) {
		return zero, &slowError{after: d, earlier: true}
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := read()
		done <- result{v, err}
	}()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case r := <-done:
		return r.v, r.err
	case <-timer.C:
	}
	s.add(path, 1)
	go func() {
		<-done
		s.add(path, -1)
	}()
	return zero, &slowError{after: d}
}
