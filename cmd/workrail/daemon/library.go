package daemon

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/server"
)

// libraryAPI serves the daemon's MCP prompts and resources from the use
// cases and, for the list of sessions, the overviews the store keeps (as
// `workrail sessions` reads them).
type libraryAPI struct {
	uc   *execute.Service
	st   overviews
	logf func(string, ...any)
}

func (a libraryAPI) Prompts(workdir string) []protocol.Prompt { return a.uc.Prompts(workdir) }

func (a libraryAPI) Prompt(workdir, name string, args map[string]string) (string, *protocol.ErrorResult) {
	msg, err := a.uc.Prompt(workdir, engine.WorkflowID(name), args)
	if err != nil {
		return "", a.refusal("prompt "+name, err)
	}
	return msg, nil
}

func (a libraryAPI) WorkflowSource(workdir, id string) ([]byte, *protocol.ErrorResult) {
	b, err := a.uc.WorkflowSource(workdir, engine.WorkflowID(id))
	if err != nil {
		return nil, a.refusal("workflow source "+id, err)
	}
	return b, nil
}

func (a libraryAPI) SessionMarkdown(session string) (string, *protocol.ErrorResult) {
	id, e := a.session(session)
	if e != nil {
		return "", e
	}
	md, err := a.uc.SessionMarkdown(id)
	if err != nil {
		return "", a.refusal("session resource "+session, err)
	}
	return md, nil
}

func (a libraryAPI) RunMarkdown(session, run string) (string, *protocol.ErrorResult) {
	id, e := a.session(session)
	if e != nil {
		return "", e
	}
	var rid engine.RunID
	if err := rid.UnmarshalText([]byte(run)); err != nil {
		return "", a.refusal("run resource", engine.Errorf(engine.CodeInvalidInput, "%q is not a run id (run_N): the session's resource lists its runs", run).With("runId", run))
	}
	md, err := a.uc.RunMarkdown(id, rid)
	if err != nil {
		return "", a.refusal("run resource "+session+"/"+run, err)
	}
	return md, nil
}

// Sessions pages the overviews the most recently written first; the
// cursor is the write sequence number below which the next page starts.
func (a libraryAPI) Sessions(cursor string, limit int) (server.SessionPage, *protocol.ErrorResult) {
	var below execute.Write
	if cursor != "" {
		n, err := strconv.ParseUint(cursor, 10, 64)
		if err != nil || n == 0 {
			return server.SessionPage{}, a.refusal("resources/list", engine.Errorf(engine.CodeInvalidInput,
				"%q is not a cursor this server gave: send the nextCursor of the previous page, or none for the first", cursor))
		}
		below = execute.Write(n)
	}
	var page server.SessionPage
	err := a.st.Recent(below, func(id engine.SessionID, w execute.Write, o project.Overview, err error) bool {
		if len(page.Sessions) == limit {
			page.Next = strconv.FormatUint(uint64(below), 10)
			return false
		}
		below = w
		page.Sessions = append(page.Sessions, summary(id, o, err))
		return true
	})
	if err != nil {
		return server.SessionPage{}, a.refusal("resources/list", err)
	}
	return page, nil
}

// summary is a session as resources/list shows it: its title (on one
// line, clipped as `workrail sessions` clips it) and, in a line, its
// state, workflows and last activity.
func summary(id engine.SessionID, o project.Overview, err error) server.SessionSummary {
	if err != nil {
		return server.SessionSummary{ID: id.String(), Description: "its overview cannot be read; `workrail doctor` says why"}
	}
	e := entryOf(id, o, nil)
	state := strings.ReplaceAll(string(e.Status), "_", " ")
	if last := len(o.Runs) - 1; last >= 0 && o.Runs[last].Status != project.Complete && o.Runs[last].Pending != "" {
		state += " at step " + string(o.Runs[last].Pending)
	}
	if n := len(o.OpenGaps); n > 0 {
		state += ", " + Plural(n, "open gap")
	}
	ws := make([]string, len(e.Workflows))
	for i, w := range e.Workflows {
		ws[i] = string(w)
	}
	return server.SessionSummary{ID: id.String(), Title: Clip(strings.TrimSpace(o.Title), 60),
		Description: fmt.Sprintf("%s · %s, %s · last activity %s", state, OrDash(strings.Join(ws, ", ")), Plural(e.Runs, "run"), e.Activity())}
}

func (a libraryAPI) session(s string) (engine.SessionID, *protocol.ErrorResult) {
	var id engine.SessionID
	if err := id.UnmarshalText([]byte(s)); err != nil {
		return 0, a.refusal("session resource", engine.Errorf(engine.CodeInvalidInput, "%q is not a session id (ses_N): resources/list lists the sessions", s).With("sessionId", s))
	}
	return id, nil
}

// refusal is err as an error result; an internal failure's cause goes to
// the daemon log.
func (a libraryAPI) refusal(what string, err error) *protocol.ErrorResult {
	e := engine.AsError(err)
	if e.Code == engine.CodeInternal {
		a.logf("%s: %v", what, err)
	}
	r := protocol.NewError(e)
	return &r
}
