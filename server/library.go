package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/server/jsonrpc"
)

// Library is what an MCP client browses besides the tools, read through
// the use cases: the workflows of the catalog a call sees (from the
// client's folder) as prompts, and sessions, runs and workflow sources as
// resources. Ids arrive as the URI carries them; a bad or unknown one is
// an error result, as is a damaged session.
type Library interface {
	Prompts(workdir string) []protocol.Prompt
	Prompt(workdir, name string, args map[string]string) (string, *protocol.ErrorResult)
	// Sessions pages the sessions, the most recently active first:
	// limit of them after cursor ("" for the first page).
	Sessions(cursor string, limit int) (SessionPage, *protocol.ErrorResult)
	SessionMarkdown(session string) (string, *protocol.ErrorResult)
	RunMarkdown(session, run string) (string, *protocol.ErrorResult)
	WorkflowSource(workdir, id string) ([]byte, *protocol.ErrorResult)
}

// SessionPage is one page of resources/list.
type SessionPage struct {
	Sessions []SessionSummary
	Next     string // the cursor of the next page; empty on the last
}

// SessionSummary is one session as resources/list shows it: named by
// its title and id ("Fix login redirect · ses_12"), described by its state
// and last activity.
type SessionSummary struct {
	ID          string // ses_N
	Title       string // one line; empty when the session has none yet
	Description string
}

// name is how a client lists the session: its title with its id, or its
// id alone.
func (s SessionSummary) name() string {
	if s.Title == "" {
		return s.ID
	}
	return s.Title + " · " + s.ID
}

// SessionsPageSize bounds one page of resources/list.
const SessionsPageSize = 50

// MIME types of the resources.
const (
	markdown = "text/markdown"
	jsonMIME = "application/json"
)

// JSON-RPC codes of the library's refusals (MCP: an unknown resource is
// -32002).
const (
	rpcInvalidParams    = -32602
	rpcResourceNotFound = -32002
)

// libraryMethods are the MCP methods the library answers itself, ahead of
// the MCP library: their answers depend on the call (the client's folder,
// the store), which its static registries cannot express.
var libraryMethods = map[string]func(l *libraryHandler, r rpcRequest) (map[string]any, *rpcError){
	"prompts/list":             (*libraryHandler).listPrompts,
	"prompts/get":              (*libraryHandler).getPrompt,
	"resources/list":           (*libraryHandler).listResources,
	"resources/templates/list": (*libraryHandler).listTemplates,
	"resources/read":           (*libraryHandler).readResource,
}

// libraryHandler answers libraryMethods and passes everything else on.
type libraryHandler struct {
	lib     Library
	watch   *watcher
	notes   *notifier // serves subscriptions/listen's listeners
	next    http.Handler
	version string // the server's, as its results name it
}

type rpcRequest struct {
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	workdir string
	era     era
}

type rpcError struct {
	code int
	err  *protocol.ErrorResult
}

func (l *libraryHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		rpcReply(w, jsonrpc.Refusal(nil, "", jsonrpc.ParseError, protocol.Refuse(protocol.RefusedInvalid, "the request could not be read: %v", err)))
		return
	}
	var serve func(l *libraryHandler, r rpcRequest) (map[string]any, *rpcError)
	var id json.RawMessage
	var method string
	if mayBeLibrary(body) { // spares a tool call's arguments the walk
		id, method, _ = jsonrpc.Peek(body)
		serve = libraryMethods[method]
	}
	if serve == nil || len(id) == 0 {
		r.Body = io.NopCloser(bytes.NewReader(body))
		if method == "subscriptions/listen" && l.notes != nil {
			l.notes.listening(w, r, l.next)
			return
		}
		l.next.ServeHTTP(w, r)
		return
	}
	req := rpcRequest{workdir: r.Header.Get(home.WorkdirHeader)}
	if err := json.Unmarshal(body, &req); err != nil {
		rpcReply(w, jsonrpc.Refusal(id, req.Method, jsonrpc.InvalidRequest, protocol.Refuse(protocol.RefusedInvalid, "the request is not a JSON-RPC request: %v", err)))
		return
	}
	if req.era = eraOf(r.Header, req.Method, req.Params); req.era.modern && !req.era.valid {
		r.Body = io.NopCloser(bytes.NewReader(body)) // the library refuses it in its words
		l.next.ServeHTTP(w, r)
		return
	}
	res, rerr := serve(l, req)
	if rerr != nil {
		rpcReply(w, jsonrpc.Refusal(id, req.Method, rerr.code, rerr.err.Error))
		return
	}
	if req.era.modern {
		stamp(res, req.Method, l.version)
	}
	rpcReply(w, map[string]any{"jsonrpc": "2.0", "id": id, "result": res})
}

// mayBeLibrary reports whether a message may call one of libraryMethods
// or subscriptions/listen: whether it names "prompts/, "resources/ or
// "subscriptions/ anywhere.
func mayBeLibrary(body []byte) bool {
	return bytes.Contains(body, []byte(`"prompts/`)) || bytes.Contains(body, []byte(`"resources/`)) ||
		bytes.Contains(body, []byte(`"subscriptions/`))
}

// params decodes a request's params into v; absent params decode as {}.
func params(r rpcRequest, v any) *rpcError {
	if len(r.Params) == 0 || string(r.Params) == "null" {
		return nil
	}
	if err := json.Unmarshal(r.Params, v); err != nil {
		e := protocol.NewError(protocol.Refuse(protocol.RefusedInvalid, "the params of %s are not what MCP defines: %v", r.Method, err))
		return &rpcError{code: rpcInvalidParams, err: &e}
	}
	return nil
}

// refused is an error result the library answered, under the JSON-RPC
// code for what went wrong: the caller's input, or the server.
func refused(e *protocol.ErrorResult, notFound int) *rpcError {
	if e.Error != nil && protocol.IsServerFault(e.Error) {
		return &rpcError{code: jsonrpc.InternalError, err: e}
	}
	return &rpcError{code: notFound, err: e}
}

func (l *libraryHandler) listPrompts(r rpcRequest) (map[string]any, *rpcError) {
	ps := l.lib.Prompts(r.workdir)
	if l.watch != nil {
		l.watch.seen(r.workdir, digest(ps))
	}
	return map[string]any{"prompts": ps}, nil
}

func (l *libraryHandler) getPrompt(r rpcRequest) (map[string]any, *rpcError) {
	var p struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	if e := params(r, &p); e != nil {
		return nil, e
	}
	text, e := l.lib.Prompt(r.workdir, p.Name, p.Arguments)
	if e != nil {
		return nil, refused(e, rpcInvalidParams)
	}
	return map[string]any{
		"description": "Start the WorkRail workflow " + p.Name,
		"messages":    []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": text}}},
	}, nil
}

// The resource templates: a session, one of its runs, a workflow's source.
var templates = []map[string]any{
	{"uriTemplate": "workrail://sessions/{sessionId}", "name": "session", "title": "WorkRail session",
		"description": "A session as Markdown: its runs, their steps and notes, forks, checkpoints and gaps (what `workrail export --markdown` writes).", "mimeType": markdown},
	{"uriTemplate": "workrail://sessions/{sessionId}/runs/{runId}", "name": "run", "title": "WorkRail run",
		"description": "One run as Markdown: the steps done with their notes, its open gaps and the step it waits on.", "mimeType": markdown},
	{"uriTemplate": "workrail://workflows/{workflowId}", "name": "workflow", "title": "WorkRail workflow source",
		"description": "A workflow's source file, as the catalog read it.", "mimeType": jsonMIME},
}

func (l *libraryHandler) listTemplates(rpcRequest) (map[string]any, *rpcError) {
	return map[string]any{"resourceTemplates": templates}, nil
}

func (l *libraryHandler) listResources(r rpcRequest) (map[string]any, *rpcError) {
	var p struct {
		Cursor string `json:"cursor"`
	}
	if e := params(r, &p); e != nil {
		return nil, e
	}
	page, e := l.lib.Sessions(p.Cursor, SessionsPageSize)
	if e != nil {
		return nil, refused(e, rpcInvalidParams)
	}
	list := make([]map[string]any, len(page.Sessions))
	for i, s := range page.Sessions {
		list[i] = map[string]any{"uri": "workrail://sessions/" + s.ID, "name": s.name(), "title": s.name(), "description": s.Description, "mimeType": markdown}
	}
	res := map[string]any{"resources": list}
	if page.Next != "" {
		res["nextCursor"] = page.Next
	}
	return res, nil
}

func (l *libraryHandler) readResource(r rpcRequest) (map[string]any, *rpcError) {
	var p struct {
		URI string `json:"uri"`
	}
	if e := params(r, &p); e != nil {
		return nil, e
	}
	text, mime, e := l.read(p.URI, r.workdir)
	if e != nil {
		notFound := rpcResourceNotFound
		if r.era.modern { // 2026-07-28 says invalid params, as JSON-RPC does
			notFound = rpcInvalidParams
		}
		return nil, refused(e, notFound)
	}
	return map[string]any{"contents": []any{map[string]any{"uri": p.URI, "mimeType": mime, "text": text}}}, nil
}

// read resolves a resource URI to its text and MIME type.
func (l *libraryHandler) read(uri, workdir string) (string, string, *protocol.ErrorResult) {
	if id, ok := strings.CutPrefix(uri, "workrail://workflows/"); ok && id != "" {
		b, e := l.lib.WorkflowSource(workdir, id)
		return string(b), jsonMIME, e
	}
	if rest, ok := strings.CutPrefix(uri, "workrail://sessions/"); ok {
		switch parts := strings.Split(rest, "/"); {
		case len(parts) == 1 && parts[0] != "":
			md, e := l.lib.SessionMarkdown(parts[0])
			return md, markdown, e
		case len(parts) == 3 && parts[1] == "runs" && parts[0] != "" && parts[2] != "":
			md, e := l.lib.RunMarkdown(parts[0], parts[2])
			return md, markdown, e
		}
	}
	e := protocol.NewError(protocol.Refuse(protocol.RefusedInvalid,
		"%q is not a WorkRail resource: read workrail://sessions/{sessionId}, workrail://sessions/{sessionId}/runs/{runId} or workrail://workflows/{workflowId} (resources/templates/list describes them)", uri))
	return "", "", &e
}

// digest identifies a prompt list, to tell when it changed.
func digest(ps []protocol.Prompt) [32]byte {
	b, _ := json.Marshal(ps)
	return sha256.Sum256(b)
}
