package console

import (
	"time"

	"github.com/workrail/workrail/engine"
)

// ErrorLog is where the Console reads the daemon's recent errors: tool
// calls answered with an error and failures inside the daemon.
type ErrorLog interface {
	// LastErrors lists the most recent errors, newest first.
	LastErrors() []LoggedError
}

// LoggedError is one error from the daemon's log.
type LoggedError struct {
	Time time.Time
	// Tool and Code name the tool call answered with the error code; both
	// are empty for a failure inside the daemon.
	Tool, Code string
	Message    string
	// Session is the session the failed call was about (0: none known).
	Session engine.SessionID
}

// lastErrors is what the home page lists: none without a log.
func (c *Console) lastErrors() []LoggedError {
	if c.errors == nil {
		return nil
	}
	return c.errors.LastErrors()
}

// when is an error's time as the page shows it, to the second, in the
// daemon's time zone.
func (e LoggedError) when() string { return e.Time.Format(time.DateTime) }
