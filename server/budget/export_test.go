package budget

// Waiting is how many reservations wait for room in b now, for tests
// that must know a reservation is queued before they go on.
func Waiting(b *Budget) int64 { return b.waiting.Load() }
