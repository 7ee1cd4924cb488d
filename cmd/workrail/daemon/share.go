package daemon

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/bundle"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/server"
	"github.com/workrail/workrail/store"
)

// MaxBundle bounds a bundle's JSON, read from a file (unpacked), sent to
// the daemon or answered by it: far above a session of a thousand steps,
// and low enough to hold in memory.
const MaxBundle = 64 << 20

// shareAPI answers the daemon's API for `workrail sessions`, `export` and
// `import` from the use cases and the store it owns.
type shareAPI struct {
	uc   *execute.Service
	st   *store.Store
	logf func(string, ...any)
}

// List is SessionList.
func (a shareAPI) List() (jsontext.Value, *protocol.ErrorResult) {
	l, err := ListSessions(a.st)
	if err != nil {
		return nil, a.refusal("list the sessions", err)
	}
	return answerOf(l), nil
}

// Export is the bundle or the Markdown.
func (a shareAPI) Export(session string, ask server.ExportAsk) ([]byte, *protocol.ErrorResult) {
	var id engine.SessionID
	if err := id.UnmarshalText([]byte(session)); err != nil {
		return nil, a.refusal("export", engine.Errorf(engine.CodeInvalidInput, "%q is not a session id (ses_N)", session).With("sessionId", session))
	}
	var b []byte
	var err error
	o := bundle.ExportOptions{RedactNotes: ask.RedactNotes, Redact: ask.Redact}
	if ask.Markdown {
		var md string
		md, err = a.uc.ExportMarkdown(id, o)
		b = []byte(md)
	} else {
		b, err = a.uc.Export(id, o)
	}
	if err != nil {
		return nil, a.refusal("export "+session, err)
	}
	return b, nil
}

// Import is the bundle.ImportReport.
func (a shareAPI) Import(body io.Reader, dryRun bool) (jsontext.Value, *protocol.ErrorResult) {
	b, err := io.ReadAll(io.LimitReader(body, MaxBundle+1))
	if err != nil {
		return nil, a.refusal("import", err)
	}
	if len(b) > MaxBundle {
		return nil, a.refusal("import", engine.Errorf(engine.CodePayloadTooLarge, "the bundle is larger than %d MiB", MaxBundle>>20).With("limitBytes", MaxBundle))
	}
	rep, err := a.uc.Import(b, dryRun)
	if err != nil {
		return nil, a.refusal("import", err)
	}
	return answerOf(rep), nil
}

// refusal is err as the error result the API answers; an internal
// failure's cause goes to the daemon log.
func (a shareAPI) refusal(what string, err error) *protocol.ErrorResult {
	e := engine.AsError(err)
	if e.Code == engine.CodeInternal {
		a.logf("%s: %v", what, err)
	}
	r := protocol.NewError(e)
	return &r
}

// answerOf is v encoded as the daemon's API answers it (encoding/json, as
// the commands decode it).
func answerOf(v any) jsontext.Value {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("workrail: the API answer %T cannot be encoded: %v", v, err)) // every answer is a plain struct
	}
	return b
}
