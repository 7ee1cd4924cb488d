package console

import (
	"strconv"
	"time"

	"github.com/workrail/workrail/engine/event"
)

// moment is a recorded time as a page shows it, read against the
// Console's clock when the page was made: relative text ("4 min ago"),
// the absolute time for the title, and the machine form. A zero At is a
// time the log did not record (an earlier build's events).
type moment struct {
	At  event.Millis
	Now time.Time
}

// at is the moment m read at now.
func at(m event.Millis, now time.Time) moment { return moment{At: m, Now: now} }

// ago is m's relative text.
func (m moment) ago() string {
	t, ok := m.At.Time()
	if !ok {
		return "—"
	}
	d := m.Now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now" // also a time ahead of the clock: they disagree by little
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + " min ago"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + " h ago"
	case d < 60*24*time.Hour:
		return strconv.Itoa(int(d/(24*time.Hour))) + " days ago"
	}
	return t.Format("2 Jan 2006")
}

// absolute is m in UTC, to the second.
func (m moment) absolute() string {
	t, _ := m.At.Time()
	return t.Format("2006-01-02 15:04:05 UTC")
}

// machine is m as a <time> element's datetime: RFC 3339 to the
// millisecond.
func (m moment) machine() string {
	t, _ := m.At.Time()
	return t.Format("2006-01-02T15:04:05.000Z07:00")
}

// span is how long from From to To took, as a page shows it.
type span struct{ From, To event.Millis }

// known says both ends were recorded, in order.
func (s span) known() bool { return s.From != 0 && s.To != 0 && s.To >= s.From }

func (s span) dur() time.Duration { return time.Duration(s.To-s.From) * time.Millisecond }

// text is the duration in at most two units: "850 ms", "42 s", "4 min 2 s",
// "3 h 5 min", "2 days 4 h".
func (s span) text() string {
	d := s.dur()
	two := func(a int, au string, b int, bu string) string {
		if b == 0 {
			return strconv.Itoa(a) + " " + au
		}
		return strconv.Itoa(a) + " " + au + " " + strconv.Itoa(b) + " " + bu
	}
	switch {
	case d < time.Second:
		return strconv.Itoa(int(d/time.Millisecond)) + " ms"
	case d < time.Minute:
		return strconv.Itoa(int(d/time.Second)) + " s"
	case d < time.Hour:
		return two(int(d/time.Minute), "min", int(d%time.Minute/time.Second), "s")
	case d < 24*time.Hour:
		return two(int(d/time.Hour), "h", int(d%time.Hour/time.Minute), "min")
	}
	return two(int(d/(24*time.Hour)), "days", int(d%(24*time.Hour)/time.Hour), "h")
}

// machine is the duration as a <time> element's datetime (ISO 8601).
func (s span) machine() string {
	return "PT" + strconv.FormatFloat(s.dur().Seconds(), 'f', -1, 64) + "S"
}

// createdMillis reads session_created's createdAt (RFC 3339, which every
// build recorded) as a time a page shows; zero when it does not parse.
func createdMillis(s string) event.Millis {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return 0
	}
	return event.MillisOf(t)
}
