package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

var helloSteps = []string{"greet", "look-around", "wrap-up"}

func TestShimRoundTrip(t *testing.T) {
	home := newHome(t)
	s := startShimFull(t, home)
	c := s.c

	if s.init.ServerInfo.Name != "workrail" {
		t.Errorf("serverInfo.name = %q, want workrail", s.init.ServerInfo.Name)
	}
	if s.init.ProtocolVersion != mcp.LATEST_LEGACY_PROTOCOL_VERSION {
		t.Errorf("protocolVersion = %q, want %q", s.init.ProtocolVersion, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	}
	if s.init.Capabilities.Tools == nil {
		t.Errorf("initialize: no tools capability")
	}

	// tools/list: exactly the default tools, each with an object input schema.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	checkToolsList(t, c)
	// list_workflows includes wr.hello.
	lw := call(t, c, "list_workflows", map[string]any{})
	mustKind(t, lw, "workflows")
	var ids []string
	for _, w := range lw.S["workflows"].([]any) {
		ids = append(ids, str(w.(map[string]any), "id"))
	}
	if !slices.Contains(ids, "wr.hello") {
		t.Fatalf("list_workflows ids = %v, want wr.hello among them", ids)
	}
	if !strings.Contains(lw.Text, "wr.hello") {
		t.Errorf("list_workflows text does not mention wr.hello:\n%s", lw.Text)
	}

	// A full run following nextCall.arguments, with notes.
	r := startHello(t, c)
	session := str(r.S, "session", "sessionId")
	if str(r.S, "workflow", "workflowId") != "wr.hello" || str(r.S, "workflow", "workflowHash") == "" || session == "" || str(r.S, "session", "runId") == "" {
		t.Fatalf("start: workflow/session refs incomplete: %s", r.Raw)
	}
	for i, step := range helloSteps {
		mustKind(t, r, "step")
		if got := str(r.S, "pending", "stepId"); got != step {
			t.Fatalf("step %d = %q, want %q", i+1, got, step)
		}
		if str(r.S, "pending", "title") == "" || str(r.S, "pending", "prompt") == "" {
			t.Fatalf("step %s has no title or prompt: %s", step, r.Raw)
		}
		checkProgress(t, r, i+1, len(helloSteps))
		if ic, ok := r.S["isComplete"].(bool); !ok || ic {
			t.Errorf("step %s: isComplete = %v, want false", step, r.S["isComplete"])
		}
		for _, k := range []string{"stateToken", "ackToken", "checkpointToken"} {
			if str(r.S, k) == "" {
				t.Errorf("step %s: %s missing", step, k)
			}
		}
		if str(r.S, "nextCall", "arguments", "stateToken") != str(r.S, "stateToken") ||
			str(r.S, "nextCall", "arguments", "ackToken") != str(r.S, "ackToken") {
			t.Errorf("step %s: nextCall.arguments does not carry the tokens of the result", step)
		}
		if _, ok := r.S["warnings"].([]any); !ok {
			t.Errorf("step %s: warnings is %T, want an array", step, r.S["warnings"])
		}
		if str(r.S, "session", "sessionId") != session {
			t.Errorf("step %s: session changed to %s", step, str(r.S, "session", "sessionId"))
		}
		r = advance(t, c, r, "did "+step)
	}
	mustKind(t, r, "complete")
	if r.S["isComplete"] != true || str(r.S, "stateToken") == "" {
		t.Fatalf("complete result: %s", r.Raw)
	}
	if _, has := r.S["nextCall"]; has {
		t.Errorf("complete result carries a nextCall: %s", r.Raw)
	}

	// Notes are durable writes: a run advanced without output has fewer
	// events than the one above.
	withNotes := sessionEvents(t, home, session)
	r2 := startHello(t, c)
	for r2.kind() == "step" {
		args := nextArgs(t, r2, "")
		delete(args, "output")
		r2 = call(t, c, "continue_workflow", args)
	}
	mustKind(t, r2, "complete")
	if without := sessionEvents(t, home, str(r2.S, "session", "sessionId")); without >= withNotes {
		t.Errorf("a run with notes has %d events, one without %d: notes were not recorded", withNotes, without)
	}

	t.Run("StructuredOnlyAgent", func(t *testing.T) {
		// This agent never looks at content: it decodes the structured
		// bytes and calls exactly what nextCall names.
		type structured struct {
			Kind     string `json:"kind"`
			Pending  struct{ StepID string }
			NextCall *struct {
				Tool      string         `json:"tool"`
				Arguments map[string]any `json:"arguments"`
			} `json:"nextCall"`
		}
		callRaw := func(tool string, args map[string]any) structured {
			res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: tool, Arguments: args}})
			if err != nil {
				t.Fatal(err)
			}
			var s structured
			if err := json.Unmarshal(res.RawStructuredContent, &s); err != nil {
				t.Fatalf("structuredContent: %v", err)
			}
			return s
		}
		s := callRaw("start_workflow", map[string]any{"workflowId": "wr.hello"})
		var seen []string
		for s.Kind == "step" && len(seen) < 10 {
			seen = append(seen, s.Pending.StepID)
			if s.NextCall == nil {
				t.Fatal("step without nextCall")
			}
			s.NextCall.Arguments["output"] = map[string]any{"notesMarkdown": "done: " + s.Pending.StepID}
			s = callRaw(s.NextCall.Tool, s.NextCall.Arguments)
		}
		if s.Kind != "complete" || !slices.Equal(seen, helloSteps) {
			t.Fatalf("structured-only agent ended at kind %q after steps %v", s.Kind, seen)
		}
	})

	t.Run("TextOnlyAgent", func(t *testing.T) {
		// This agent sees only content[0].text: the JSON block of the
		// "Next call" section is everything it needs.
		block := regexp.MustCompile("(?s)## Next call\n.*?```json\n(.*?)\n```")
		textOf := func(res *mcp.CallToolResult) string {
			tc, ok := mcp.AsTextContent(res.Content[0])
			if !ok {
				t.Fatalf("content[0] is %T", res.Content[0])
			}
			return tc.Text
		}
		res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "start_workflow", Arguments: map[string]any{"workflowId": "wr.hello"}}})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; ; i++ {
			text := textOf(res)
			if strings.HasPrefix(text, "# Workflow complete") {
				if i != 3 {
					t.Fatalf("complete after %d advances, want 3", i)
				}
				return
			}
			if i >= 3 {
				t.Fatalf("not complete after 3 advances; text:\n%s", text)
			}
			if want := "step: " + helloSteps[i]; !strings.Contains(text, want) {
				t.Fatalf("text lacks %q:\n%s", want, text)
			}
			m := block.FindStringSubmatch(text)
			if m == nil {
				t.Fatalf("no Next call JSON block in text:\n%s", text)
			}
			var args map[string]any
			if err := json.Unmarshal([]byte(m[1]), &args); err != nil {
				t.Fatalf("Next call block is not JSON: %v\n%s", err, m[1])
			}
			args["output"] = map[string]any{"notesMarkdown": "text agent: step " + helloSteps[i]}
			res, err = c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "continue_workflow", Arguments: args}})
			if err != nil {
				t.Fatal(err)
			}
		}
	})
}

// checkProgress requires progress to place the n-th of total top-level
// steps (wr.hello has no loops or conditions). It accepts both the
// stepNumber/stepCount and the part/parts spelling.
func checkProgress(t testing.TB, r result, n, total int) {
	t.Helper()
	p, ok := r.S["progress"].(map[string]any)
	if !ok || len(p) == 0 {
		t.Errorf("step %s: progress is %v, want an object", str(r.S, "pending", "stepId"), r.S["progress"])
		return
	}
	for _, names := range [][2]string{{"stepNumber", "stepCount"}, {"part", "parts"}} {
		cur, ok1 := p[names[0]].(float64)
		all, ok2 := p[names[1]].(float64)
		if ok1 && ok2 {
			if int(cur) != n || int(all) != total {
				t.Errorf("step %s: progress %v, want %s %d of %d", str(r.S, "pending", "stepId"), p, names[0], n, total)
			}
			return
		}
	}
	t.Errorf("step %s: progress %v has no position", str(r.S, "pending", "stepId"), p)
}

// checkToolsList requires tools/list to list exactly the default tools, each
// with an object input schema naming its arguments.
func checkToolsList(t testing.TB, c *client.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Errorf("tools/list: %v", err)
		return
	}
	// The arguments each tool must name (more may be added over time).
	wantProps := map[string][]string{
		"list_workflows":      {},
		"start_workflow":      {"workflowId", "context", "workspacePath"},
		"continue_workflow":   {"stateToken", "ackToken", "context", "output", "workspacePath"},
		"checkpoint_workflow": {"stateToken", "checkpointToken", "output"},
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		want, ok := wantProps[tool.Name]
		if !ok {
			continue
		}
		if tool.InputSchema.Type != "object" || tool.InputSchema.Properties == nil {
			t.Errorf("%s: inputSchema type %q, properties %v; want an object schema with properties", tool.Name, tool.InputSchema.Type, tool.InputSchema.Properties)
		}
		for _, k := range want {
			if _, ok := tool.InputSchema.Properties[k]; !ok {
				t.Errorf("%s: inputSchema.properties lacks %q", tool.Name, k)
			}
		}
		if tool.Description == "" {
			t.Errorf("%s: no description", tool.Name)
		}
	}
	sort.Strings(names)
	// The default features serve checkpoint_workflow and resume_session, not start_session.
	if want := []string{"checkpoint_workflow", "continue_workflow", "inspect_workflow", "list_workflows", "resume_session", "start_workflow"}; !slices.Equal(names, want) {
		t.Errorf("tools = %v, want exactly %v", names, want)
	}

}

func TestDaemonRestartContinuesRun(t *testing.T) {
	home := newHome(t)
	c1 := startShim(t, home)
	r := startHello(t, c1)
	r = advance(t, c1, r, "greeted")
	mustKind(t, r, "step")
	if got := str(r.S, "pending", "stepId"); got != "look-around" {
		t.Fatalf("after one advance: %q, want look-around", got)
	}
	st, ack := str(r.S, "stateToken"), str(r.S, "ackToken")

	old := stopDaemon(t, home)
	// The killed daemon is the (zombie) child of the shim that started it
	// until that shim exits and init reaps it. TestShimIgnoresZombieDaemon
	// covers the shim meeting the zombie; here the crash is fully over.
	c1.Close()
	waitReaped(t, old, 15*time.Second)

	c2 := startShim(t, home)
	i := mustInfo(t, home)
	if i.PID == old || !alive(i.PID) || !isOurDaemon(i.PID) {
		t.Fatalf("after restart daemon.json names pid %d (old %d, alive %v): the shim did not start a fresh daemon", i.PID, old, alive(i.PID))
	}

	re := rehydrate(t, c2, st)
	mustKind(t, re, "step")
	if got := str(re.S, "pending", "stepId"); got != "look-around" {
		t.Fatalf("rehydrate after restart: pending %q, want look-around", got)
	}
	if str(re.S, "stateToken") != st {
		t.Errorf("rehydrate after restart minted another stateToken for the same node")
	}
	if str(re.S, "ackToken") != ack {
		t.Errorf("rehydrate of a node with no attempts gave a different ackToken than the one first issued")
	}

	r = call(t, c2, "continue_workflow", map[string]any{"stateToken": st, "ackToken": ack, "output": map[string]any{"notesMarkdown": "looked"}})
	mustKind(t, r, "step")
	if got := str(r.S, "pending", "stepId"); got != "wrap-up" {
		t.Fatalf("after restart, advance gave %q, want wrap-up", got)
	}
	r = advance(t, c2, r, "wrapped")
	mustKind(t, r, "complete")
	healthyDoctor(t, home)
}

func TestReplayAndRehydrate(t *testing.T) {
	home := newHome(t)
	c := startShim(t, home)
	r0 := startHello(t, c)
	session := str(r0.S, "session", "sessionId")
	args := nextArgs(t, r0, "first notes")
	r1 := call(t, c, "continue_workflow", args)
	mustKind(t, r1, "step")
	n := sessionEvents(t, home, session)

	// Replaying the same (stateToken, ackToken) answers from the record.
	for i := range 3 {
		again := call(t, c, "continue_workflow", args)
		if !bytes.Equal(again.Raw, r1.Raw) {
			t.Fatalf("replay %d differs from the first answer:\n%s\n%s", i, again.Raw, r1.Raw)
		}
	}
	if got := sessionEvents(t, home, session); got != n {
		t.Fatalf("replays grew the log from %d to %d events", n, got)
	}
	// The first write wins: a replay with other notes records nothing (its
	// answer says so: TestReplayWithOtherOutputWarnsAndItsNextCallRecordsIt).
	call(t, c, "continue_workflow", nextArgs(t, r0, "different notes"))
	if got := sessionEvents(t, home, session); got != n {
		t.Fatalf("replay with other notes grew the log from %d to %d events", n, got)
	}

	// Rehydrate writes nothing and shows the pending step again.
	for _, tc := range []struct {
		name, stateToken, step string
	}{
		{"tip", str(r1.S, "stateToken"), "look-around"},
		{"rewound", str(r0.S, "stateToken"), "greet"},
	} {
		re := rehydrate(t, c, tc.stateToken)
		mustKind(t, re, "step")
		if got := str(re.S, "pending", "stepId"); got != tc.step {
			t.Errorf("rehydrate %s: pending %q, want %q", tc.name, got, tc.step)
		}
		if str(re.S, "stateToken") != tc.stateToken {
			t.Errorf("rehydrate %s: stateToken changed", tc.name)
		}
		// Rehydrate twice: identical, since nothing was written in between.
		if again := rehydrate(t, c, tc.stateToken); !bytes.Equal(again.Raw, re.Raw) {
			t.Errorf("rehydrate %s twice gave different results", tc.name)
		}
	}
	// Inputs a rehydrate cannot use are disclosed, not silently dropped.
	re := call(t, c, "continue_workflow", map[string]any{"stateToken": str(r1.S, "stateToken"), "output": map[string]any{"notesMarkdown": "lost?"}})
	mustKind(t, re, "step")
	if ws, _ := re.S["warnings"].([]any); len(ws) != 1 || str(ws[0].(map[string]any), "code") != "OUTPUT_IGNORED_ON_REHYDRATE" {
		t.Errorf("rehydrate with output: warnings %v, want one OUTPUT_IGNORED_ON_REHYDRATE", re.S["warnings"])
	}
	if got := sessionEvents(t, home, session); got != n {
		t.Fatalf("rehydrates grew the log from %d to %d events", n, got)
	}

	// After the run moves on, the old ack still replays the old answer.
	r2 := advance(t, c, r1, "second")
	mustKind(t, r2, "step")
	n2 := sessionEvents(t, home, session)
	if n2 <= n {
		t.Fatalf("an advance did not grow the log (%d → %d)", n, n2)
	}
	if again := call(t, c, "continue_workflow", args); !bytes.Equal(again.Raw, r1.Raw) {
		t.Fatalf("replay after the run moved on differs")
	}
	if got := sessionEvents(t, home, session); got != n2 {
		t.Fatalf("late replay grew the log from %d to %d", n2, got)
	}
}

func TestForkOnRewind(t *testing.T) {
	home := newHome(t)
	c := startShim(t, home)
	r1 := startHello(t, c)
	st1, ack1 := str(r1.S, "stateToken"), str(r1.S, "ackToken")
	a := advance(t, c, r1, "branch A")
	mustKind(t, a, "step")

	// The chat was rewound to step 1: rehydrate gives a fresh attempt.
	re := rehydrate(t, c, st1)
	mustKind(t, re, "step")
	if got := str(re.S, "pending", "stepId"); got != "greet" {
		t.Fatalf("rehydrate step 1: %q", got)
	}
	ack1b := str(re.S, "ackToken")
	if ack1b == "" || ack1b == ack1 {
		t.Fatalf("rehydrate after an attempt returned the used ackToken again")
	}
	b := advance(t, c, re, "branch B")
	mustKind(t, b, "step")
	if got := str(b.S, "pending", "stepId"); got != "look-around" {
		t.Fatalf("fork: pending %q, want look-around", got)
	}
	if str(b.S, "stateToken") == str(a.S, "stateToken") {
		t.Fatalf("the fork landed on the same node as the first branch")
	}
	if str(a.S, "session", "sessionId") != str(b.S, "session", "sessionId") || str(a.S, "session", "runId") != str(b.S, "session", "runId") {
		t.Errorf("branches are in different sessions or runs: %v vs %v", a.S["session"], b.S["session"])
	}

	// Both branches continue independently, interleaved.
	for i := 0; a.kind() == "step" || b.kind() == "step"; i++ {
		if i > 5 {
			t.Fatal("branches did not complete")
		}
		if a.kind() == "step" {
			a = advance(t, c, a, "A")
		}
		if b.kind() == "step" {
			b = advance(t, c, b, "B")
		}
	}
	mustKind(t, a, "complete")
	mustKind(t, b, "complete")
	if str(a.S, "stateToken") == str(b.S, "stateToken") {
		t.Errorf("both branches completed on the same node")
	}
	// Each branch's original ack still replays to its own node.
	if r := call(t, c, "continue_workflow", map[string]any{"stateToken": st1, "ackToken": ack1}); str(r.S, "stateToken") == str(re.S, "stateToken") || str(r.S, "pending", "stepId") != "look-around" {
		t.Errorf("replay of branch A's ack: %s", r.Raw)
	}
	healthyDoctor(t, home)
}

// tamper returns tok with one base64url character of its body changed so
// that exactly one bit of the given byte of the decoded token (payload ||
// 16-byte tag) flips. It checks the result stays canonical base64.
func tamper(t *testing.T, tok string, byteIndex func(raw []byte) int) string {
	t.Helper()
	dot := strings.LastIndexByte(tok, '.')
	prefix, body := tok[:dot+1], tok[dot+1:]
	raw, err := base64.RawURLEncoding.Strict().DecodeString(body)
	if err != nil {
		t.Fatalf("token body is not base64url: %v", err)
	}
	bi := byteIndex(raw)
	bit := 8*bi + 7 // the byte's last bit, counted from the first bit of the body
	ci, off := bit/6, bit%6
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	i := strings.IndexByte(alphabet, body[ci])
	nb := []byte(body)
	nb[ci] = alphabet[i^(1<<(5-off))]
	out := prefix + string(nb)
	raw2, err := base64.RawURLEncoding.Strict().DecodeString(string(nb))
	if err != nil {
		t.Fatalf("tampered token is not canonical: %v", err)
	}
	diff := 0
	for j := range raw {
		if raw[j] != raw2[j] {
			diff++
			if j != bi {
				t.Fatalf("tamper changed byte %d, meant %d", j, bi)
			}
		}
	}
	if diff != 1 {
		t.Fatalf("tamper changed %d bytes", diff)
	}
	return out
}

func TestErrorsAsData(t *testing.T) {
	home := newHome(t)
	c := startShim(t, home)
	a := startHello(t, c)
	b := startHello(t, c)
	stA, ackA, ackB := str(a.S, "stateToken"), str(a.S, "ackToken"), str(b.S, "ackToken")
	before := healthyDoctor(t, home).events()

	// In the middle of the 16-byte tag: the format is fine, the MAC is not.
	inTag := tamper(t, stA, func(raw []byte) int { return len(raw) - 8 })
	// The kind byte (first payload byte) no longer matches the st. prefix.
	inKind := tamper(t, stA, func(raw []byte) int { return 0 })

	type sugg struct{ path, didYouMean string }
	cases := []struct {
		name string
		tool string
		args map[string]any
		code string
		sugg *sugg
	}{
		{"unknown workflow", "start_workflow", map[string]any{"workflowId": "wr.helo"}, "WORKFLOW_NOT_FOUND", &sugg{"workflowId", "wr.hello"}},
		{"variables key", "start_workflow", map[string]any{"workflowId": "wr.hello", "variables": map[string]any{"x": 1}}, "UNKNOWN_KEY", &sugg{"variables", "context"}},
		{"completedSteps key", "continue_workflow", map[string]any{"stateToken": stA, "ackToken": ackA, "completedSteps": []any{"greet"}}, "UNKNOWN_KEY", &sugg{"completedSteps", ""}},
		{"unknown output key", "continue_workflow", map[string]any{"stateToken": stA, "ackToken": ackA, "output": map[string]any{"notes": "x"}}, "UNKNOWN_KEY", &sugg{"output.notes", "output.notesMarkdown"}},
		{"tampered tag", "continue_workflow", map[string]any{"stateToken": inTag, "ackToken": ackA}, "TOKEN_BAD_SIGNATURE", nil},
		{"tampered kind byte", "continue_workflow", map[string]any{"stateToken": inKind, "ackToken": ackA}, "TOKEN_INVALID_FORMAT", nil},
		{"ack as stateToken", "continue_workflow", map[string]any{"stateToken": ackA}, "TOKEN_WRONG_KIND", nil},
		{"state as ackToken", "continue_workflow", map[string]any{"stateToken": stA, "ackToken": stA}, "TOKEN_WRONG_KIND", nil},
		{"ack of another run", "continue_workflow", map[string]any{"stateToken": stA, "ackToken": ackB}, "TOKEN_SCOPE_MISMATCH", nil},
		{"garbage", "continue_workflow", map[string]any{"stateToken": "garbage"}, "TOKEN_INVALID_FORMAT", nil},
		{"missing stateToken", "continue_workflow", map[string]any{"ackToken": ackA}, "INVALID_INPUT", nil},
		{"missing workflowId", "start_workflow", map[string]any{}, "INVALID_INPUT", nil},
		{"wrong type", "continue_workflow", map[string]any{"stateToken": 42}, "INVALID_INPUT", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, c, tc.tool, tc.args)
			mustKind(t, r, "error")
			if !r.IsError {
				t.Errorf("isError = false")
			}
			if got := str(r.S, "error", "code"); got != tc.code {
				t.Fatalf("code = %q, want %q; text:\n%s", got, tc.code, r.Text)
			}
			if str(r.S, "error", "message") == "" {
				t.Errorf("empty message")
			}
			if got := str(r.S, "error", "retry", "kind"); got != "not_retryable" {
				t.Errorf("retry.kind = %q, want not_retryable", got)
			}
			if !strings.HasPrefix(r.Text, "# Error: "+tc.code+"\n") {
				t.Errorf("text does not start with the code:\n%s", r.Text)
			}
			if tc.sugg != nil {
				ss, _ := dig(r.S, "error", "suggestions").([]any)
				if len(ss) != 1 {
					t.Fatalf("suggestions = %v, want one", dig(r.S, "error", "suggestions"))
				}
				s := ss[0].(map[string]any)
				if str(s, "path") != tc.sugg.path || str(s, "didYouMean") != tc.sugg.didYouMean {
					t.Errorf("suggestion = %v, want path %q didYouMean %q", s, tc.sugg.path, tc.sugg.didYouMean)
				}
				if tc.sugg.didYouMean == "" && str(s, "note") == "" && tc.sugg.path == "completedSteps" {
					t.Errorf("completedSteps suggestion has no note: %v", s)
				}
			}
		})
	}

	// Errors wrote nothing, and the real tokens still work.
	after := healthyDoctor(t, home).events()
	for s, n := range before {
		if after[s] != n {
			t.Errorf("session %s grew from %d to %d events through error calls", s, n, after[s])
		}
	}
	if r := advance(t, c, a, "after errors"); str(r.S, "pending", "stepId") != "look-around" {
		t.Errorf("run A after the error calls: %s", r.Raw)
	}
}
