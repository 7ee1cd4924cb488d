package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/workrail/workrail/engine/protocol"
)

// The two protocol versions a client meets WorkRail with today: 2026-07-28
// (no handshake: server/discover, and the version in every request's
// _meta) and 2025-11-25 (the initialize handshake, what IDEs send).
var versions = []string{mcp.ProtocolVersion20260728, mcp.ProtocolVersion20251125}

// httpMCP is an mcp-go client of the daemon's /mcp over TCP, with its
// bearer token, asking for protocol version.
func httpMCP(t *testing.T, home, url, version string) (*client.Client, *mcp.InitializeResult) {
	t.Helper()
	token, err := os.ReadFile(filepath.Join(home, "auth.token"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.NewStreamableHttpClient(url+"/mcp",
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + strings.TrimSpace(string(token))}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx := ctx10(t)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = version
	req.Params.ClientInfo = mcp.Implementation{Name: "workrail-e2e-http", Version: "1"}
	init, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatalf("initialize at %s over HTTP: %v", version, err)
	}
	return c, init
}

// mcp-go's client negotiates either version over stdio (through the
// shim) and over HTTP (the daemon's /mcp), hears how WorkRail works, and
// then lists, gets, runs and reads alike.
func TestProtocolVersionsNegotiate(t *testing.T) {
	home := newHome(t)
	d := startDaemon(t, home)
	for _, version := range versions {
		for _, over := range []string{"stdio", "http"} {
			t.Run(version+"/"+over, func(t *testing.T) {
				var c *client.Client
				var init *mcp.InitializeResult
				if over == "stdio" {
					s, err := spawnShimAt(version, home, bin, home)
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { s.c.Close() })
					c, init = s.c, s.init
				} else {
					c, init = httpMCP(t, home, d.info.URL, version)
				}
				if init.ProtocolVersion != version || c.ProtocolVersion() != version {
					t.Fatalf("negotiated %q (client: %q), want %q", init.ProtocolVersion, c.ProtocolVersion(), version)
				}
				if init.Instructions != protocol.Instructions {
					t.Errorf("instructions %q, want protocol.Instructions", init.Instructions)
				}
				if init.Capabilities.Prompts == nil || !init.Capabilities.Prompts.ListChanged || init.Capabilities.Resources == nil {
					t.Errorf("capabilities %+v", init.Capabilities)
				}
				workAlike(t, c)
			})
		}
	}
}

// workAlike is what every client does first: list the tools and the
// prompts, get one, run wr.hello writing its own notes, and read the
// session back from resources/list.
func workAlike(t *testing.T, c *client.Client) {
	t.Helper()
	ctx := ctx10(t)
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil || len(tools.Tools) < 4 {
		t.Fatalf("tools/list: %v %d tools", err, len(tools.Tools))
	}
	prompts, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil || !slices.ContainsFunc(prompts.Prompts, func(p mcp.Prompt) bool { return p.Name == "wr.hello" }) {
		t.Fatalf("prompts/list: %v %+v", err, prompts)
	}
	// Only what a person gives at the start is an argument: the loop's
	// stop flag, which the agent sets during the run, is not.
	if got := argumentNames(prompts.Prompts, "wr.bug_investigation"); !slices.Equal(got, []string{"depth", "hasReproduction", "fixRequested"}) {
		t.Errorf("wr.bug_investigation's prompt arguments %v; want depth, hasReproduction, fixRequested", got)
	}
	if r := call(t, c, "inspect_workflow", map[string]any{"workflowId": "wr.bug_investigation"}); !strings.Contains(r.Text, "- rootCauseConfirmed (boolean, optional, set during the run)") {
		t.Errorf("inspect_workflow does not say rootCauseConfirmed is set during the run:\n%s", r.Text)
	}
	get := mcp.GetPromptRequest{}
	get.Params.Name = "wr.hello"
	if got, err := c.GetPrompt(ctx, get); err != nil || startCallIn(t, got.Messages[0].Content.(mcp.TextContent).Text)["workflowId"] != "wr.hello" {
		t.Fatalf("prompts/get: %v", err)
	}
	get.Params.Name, get.Params.Arguments = "wr.bug_investigation", map[string]string{"depth": "bottomless"}
	if _, err := c.GetPrompt(ctx, get); err == nil || !strings.Contains(err.Error(), `argument "depth"`) || !strings.Contains(err.Error(), "quick, standard, thorough") {
		t.Errorf("prompts/get with a value outside the enum: %v; want it refused naming the argument and its values", err)
	}
	r := startHello(t, c)
	for i := 0; r.kind() == "step"; i++ {
		if i == 10 {
			t.Fatal("wr.hello did not complete in 10 steps")
		}
		r = call(t, c, "continue_workflow", map[string]any{"stateToken": str(r.S, "stateToken"), "ackToken": str(r.S, "ackToken"),
			"output": map[string]any{"notesMarkdown": "Did this step of wr.hello myself."}})
	}
	mustKind(t, r, "complete")
	sid := str(r.S, "session", "sessionId")
	list, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil || len(list.Resources) == 0 || list.Resources[0].URI != "workrail://sessions/"+sid {
		t.Fatalf("resources/list: %v; the session just run (%s) is not first: %+v", err, sid, list)
	}
	if first := list.Resources[0]; first.Name != "Did this step of wr.hello myself. · "+sid ||
		!strings.HasPrefix(first.Description, "complete · wr.hello, 1 run · last activity ") {
		t.Errorf("the session is listed as %q: %q; want it named by its title and id, its state and last activity described", first.Name, first.Description)
	}
	read := mcp.ReadResourceRequest{}
	read.Params.URI = list.Resources[0].URI
	res, err := c.ReadResource(ctx, read)
	if err != nil || !strings.Contains(res.Contents[0].(mcp.TextResourceContents).Text, "Did this step of wr.hello myself.") {
		t.Fatalf("resources/read %s: %v", read.Params.URI, err)
	}
	read.Params.URI = "workrail://sessions/ses_999"
	if _, err := c.ReadResource(ctx, read); err == nil {
		t.Error("an unknown session was read without an error")
	}
}

// argumentNames are the arguments of prompt name.
func argumentNames(ps []mcp.Prompt, name string) []string {
	var out []string
	for _, p := range ps {
		if p.Name == name {
			for _, a := range p.Arguments {
				out = append(out, a.Name)
			}
		}
	}
	return out
}

// tsSession is what e2e/sdk/session.mjs saw.
type tsSession struct {
	ProtocolVersion string
	Instructions    string
	Server          string
	Tools           []string
	Prompts         []string
	BugArguments    []string
	PromptText      string
	BadPrompt       string
	Kinds           []string
	Session         string
	Resources       []struct{ URI, Name, Description string }
	SessionMarkdown string
}

// The official TypeScript MCP clients connect and work over stdio and
// HTTP: @modelcontextprotocol/sdk 1.32 (e2e/package.json), which speaks
// protocol versions up to 2025-11-25, and @modelcontextprotocol/client
// 2.4, pinned to 2026-07-28. Each runs e2e/sdk/session.mjs: instructions,
// tools, prompts, a run of wr.hello, its session as a resource.
func TestTypeScriptClients(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		needsNode(t, "node is not installed")
	}
	for _, pkg := range []string{"sdk", "client"} {
		if _, err := os.Stat(filepath.Join("node_modules", "@modelcontextprotocol", pkg)); err != nil {
			needsNode(t, "@modelcontextprotocol/"+pkg+" is not installed: run `npm ci` in e2e")
		}
	}
	script, err := filepath.Abs(filepath.Join("sdk", "session.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	home := newHome(t)
	d := startDaemon(t, home)
	token, err := os.ReadFile(filepath.Join(home, "auth.token"))
	if err != nil {
		t.Fatal(err)
	}
	for _, sdk := range []struct{ name, version string }{{"v1", mcp.ProtocolVersion20251125}, {"v2", mcp.ProtocolVersion20260728}} {
		for _, over := range []string{"stdio", "http"} {
			t.Run(sdk.name+"/"+over, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				cmd := exec.CommandContext(ctx, "node", script, sdk.name, over)
				cmd.Env = append(procEnv(home), "WORKRAIL_BIN="+bin, "WORKRAIL_URL="+d.info.URL, "WORKRAIL_TOKEN="+strings.TrimSpace(string(token)))
				cmd.Dir = home
				var stderr syncBuffer
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("node session.mjs %s %s: %v\n%s", sdk.name, over, err, &stderr)
				}
				var s tsSession
				if err := json.Unmarshal(out, &s); err != nil {
					t.Fatalf("session.mjs printed %q: %v", out, err)
				}
				if s.ProtocolVersion != sdk.version {
					t.Errorf("negotiated %q, want %q", s.ProtocolVersion, sdk.version)
				}
				if s.Instructions != protocol.Instructions || s.Server != "workrail" {
					t.Errorf("server %q, instructions %q", s.Server, s.Instructions)
				}
				if !slices.Contains(s.Tools, "continue_workflow") || !slices.Contains(s.Prompts, "wr.hello") || !strings.Contains(s.PromptText, "start_workflow") {
					t.Errorf("tools %v, prompts %v, prompt text %q", s.Tools, s.Prompts, s.PromptText)
				}
				if !slices.Equal(s.BugArguments, []string{"depth", "hasReproduction", "fixRequested"}) {
					t.Errorf("wr.bug_investigation's prompt arguments %v; want depth, hasReproduction, fixRequested", s.BugArguments)
				}
				if !strings.Contains(s.BadPrompt, `argument "depth"`) || !strings.Contains(s.BadPrompt, "quick, standard, thorough") {
					t.Errorf("prompts/get with a value outside the enum: %q; want it refused naming the argument and its values", s.BadPrompt)
				}
				if len(s.Kinds) < 2 || s.Kinds[len(s.Kinds)-1] != "complete" {
					t.Errorf("wr.hello went %v", s.Kinds)
				}
				if len(s.Resources) == 0 || s.Resources[0].URI != "workrail://sessions/"+s.Session ||
					s.Resources[0].Name != "Did step 1 of wr.hello myself. · "+s.Session || !strings.HasPrefix(s.Resources[0].Description, "complete · wr.hello, 1 run · last activity ") ||
					!strings.Contains(s.SessionMarkdown, "Did step 1 of wr.hello myself.") {
					t.Errorf("session %s: resources %+v, markdown %q", s.Session, s.Resources, s.SessionMarkdown)
				}
			})
		}
	}
}

// needsNode skips a test that needs Node and e2e's node_modules where
// they are missing, except in CI, whose test command installs them.
func needsNode(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(why)
	}
	t.Skip(why)
}

// A 2026-07-28 client asks for notifications with subscriptions/listen
// (there is no initialized notification after which the shim would open
// its stream): through the shim it is acknowledged at once and hears
// list_changed when a workflow file is saved.
func TestModernClientHearsListChanged(t *testing.T) {
	home := newHome(t)
	s, err := spawnShimAt(mcp.ProtocolVersion20260728, home, bin, home)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.c.Close() })
	heard := make(chan string, 8)
	s.c.GetTransport().SetNotificationHandler(func(n mcp.JSONRPCNotification) { heard <- n.Method })
	ctx := ctx10(t)
	if _, err := s.c.ListPrompts(ctx, mcp.ListPromptsRequest{}); err != nil {
		t.Fatal(err)
	}
	stop, err := s.c.ListenAsync(context.Background(), mcp.SubscriptionFilter{PromptsListChanged: true}, func(err error) { t.Errorf("listen: %v", err) })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	wait := func(method string) {
		t.Helper()
		for {
			select {
			case m := <-heard:
				if m == method {
					return
				}
			case <-time.After(8 * time.Second):
				t.Fatalf("no %s within 8 s; shim stderr:\n%s", method, s.stderr)
			}
		}
	}
	wait(string(mcp.MethodNotificationSubscriptionsAcknowledged))
	writeUserWorkflow(t, home, "typed.json", typedWorkflow)
	wait("notifications/prompts/list_changed")
}
