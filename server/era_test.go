package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/workrail/workrail/engine/protocol"
)

// shelf is a Library of one prompt and one session.
type shelf struct{ Library }

var shelfPrompt = protocol.Prompt{Name: "user.fix", Title: "Fix a bug", Description: "Finds the cause.",
	Arguments: []protocol.PromptArgument{{Name: "depth", Description: "How deep.", Required: true}}}

func (shelf) Prompts(string) []protocol.Prompt { return []protocol.Prompt{shelfPrompt} }
func (shelf) Prompt(_, _ string, _ map[string]string) (string, *protocol.ErrorResult) {
	return "Start it.", nil
}
func (shelf) Sessions(string, int) (SessionPage, *protocol.ErrorResult) {
	return SessionPage{Sessions: []SessionSummary{{ID: "ses_1", Title: "Fix login", Description: "in progress"}}}, nil
}
func (shelf) SessionMarkdown(string) (string, *protocol.ErrorResult) { return "# ses_1\n", nil }

// shelved is the MCP library serving shelf's prompt and session from its
// own registries, as it would if they were static.
func shelved() http.Handler {
	s := mcpServer(newToolCalls(answering{}, protocol.Features{}, slog.New(slog.DiscardHandler), ""), "test", true)
	args := make([]mcp.PromptArgument, len(shelfPrompt.Arguments))
	for i, a := range shelfPrompt.Arguments {
		args[i] = mcp.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required}
	}
	s.AddPrompt(mcp.Prompt{Name: shelfPrompt.Name, Title: shelfPrompt.Title, Description: shelfPrompt.Description, Arguments: args},
		func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("Start the WorkRail workflow user.fix",
				[]mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("Start it."))}), nil
		})
	s.AddResource(mcp.Resource{URI: "workrail://sessions/ses_1", Name: "Fix login · ses_1", Title: "Fix login · ses_1", Description: "in progress", MIMEType: markdown},
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: "workrail://sessions/ses_1", MIMEType: markdown, Text: "# ses_1\n"}}, nil
		})
	return mcpserver.NewStreamableHTTPServer(s, mcpserver.WithStateLess(true), mcpserver.WithEndpointPath("/mcp"))
}

// modernCall is a 2026-07-28 request of method with params (an object's
// members, or ""), and the headers an HTTP client of that version sends.
func modernCall(method, params string) (string, []string) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	if params != "" {
		meta = params + "," + meta
	}
	msg := `{"jsonrpc":"2.0","id":3,"method":"` + method + `","params":{` + meta + `}}`
	h := http.Header{}
	h.Set(mcp.HeaderProtocolVersion, mcp.ProtocolVersion20260728)
	var p struct{ Params json.RawMessage }
	json.Unmarshal([]byte(msg), &p)
	for k, v := range mcp.StandardHeaders(mcp.ProtocolVersion20260728, mcp.MCPMethod(method), p.Params) {
		h.Set(k, v)
	}
	var hdr []string
	for k := range h {
		hdr = append(hdr, k, h.Get(k))
	}
	return msg, hdr
}

// resultOf decodes an answer's result, failing on an error.
func resultOf(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var m struct {
		Result map[string]any
		Error  any
	}
	if err := json.Unmarshal(body, &m); err != nil || m.Result == nil {
		t.Fatalf("no result: %v %s", err, body)
	}
	return m.Result
}

// What the daemon answers ahead of the MCP library, a 2026-07-28 client
// gets as the library would answer it: the same result, stamped with the
// same resultType, serverInfo and caching hints.
func TestLibraryStampsModernResultsAsTheMCPLibrary(t *testing.T) {
	nothing := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { t.Error("a valid modern request was passed on") })
	ours := &libraryHandler{lib: shelf{}, next: nothing, version: "test"}
	for _, tc := range []struct{ method, params string }{
		{"prompts/list", ""},
		{"prompts/get", `"name":"user.fix","arguments":{"depth":"deep"}`},
		{"resources/list", ""},
		{"resources/read", `"uri":"workrail://sessions/ses_1"`},
	} {
		t.Run(tc.method, func(t *testing.T) {
			msg, hdr := modernCall(tc.method, tc.params)
			want := resultOf(t, mcpPost(t, shelved(), msg, hdr...))
			got := resultOf(t, mcpPost(t, ours, msg, hdr...))
			if got["resultType"] != "complete" || !reflect.DeepEqual(got, want) {
				g, _ := json.Marshal(got)
				w, _ := json.Marshal(want)
				t.Errorf("the daemon answered\n%s\nthe MCP library\n%s", g, w)
			}
		})
	}
	// A client of an earlier version gets the result as before.
	legacy := resultOf(t, mcpPost(t, ours, `{"jsonrpc":"2.0","id":3,"method":"prompts/list"}`))
	if _, ok := legacy["resultType"]; ok || len(legacy) != 1 {
		t.Errorf("a legacy prompts/list was stamped: %v", legacy)
	}
}

// A 2026-07-28 request the MCP library would refuse (a header missing or
// disagreeing with the body, no client capabilities, an unknown version)
// goes on to it, and is refused in its words, with the envelope.
func TestLibraryLeavesBadModernRequestsToTheMCPLibrary(t *testing.T) {
	ours := &libraryHandler{lib: shelf{}, next: shelved(), version: "test"}
	good, hdr := modernCall("prompts/get", `"name":"user.fix"`)
	without := func(name string) []string {
		var out []string
		for i := 0; i < len(hdr); i += 2 {
			if !strings.EqualFold(hdr[i], name) {
				out = append(out, hdr[i], hdr[i+1])
			}
		}
		return out
	}
	for _, tc := range []struct {
		name, msg string
		hdr       []string
		says      string
	}{
		{"no version header", good, without(mcp.HeaderProtocolVersion), "Mcp-Protocol-Version header is required"},
		{"no method header", good, without(mcp.HeaderMethod), "Mcp-Method"},
		{"another name", good, append(without(mcp.HeaderName), mcp.HeaderName, "user.other"), "Mcp-Name"},
		{"no capabilities", strings.Replace(good, `,"io.modelcontextprotocol/clientCapabilities":{}`, "", 1), hdr, "clientCapabilities"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := mcpPost(t, ours, tc.msg, tc.hdr...)
			var m struct {
				Error *struct {
					Message string
					Data    protocol.ErrorResult
				}
			}
			if json.Unmarshal(body, &m) != nil || m.Error == nil || !strings.Contains(m.Error.Message, tc.says) || m.Error.Data.Error == nil {
				t.Errorf("answered %s; want a refusal saying %q with the envelope", body, tc.says)
			}
		})
	}
}

// An unknown resource is -32002 to a client of an earlier version and,
// as 2026-07-28 says, -32602 to one of that version.
func TestModernResourceNotFoundIsInvalidParams(t *testing.T) {
	ours := &libraryHandler{lib: shelf{}, version: "test"}
	modern, hdr := modernCall("resources/read", `"uri":"workrail://elsewhere"`)
	for _, tc := range []struct {
		msg  string
		hdr  []string
		code int
	}{
		{modern, hdr, rpcInvalidParams},
		{`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"workrail://elsewhere"}}`, nil, rpcResourceNotFound},
	} {
		var m struct{ Error struct{ Code int } }
		if body := mcpPost(t, ours, tc.msg, tc.hdr...); json.Unmarshal(body, &m) != nil || m.Error.Code != tc.code {
			t.Errorf("answered %s; want code %d", body, tc.code)
		}
	}
}

// A session is listed by its title with its id, or by its id while it has
// no title.
func TestSessionResourceNames(t *testing.T) {
	for _, tc := range []struct{ title, name string }{{"Fix login redirect", "Fix login redirect · ses_12"}, {"", "ses_12"}} {
		if got := (SessionSummary{ID: "ses_12", Title: tc.title}).name(); got != tc.name {
			t.Errorf("title %q: named %q, want %q", tc.title, got, tc.name)
		}
	}
}
