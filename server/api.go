package server

import (
	"context"
	"io"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/workrail/workrail/engine/protocol"
)

// API is what the daemon's /api routes answer from, beyond the daemon's
// own state: the wiring implements each part over the store and the use
// cases. An answer is a JSON document whose shape the wiring owns and the
// command reading it decodes; the transport writes it as it comes, so it
// names no type of the store, the Console or the use cases. A refusal is
// the error result, answered with 422.
type API struct {
	Admin    Admin    // status, doctor, restart (required)
	Sessions Sessions // sessions, export, import (nil: not served)
	Secrets  Secrets  // doctor --secrets, scrub (nil: not served; socket only)
	Sources  Sources  // sources and their sync (nil: not served)
}

// Admin answers `workrail status`, `doctor` and `restart`.
type Admin interface {
	// Status is what GET /api/status answers.
	Status() jsontext.Value
	// Doctor verifies every session; requests that arrive meanwhile
	// share its answer.
	Doctor() (jsontext.Value, error)
	// Restart checks the daemon could start again and, if so, asks for
	// ActionRestart; otherwise it returns why not.
	Restart() *protocol.ErrorResult
}

// Sessions answers `workrail sessions`, `export` and `import`.
type Sessions interface {
	// List is every session, newest first.
	List() (jsontext.Value, *protocol.ErrorResult)
	// Export is a session's bundle (JSON) or, with ask.Markdown, the
	// session as Markdown.
	Export(session string, ask ExportAsk) ([]byte, *protocol.ErrorResult)
	// Import reads a bundle from body and verifies it; unless dryRun it
	// stores it as a new session.
	Import(body io.Reader, dryRun bool) (jsontext.Value, *protocol.ErrorResult)
}

// Secrets answers `workrail doctor --secrets` and `workrail scrub`.
type Secrets interface {
	// Find lists the sessions holding text the secret scanner matches.
	Find() (jsontext.Value, *protocol.ErrorResult)
	// Scrub replaces a session by a redacted copy.
	Scrub(session string) (jsontext.Value, *protocol.ErrorResult)
}

// Sources answers `workrail sources`.
type Sources interface {
	// List is the workflow sources with each repository's state.
	List() jsontext.Value
	// Sync fetches the repositories now and lists the sources again.
	Sync(ctx context.Context) jsontext.Value
}
