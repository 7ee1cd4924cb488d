package execute

// Unstamped makes s append events without time or origin, as builds did
// before events recorded them: the baseline BenchmarkAdvanceStamping
// compares against.
func Unstamped(s *Service) { s.unstamped = true }
