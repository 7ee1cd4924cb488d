package event

import "time"

// Millis is when an event was appended: milliseconds since the Unix
// epoch, UTC. It is informational only: nothing orders, ties or compares
// events by it (EventIndex and the store's write sequence do that), and
// zero means the event was written by a build that recorded no time.
type Millis uint64

// MillisOf is t to the millisecond; a time before 1970 is zero.
func MillisOf(t time.Time) Millis {
	ms := t.UnixMilli()
	if ms <= 0 {
		return 0
	}
	return Millis(ms)
}

// Time is m as a UTC time; ok is false when no time was recorded.
func (m Millis) Time() (t time.Time, ok bool) {
	if m == 0 {
		return time.Time{}, false
	}
	return time.UnixMilli(int64(m)).UTC(), true
}

// Origin is the closed set of who made a write. The agent's writes carry
// none (the empty origin), so the logs of earlier builds read as the
// agent's, which they were, bar the forks their Console made.
type Origin string

// The origins.
const (
	OriginAgent   Origin = ""
	OriginConsole Origin = "console"
)

// Valid reports whether o is in the closed set.
func (o Origin) Valid() bool { return o == OriginAgent || o == OriginConsole }

// Stamp is what a write records of itself on every event it appends:
// when, and who made it.
type Stamp struct {
	At     Millis
	Origin Origin
}
