package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/workrail/workrail/store/storetest"
)

// writeUserWorkflow writes a workflow file into home's workflows folder.
func writeUserWorkflow(t *testing.T, home, name, src string) {
	t.Helper()
	dir := filepath.Join(home, "workflows")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
}

const typedWorkflow = `{"id":"user.typed","name":"Typed inputs","description":"Takes one input of each type.","version":"1",
 "context":[{"name":"topic","type":"string","required":true,"description":"What to look at."},
            {"name":"rounds","type":"integer","required":true,"description":"How many rounds."},
            {"name":"strict","type":"boolean","description":"Whether to be strict."},
            {"name":"files","type":"array","description":"Files to read."}],
 "steps":[{"id":"one","title":"One","prompt":"Look at the topic."}]}`

const routineWorkflow = `{"id":"user.tiny-routine","kind":"routine","name":"Tiny routine","description":"Runs inside another step.","version":"1",
 "steps":[{"id":"r1","title":"R1","prompt":"Do it."}]}`

func ctx10(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// Workflows are prompts: one per startable workflow (routines stay out),
// its inputs as arguments; getting one with arguments gives a message
// whose start call works as it is.
func TestWorkflowsArePrompts(t *testing.T) {
	home := newHome(t)
	writeUserWorkflow(t, home, "typed.json", typedWorkflow)
	writeUserWorkflow(t, home, "routine.json", routineWorkflow)
	s := startShimFull(t, home)
	if s.init.Capabilities.Prompts == nil || !s.init.Capabilities.Prompts.ListChanged || s.init.Capabilities.Resources == nil {
		t.Fatalf("capabilities %+v; want prompts with listChanged, and resources", s.init.Capabilities)
	}
	ctx := ctx10(t)
	list, err := s.c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]mcp.Prompt{}
	for _, p := range list.Prompts {
		byName[p.Name] = p
	}
	if _, ok := byName["user.tiny-routine"]; ok {
		t.Error("a routine is offered as a prompt")
	}
	if _, ok := byName["wr.hello"]; !ok {
		t.Errorf("wr.hello is not a prompt: %v", list.Prompts)
	}
	typed, ok := byName["user.typed"]
	if !ok || typed.Title != "Typed inputs" || typed.Description != "Takes one input of each type." || len(typed.Arguments) != 4 {
		t.Fatalf("user.typed as a prompt: %+v", typed)
	}
	if a := typed.Arguments[0]; a.Name != "topic" || !a.Required || a.Description != "What to look at." {
		t.Errorf("topic argument %+v", a)
	}
	if a := typed.Arguments[2]; a.Name != "strict" || a.Required || !strings.Contains(a.Description, "true or false") {
		t.Errorf("strict argument %+v", a)
	}

	get := mcp.GetPromptRequest{}
	get.Params.Name = "user.typed"
	get.Params.Arguments = map[string]string{"topic": "the cache", "rounds": "3", "strict": "true", "files": `["a.go","b.go"]`}
	got, err := s.c.GetPrompt(ctx, get)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Messages) != 1 || got.Messages[0].Role != mcp.RoleUser {
		t.Fatalf("prompt messages %+v", got.Messages)
	}
	text := got.Messages[0].Content.(mcp.TextContent).Text
	args := startCallIn(t, text)
	want := map[string]any{"topic": "the cache", "rounds": 3.0, "strict": true, "files": []any{"a.go", "b.go"}}
	if fmt.Sprint(args["context"]) != fmt.Sprint(want) || args["workflowId"] != "user.typed" || args["workspacePath"] != home {
		t.Fatalf("the start call in the prompt: %v\n%s", args, text)
	}
	r := call(t, s.c, "start_workflow", args)
	if r.kind() != "step" || !strings.Contains(r.Text, "Look at the topic.") {
		t.Fatalf("starting as the prompt says: %s", r.Text)
	}

	for name, bad := range map[string]map[string]string{
		"a missing required argument": {"topic": "x"},
		"an integer that is not one":  {"topic": "x", "rounds": "three"},
		"an unknown argument":         {"topic": "x", "rounds": "1", "colour": "red"},
	} {
		get.Params.Arguments = bad
		if _, err := s.c.GetPrompt(ctx, get); err == nil {
			t.Errorf("%s: the prompt was given", name)
		}
	}
	get.Params.Name, get.Params.Arguments = "user.tiny-routine", nil
	if _, err := s.c.GetPrompt(ctx, get); err == nil {
		t.Error("a routine was given as a prompt")
	}
}

// startCallIn reads the JSON block of a prompt's message.
func startCallIn(t *testing.T, text string) map[string]any {
	t.Helper()
	_, block, ok := strings.Cut(text, "```json\n")
	block, _, ok2 := strings.Cut(block, "```")
	var args map[string]any
	if !ok || !ok2 || json.Unmarshal([]byte(block), &args) != nil {
		t.Fatalf("no start call in the prompt message:\n%s", text)
	}
	if !strings.Contains(text, "start_workflow") {
		t.Fatalf("the message does not name start_workflow:\n%s", text)
	}
	return args
}

// A workflow file saved in the user's folder reaches a listening client
// as notifications/prompts/list_changed, through the shim.
func TestPromptsListChangedAfterAFileEdit(t *testing.T) {
	home := newHome(t)
	s := startShimFull(t, home)
	changed := make(chan string, 4)
	// The harness's client never ran Client.Start, which routes the
	// transport's notifications to OnNotification: listen on the transport.
	s.c.GetTransport().SetNotificationHandler(func(n mcp.JSONRPCNotification) { changed <- n.Method })
	ctx := ctx10(t)
	before, err := s.c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the shim opens its stream after initialize
	writeUserWorkflow(t, home, "typed.json", typedWorkflow)
	select {
	case m := <-changed:
		if m != "notifications/prompts/list_changed" {
			t.Fatalf("notification %q", m)
		}
	case <-time.After(8 * time.Second):
		t.Fatalf("no list_changed within 8 s of saving a workflow; shim stderr:\n%s", s.stderr)
	}
	after, err := s.c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Prompts) != len(before.Prompts)+1 {
		t.Fatalf("%d prompts after the edit, %d before", len(after.Prompts), len(before.Prompts))
	}
}

// Each resource template reads, resources/list pages the sessions most
// recently active first, and an unknown id is an error, not a crash.
func TestSessionsRunsAndWorkflowsAreResources(t *testing.T) {
	home := newHome(t)
	s := startShimFull(t, home)
	ctx := ctx10(t)
	first := startHello(t, s.c)
	advance(t, s.c, first, "Said hello to the user.")
	for range 50 {
		startHello(t, s.c)
	}
	advance(t, s.c, rehydrate(t, s.c, str(first.S, "stateToken")), "Back on the first session.") // ses_1 is now the most recent

	tpl, err := s.c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	if err != nil || len(tpl.ResourceTemplates) != 3 {
		t.Fatalf("templates: %v %+v", err, tpl)
	}
	var seen []string
	var cursor mcp.Cursor
	for page := 0; ; page++ {
		req := mcp.ListResourcesRequest{}
		req.Params.Cursor = cursor
		res, err := s.c.ListResourcesByPage(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if page == 0 && (len(res.Resources) != 50 || res.NextCursor == "") {
			t.Fatalf("first page: %d resources, next %q; want 50 and a cursor", len(res.Resources), res.NextCursor)
		}
		for _, r := range res.Resources {
			seen = append(seen, r.URI)
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	if len(seen) != 51 || seen[0] != "workrail://sessions/ses_1" || seen[1] != "workrail://sessions/ses_51" {
		t.Fatalf("%d sessions listed, starting %v; want 51, ses_1 then ses_51", len(seen), seen[:2])
	}

	read := func(uri string) (mcp.TextResourceContents, error) {
		req := mcp.ReadResourceRequest{}
		req.Params.URI = uri
		res, err := s.c.ReadResource(ctx, req)
		if err != nil {
			return mcp.TextResourceContents{}, err
		}
		return res.Contents[0].(mcp.TextResourceContents), nil
	}
	sess, err := read("workrail://sessions/ses_1")
	if err != nil || sess.MIMEType != "text/markdown" || !strings.Contains(sess.Text, "## run_1: Hello, WorkRail") ||
		!strings.Contains(sess.Text, "Said hello to the user.") {
		t.Fatalf("session resource: %v\n%+v", err, sess)
	}
	run, err := read("workrail://sessions/ses_1/runs/run_1")
	if err != nil || !strings.HasPrefix(run.Text, "# run_1 of ses_1\n") || !strings.Contains(run.Text, "### Pending step") ||
		!strings.Contains(run.Text, "Back on the first session.") {
		t.Fatalf("run resource: %v\n%+v", err, run)
	}
	again, _ := read("workrail://sessions/ses_1/runs/run_1")
	if again.Text != run.Text {
		t.Error("the same run reads differently twice")
	}
	wf, err := read("workrail://workflows/wr.hello")
	var src struct{ ID string }
	if err != nil || wf.MIMEType != "application/json" || json.Unmarshal([]byte(wf.Text), &src) != nil || src.ID != "wr.hello" {
		t.Fatalf("workflow resource: %v\n%+v", err, wf)
	}
	for _, uri := range []string{"workrail://sessions/ses_99", "workrail://sessions/ses_1/runs/run_9", "workrail://sessions/nope",
		"workrail://workflows/user.nope", "workrail://elsewhere"} {
		if _, err := read(uri); err == nil {
			t.Errorf("%s read without an error", uri)
		}
	}
}

// toolCall is one tool call's whole result.
func toolCall(t *testing.T, c *client.Client, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	res, err := c.CallTool(ctx10(t), req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// Every result about a run links to it: a resource_link to its session,
// its Console page in structuredContent and once, last, in its text; a
// replay repeats the answer byte for byte, link included.
func TestRunResultsLinkToTheirRun(t *testing.T) {
	home := newHome(t)
	s := startShimFull(t, home)
	base := mustInfo(t, home).URL
	check := func(what string, res *mcp.CallToolResult, session, run string) {
		t.Helper()
		url := base + "/sessions/" + session + "/runs/" + run
		sc, _ := res.StructuredContent.(map[string]any)
		text := res.Content[0].(mcp.TextContent).Text
		if sc["consoleUrl"] != url || sc["text"] != text {
			t.Errorf("%s: consoleUrl %v, want %s (structured text equal to content: %v)", what, sc["consoleUrl"], url, sc["text"] == text)
		}
		if !strings.HasSuffix(text, "\n\nConsole: "+url+"\n") || strings.Count(text, url) != 1 {
			t.Errorf("%s: the text does not end with the URL once:\n%s", what, text)
		}
		var links int
		for _, c := range res.Content[1:] {
			if l, ok := c.(mcp.ResourceLink); ok && l.URI == "workrail://sessions/"+session && l.MIMEType == "text/markdown" {
				links++
			}
		}
		if links != 1 {
			t.Errorf("%s: %d resource links to %s in %+v", what, links, session, res.Content)
		}
	}
	st := toolCall(t, s.c, "start_workflow", map[string]any{"workflowId": "wr.hello"})
	check("start", st, "ses_1", "run_1")
	sc := st.StructuredContent.(map[string]any)
	args := map[string]any{"stateToken": sc["stateToken"], "ackToken": sc["ackToken"], "output": map[string]any{"notesMarkdown": "Greeted."}}
	adv := toolCall(t, s.c, "continue_workflow", args)
	check("advance", adv, "ses_1", "run_1")
	replay := toolCall(t, s.c, "continue_workflow", args)
	if a, b := adv.Content[0].(mcp.TextContent).Text, replay.Content[0].(mcp.TextContent).Text; a != b {
		t.Errorf("the replay differs:\n%s\n---\n%s", a, b)
	}
	check("rehydrate", toolCall(t, s.c, "continue_workflow", map[string]any{"stateToken": sc["stateToken"]}), "ses_1", "run_1")
	next := adv.StructuredContent.(map[string]any)
	chk := toolCall(t, s.c, "checkpoint_workflow", map[string]any{"stateToken": next["stateToken"], "checkpointToken": next["checkpointToken"],
		"output": map[string]any{"notesMarkdown": "Halfway."}})
	check("checkpoint", chk, "ses_1", "run_1")
	second := toolCall(t, s.c, "start_workflow", map[string]any{"workflowId": "wr.hello", "stateToken": next["stateToken"]})
	check("a second run in the session", second, "ses_1", "run_2")
	r := result{S: second.StructuredContent.(map[string]any)}
	for r.kind() == "step" {
		r = advance(t, s.c, r, "Done.")
	}
	mustKind(t, r, "complete")
	done := toolCall(t, s.c, "continue_workflow", map[string]any{"stateToken": str(r.S, "stateToken")})
	check("complete", done, "ses_1", "run_2")

	res := toolCall(t, s.c, "resume_session", map[string]any{})
	var links int
	for _, c := range res.Content[1:] {
		if _, ok := c.(mcp.ResourceLink); ok {
			links++
		}
	}
	if links == 0 {
		t.Errorf("resume_session's candidates carry no resource links: %+v", res.Content)
	}
	list := toolCall(t, s.c, "list_workflows", map[string]any{})
	if len(list.Content) != 1 || strings.Contains(list.Content[0].(mcp.TextContent).Text, "Console: ") {
		t.Errorf("list_workflows, about no run, carries a link: %+v", list.Content)
	}
}

// A session whose log is damaged reads as an error that says what to do,
// through the shim, and the daemon goes on serving.
func TestDamagedSessionResourceIsAnError(t *testing.T) {
	home := newHome(t)
	c := startShim(t, home)
	advance(t, c, startHello(t, c), "Greeted.")
	startHello(t, c)
	stopDaemon(t, home)
	damage(t, home, func(tx storetest.Tx) error {
		ev := tx.Events(1)
		k := storetest.EventKey(2)
		v := append([]byte(nil), ev.Get(k)...)
		v[len(v)/2] ^= 0x04
		return ev.Put(k, v)
	})
	lines := rawLines(t, home,
		`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"workrail://sessions/ses_1"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"workrail://sessions/ses_1/runs/run_1"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"workrail://sessions/ses_2"}}`)
	for _, id := range []float64{1, 2} {
		m := lines[id]
		if str(m, "error", "data", "error", "code") != "SESSION_CORRUPT" || !strings.Contains(str(m, "error", "message"), "workrail doctor") {
			t.Errorf("reading damaged ses_1 (request %v): %v", id, m)
		}
	}
	if b, _ := json.Marshal(lines[3]); lines[3]["result"] == nil || !strings.Contains(string(b), "## run_1: Hello, WorkRail") {
		t.Errorf("the healthy session beside it: %s", b)
	}
}

// rawLines sends JSON-RPC requests through a shim after initializing and
// returns the replies by id.
func rawLines(t *testing.T, home string, reqs ...string) map[float64]map[string]any {
	t.Helper()
	cmd := exec.Command(bin, "mcp")
	cmd.Env, cmd.Dir = procEnv(home), home
	in := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}` + "\n" +
		strings.Join(reqs, "\n") + "\n"
	cmd.Stdin = strings.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("workrail mcp: %v", err)
	}
	got := map[float64]map[string]any{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("reply %q: %v", l, err)
		}
		if id, ok := m["id"].(float64); ok {
			got[id] = m
		}
	}
	if len(got) != len(reqs)+1 {
		t.Fatalf("%d replies to %d requests:\n%s", len(got), len(reqs)+1, out)
	}
	return got
}
