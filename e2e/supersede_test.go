package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// An agent corrects a note it sent, through the shim: the recap a
// rehydrate shows names each output's id; a continue_workflow and a
// checkpoint_workflow carrying supersedesOutputId are recorded with the
// link (the same call again replays byte for byte); a bad id is refused
// with its pointer and records nothing; the session resource and the
// Console show the correction beside the original.
func TestAnAgentCorrectsANote(t *testing.T) {
	home := newHome(t)
	c := startShim(t, home)
	s2 := advance(t, c, startHello(t, c), "Greeted the user in French.")
	mustKind(t, s2, "step")
	entries := func(r result) []map[string]any {
		t.Helper()
		var out []map[string]any
		for _, e := range dig(r.S, "recap", "entries").([]any) {
			out = append(out, e.(map[string]any))
		}
		return out
	}
	re := rehydrate(t, c, str(s2.S, "stateToken"))
	greeted := str(entries(re)[0], "outputId")
	if greeted == "" || !strings.Contains(re.Text, "- greet ("+greeted+"): Greeted the user in French.") {
		t.Fatalf("the recap does not name the output:\n%s", re.Text)
	}
	args := nextArgs(t, re, "Listed 4 entries. The greeting was in English, not French.")
	args["output"].(map[string]any)["supersedesOutputId"] = greeted
	s3 := call(t, c, "continue_workflow", args)
	mustKind(t, s3, "step")
	if again := call(t, c, "continue_workflow", args); !sameAnswer(again.Raw, s3.Raw) {
		t.Fatalf("the replay differs:\n%s\n---\n%s", again.Raw, s3.Raw)
	}
	session := str(s3.S, "session", "sessionId")
	before := sessionEvents(t, home, session)
	bad := nextArgs(t, s3, "Wrapped up.")
	bad["output"].(map[string]any)["supersedesOutputId"] = greeted // replaced already
	refused := call(t, c, "continue_workflow", bad)
	if !refused.IsError || str(refused.S, "error", "code") != "INVALID_INPUT" || str(refused.S, "error", "details", "pointer") != "/output/supersedesOutputId" ||
		!strings.Contains(refused.Text, "was already replaced by") || sessionEvents(t, home, session) != before {
		t.Fatalf("a reference to a replaced output:\n%s", refused.Raw)
	}
	fixed := str(entries(rehydrate(t, c, str(s3.S, "stateToken")))[1], "outputId")
	cp := call(t, c, "checkpoint_workflow", map[string]any{"stateToken": str(s3.S, "stateToken"), "checkpointToken": str(s3.S, "checkpointToken"),
		"output": map[string]any{"notesMarkdown": "Listed 5 entries, not 4.", "supersedesOutputId": fixed}})
	mustKind(t, cp, "step")
	if id := str(cp.S, "checkpoint", "outputId"); id == "" || !strings.Contains(cp.Text, "(output "+id+")") {
		t.Fatalf("the checkpoint does not name its output:\n%s", cp.Text)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcp.ReadResourceRequest{}
	req.Params.URI = "workrail://sessions/" + session
	res, err := c.ReadResource(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	md := res.Contents[0].(mcp.TextResourceContents).Text
	// The correction was corrected in turn: each replaced entry is named,
	// the last one quoted.
	for _, want := range []string{"_Replaced by entry 2 below (`" + fixed + "`)", "_Replaced by entry 3 below (`" + str(cp.S, "checkpoint", "outputId") + "`)",
		"_Replaces entry 2 above (`" + fixed + "`)._\n\n> Listed 5 entries, not 4."} {
		if !strings.Contains(md, want) {
			t.Errorf("the session resource lacks %q:\n%s", want, md)
		}
	}
	k, v := ownerAuth(t, home)
	code, _, page := get(t, mustInfo(t, home).URL+"/sessions/"+session, "", k, v)
	for _, want := range []string{
		`data-testid="replaced-by">Replaced by the output recorded at <a href="/sessions/` + session + `/runs/run_1?node=node_2">node_3</a> <small class="code-note"><code>` + fixed,
		`data-testid="replaces">Replaces the output recorded at <a href="/sessions/` + session + `/runs/run_1?node=node_1">node_2</a> <small class="code-note"><code>` + greeted,
		"<p>Greeted the user in French.</p>", // the original, still shown
	} {
		if code != http.StatusOK || !strings.Contains(page, want) {
			t.Errorf("the Console's session page (%d) lacks %s", code, want)
		}
	}
	healthyDoctor(t, home)
}
