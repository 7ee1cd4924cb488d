package server

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"testing/fstest"

	"github.com/go-chi/chi/v5"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/workflows"
)

// sharing returns the TCP and socket handlers of a daemon whose
// sessions, export and import answer from fakes that say what they were
// asked.
func sharing(t *testing.T) (tcp, socket http.Handler) {
	t.Helper()
	uc := execute.New(memstore.New(), executetest.Ring(t), executetest.Catalog(t, workflows.FS), workflow.Preferences{}, executetest.Clock, t.Logf)
	refuse := func(msg string) *protocol.ErrorResult {
		r := protocol.NewError(engine.Errorf(engine.CodeBundleInvalid, "%s", msg).With("entry", "events"))
		return &r
	}
	d := &Daemon{cfg: Config{Home: "/h", Version: "test", Token: testToken, Tools: uc, Console: func(chi.Router) {},
		Static: fstest.MapFS{}, Log: slog.New(slog.DiscardHandler),
		API: API{Admin: testAdmin{}, Sessions: testSessions{list: func() (any, *protocol.ErrorResult) { return map[string]any{"sessions": []string{"ses_1"}}, nil },
			export: func(session string, ask ExportAsk) ([]byte, *protocol.ErrorResult) {
				if session != "ses_1" {
					return nil, refuse("no such session")
				}
				b, _ := json.Marshal(map[string]any{"session": session, "redactNotes": ask.RedactNotes, "redact": ask.Redact, "markdown": ask.Markdown})
				return b, nil
			},
			imp: func(body io.Reader, dryRun bool) (any, *protocol.ErrorResult) {
				b, _ := io.ReadAll(body)
				if string(b) == "tampered" {
					return nil, refuse("the digest of events does not match")
				}
				return map[string]any{"body": string(b), "dryRun": dryRun}, nil
			}}}}}
	mcpHTTP := mcpserver.NewStreamableHTTPServer(NewMCPServer(uc, protocol.Features{}, "test", slog.New(slog.DiscardHandler)), mcpserver.WithStateLess(true), mcpserver.WithEndpointPath("/mcp"))
	return d.router(7421, mcpHTTP), d.socketRouter(mcpHTTP)
}

// The sharing API answers on the socket, and on TCP only with the
// bearer; refusals are the error envelope with 422.
func TestShareRoutes(t *testing.T) {
	tcp, socket := sharing(t)
	bearer := "Bearer " + testToken
	for _, tc := range []struct {
		name         string
		h            http.Handler
		method, path string
		auth, body   string
		code         int
		contentType  string
		want         string // the body, or the error envelope's code
	}{
		{"sessions over the socket", socket, "GET", "/api/sessions", "", "", 200, "application/json", `{"sessions":["ses_1"]}`},
		{"sessions over tcp without the bearer", tcp, "GET", "/api/sessions", "", "", 401, "", ""},
		{"sessions over tcp with the bearer", tcp, "GET", "/api/sessions", bearer, "", 200, "application/json", `{"sessions":["ses_1"]}`},
		{"a bundle", socket, "GET", "/api/sessions/ses_1/bundle", "", "", 200, "application/json", `{"markdown":false,"redact":false,"redactNotes":false,"session":"ses_1"}`},
		{"a bundle with its notes redacted", tcp, "GET", "/api/sessions/ses_1/bundle?redactNotes=true", bearer, "", 200, "application/json", `{"markdown":false,"redact":false,"redactNotes":true,"session":"ses_1"}`},
		{"a redacted bundle", socket, "GET", "/api/sessions/ses_1/bundle?redact=true", "", "", 200, "application/json", `{"markdown":false,"redact":true,"redactNotes":false,"session":"ses_1"}`},
		{"markdown", socket, "GET", "/api/sessions/ses_1/markdown", "", "", 200, "text/markdown; charset=utf-8", `{"markdown":true,"redact":false,"redactNotes":false,"session":"ses_1"}`},
		{"redacted markdown", socket, "GET", "/api/sessions/ses_1/markdown?redact=true", "", "", 200, "text/markdown; charset=utf-8", `{"markdown":true,"redact":true,"redactNotes":false,"session":"ses_1"}`},
		{"export refused", socket, "GET", "/api/sessions/ses_9/bundle", "", "", 422, "application/json", "BUNDLE_INVALID"},
		{"export over tcp without the bearer", tcp, "GET", "/api/sessions/ses_1/bundle", "", "", 401, "", ""},
		{"import", socket, "POST", "/api/import", "", "{}", 200, "application/json", `{"body":"{}","dryRun":false}`},
		{"a dry run", tcp, "POST", "/api/import?dryRun=true", bearer, "{}", 200, "application/json", `{"body":"{}","dryRun":true}`},
		{"import refused", socket, "POST", "/api/import", "", "tampered", 422, "application/json", "BUNDLE_INVALID"},
		{"import over tcp without the bearer", tcp, "POST", "/api/import", "", "{}", 401, "", ""},
		{"import is a POST", socket, "GET", "/api/import", "", "", 405, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := request(tc.h, tc.method, tc.path, tc.auth, tc.body)
			if rec.Code != tc.code {
				t.Fatalf("%s %s: %d, want %d: %s", tc.method, tc.path, rec.Code, tc.code, rec.Body)
			}
			if tc.contentType != "" && rec.Header().Get("Content-Type") != tc.contentType {
				t.Errorf("Content-Type %q, want %q", rec.Header().Get("Content-Type"), tc.contentType)
			}
			switch {
			case tc.code == 422:
				var r protocol.ErrorResult
				if err := json.Unmarshal(rec.Body.Bytes(), &r); err != nil || r.Kind != protocol.KindError || string(r.Error.Code) != tc.want || r.Error.Details["entry"] != "events" {
					t.Errorf("refusal %s: %v", rec.Body, err)
				}
			case tc.want != "":
				var got, want any
				json.Unmarshal(rec.Body.Bytes(), &got)
				json.Unmarshal([]byte(tc.want), &want)
				if g, w := encode(got), encode(want); g != w {
					t.Errorf("body %s, want %s", rec.Body, tc.want)
				}
			}
		})
	}
}

// A daemon wired without them serves none of the sharing routes.
func TestShareRoutesNeedTheWiring(t *testing.T) {
	tcp, socket := surfaces(t)
	for _, h := range []http.Handler{tcp, socket} {
		if rec := request(h, "GET", "/api/sessions", "Bearer "+testToken, ""); rec.Code != http.StatusNotFound {
			t.Errorf("GET /api/sessions without the wiring: %d", rec.Code)
		}
	}
}

func encode(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
