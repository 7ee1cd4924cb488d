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

// what says what went wrong: for a tool call, its code in words (the log
// keeps the code only, since a message may quote what the agent sent);
// for a failure inside the daemon, the logged message.
func (e LoggedError) what() string {
	if e.Code == "" {
		return e.Message
	}
	if text, ok := codeTexts[engine.Code(e.Code)]; ok {
		return text
	}
	return e.Message
}

// codeTexts say each error code of the closed set in words, as the
// agent was told it in more detail.
var codeTexts = map[engine.Code]string{
	engine.CodeInvalidInput:       "The call's arguments were invalid.",
	engine.CodeUnknownKey:         "The call named a key the tool does not take.",
	engine.CodePayloadTooLarge:    "The call sent more than a tool accepts.",
	engine.CodeWorkflowNotFound:   "The call named a workflow no source defines.",
	engine.CodePinnedMissing:      "The workflow the run is pinned to is missing from the store.",
	engine.CodeTokenInvalidFormat: "The call sent a token that is not a WorkRail token.",
	engine.CodeTokenBadSignature:  "The call sent a token this WorkRail did not sign.",
	engine.CodeTokenUnknownKey:    "The call sent a token signed with a key this WorkRail no longer has.",
	engine.CodeTokenWrongKind:     "The call sent one kind of token where another was due.",
	engine.CodeTokenScopeMismatch: "The call's tokens belong to different steps or runs.",
	engine.CodeTokenUnknownNode:   "The call's token names a step this session does not hold.",
	engine.CodeSessionCorrupt:     "The session the call was about is damaged.",
	engine.CodeSessionReplaced:    "The session the call was about was replaced by its scrubbed copy.",
	engine.CodeStorageUnwritable:  "Nothing could be written: the disk is full or read-only.",
	engine.CodeDaemonUnavailable:  "The IDE's shim could not reach the daemon.",
	engine.CodeBundleInvalid:      "An imported bundle did not verify.",
	engine.CodeCancelled:          "The call was cancelled by its client before anything was recorded.",
	engine.CodeInternal:           "WorkRail failed inside; the daemon's log has the details.",
}
