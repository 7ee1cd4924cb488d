package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// Brand new chat: a run is started and advanced twice in one chat; a
// fresh MCP client, knowing nothing but the words "auth bug", finds it
// with resume_session and carries it on to completion from the
// stateToken it is given.
func TestBrandNewChatResumesByQuery(t *testing.T) {
	home := newHome(t)
	old := startShimFull(t, home)
	other := advance(t, old.c, startHello(t, old.c), "reading the docs")
	mustKind(t, other, "step")
	r := advance(t, old.c, startHello(t, old.c), "fixing the auth bug")
	r = advance(t, old.c, r, "looked around: the token refresh races")
	mustKind(t, r, "step")
	session, pending := str(r.S, "session", "sessionId"), str(r.S, "pending", "stepId")
	old.c.Close()

	c := startShim(t, home)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(tools.Tools, func(tl mcp.Tool) bool { return tl.Name == "resume_session" && *tl.Annotations.ReadOnlyHint }) {
		t.Fatal("resume_session is not listed as a read-only tool")
	}

	found := call(t, c, "resume_session", map[string]any{"query": "auth bug"})
	mustKind(t, found, "candidates")
	cands, _ := found.S["candidates"].([]any)
	if len(cands) != 2 {
		t.Fatalf("%d candidates; want the match and the other session by recency:\n%s", len(cands), found.Text)
	}
	best := cands[0].(map[string]any)
	if str(best, "tier") != "notes" || str(best, "session", "sessionId") != session || str(cands[1].(map[string]any), "tier") != "recency" {
		t.Fatalf("candidates:\n%s", found.Text)
	}
	if !strings.Contains(str(best, "snippet"), "token refresh") || !strings.Contains(found.Text, str(best, "stateToken")) {
		t.Fatalf("the best candidate: %v", best)
	}

	next := best["nextCall"].(map[string]any)
	re := call(t, c, str(next, "tool"), next["arguments"].(map[string]any))
	mustKind(t, re, "step")
	if str(re.S, "pending", "stepId") != pending || !strings.Contains(re.Text, "fixing the auth bug") {
		t.Fatalf("resumed at %s; want %s with the notes so far:\n%s", str(re.S, "pending", "stepId"), pending, re.Text)
	}
	for re.kind() == "step" {
		re = advance(t, c, re, "carried on in a new chat")
	}
	mustKind(t, re, "complete")
	if str(re.S, "session", "sessionId") != session {
		t.Fatalf("completed %s; want %s", str(re.S, "session", "sessionId"), session)
	}
	healthyDoctor(t, home)
}

// No transcript needed: a chat checkpoints its work between steps, then is
// rewound and advances from an older stateToken (a branch). A brand-new
// chat that knows only words from the checkpoint's notes lands on the
// run's preferred tip, the branch the rewound chat made last, with the
// checkpoint's notes in its recap, and finishes the run from there.
func TestNewChatAfterCheckpointAndRewindResumesAtThePreferredTip(t *testing.T) {
	home := newHome(t)
	c := startShim(t, home)
	first := startHello(t, c)
	cp := checkpoint(t, c, first, "Migrating the billing schema: tables renamed.")
	mustKind(t, cp, "step")
	ahead := advance(t, c, cp, "went ahead")
	mustKind(t, ahead, "step")
	// The rewound chat still holds the checkpoint's stateToken: it
	// re-reads the step (a fresh ackToken) and advances again, a new
	// branch below the checkpoint and the latest work.
	again := call(t, c, "continue_workflow", map[string]any{"stateToken": str(cp.S, "stateToken")})
	branch := advance(t, c, again, "took the other road")
	mustKind(t, branch, "step")
	if str(branch.S, "stateToken") == str(ahead.S, "stateToken") {
		t.Fatal("the rewound chat's advance did not branch")
	}
	// The re-read wrote nothing and says what continuing will do; the
	// advance says what it did.
	if !strings.Contains(again.Text, "Continuing from here starts a new branch") || strings.Contains(again.Text, "Your call started") ||
		!strings.Contains(branch.Text, "Your call started a new branch") {
		t.Fatalf("the rehydrate:\n%s\nthe advance:\n%s", again.Text, branch.Text)
	}
	// A rehydrate of the branch's tip is what a resumed chat should get.
	want := call(t, c, "continue_workflow", map[string]any{"stateToken": str(branch.S, "stateToken")})
	c.Close()

	fresh := startShim(t, home)
	found := call(t, fresh, "resume_session", map[string]any{"query": "billing schema"})
	mustKind(t, found, "candidates")
	cands, _ := found.S["candidates"].([]any)
	if len(cands) != 1 {
		t.Fatalf("%d candidates; want one:\n%s", len(cands), found.Text)
	}
	best := cands[0].(map[string]any)
	next := best["nextCall"].(map[string]any)
	got := call(t, fresh, str(next, "tool"), next["arguments"].(map[string]any))
	if str(got.S, "pending", "stepId") != str(want.S, "pending", "stepId") || str(best, "tipNodeId") == "" ||
		!strings.Contains(got.Text, "took the other road") || !strings.Contains(got.Text, "billing schema") {
		t.Fatalf("resumed at %s (tip %s); want the branch's step %s with its recap:\n%s",
			str(got.S, "pending", "stepId"), str(best, "tipNodeId"), str(want.S, "pending", "stepId"), got.Text)
	}
	for got.kind() == "step" {
		got = advance(t, fresh, got, "finished in a new chat")
	}
	mustKind(t, got, "complete")
	healthyDoctor(t, home)
}

// The session touched last is offered first, however long its log: a
// long session left before a short one is started is offered second, in
// the same chat and after the daemon restarts (the ranking is loaded from
// the file), and first again once its chat carries on.
func TestResumeOffersTheSessionTouchedLast(t *testing.T) {
	home := newHome(t)
	c := startShim(t, home)
	long := startHello(t, c)
	for i := range 4 {
		long = checkpoint(t, c, long, fmt.Sprintf("Checkpoint %d of the long session.", i))
		mustKind(t, long, "step")
	}
	long = advance(t, c, long, "Greeted the user in the long session.")
	short := startHello(t, c)
	ids := func(r result) string { return str(r.S, "session", "sessionId") }
	if sessionEvents(t, home, ids(long)) <= 2*sessionEvents(t, home, ids(short)) {
		t.Fatal("the long session's log is not the longer")
	}
	offered := func(c *client.Client, when string, want ...result) {
		t.Helper()
		for _, args := range []map[string]any{{}, {"query": "hello"}} {
			found := call(t, c, "resume_session", args)
			mustKind(t, found, "candidates")
			var got, wantIDs []string
			for _, cand := range found.S["candidates"].([]any) {
				got = append(got, str(cand.(map[string]any), "session", "sessionId"))
			}
			for _, w := range want {
				wantIDs = append(wantIDs, ids(w))
			}
			if !slices.Equal(got, wantIDs) {
				t.Fatalf("%s, resume_session %v offers %v; want %v:\n%s", when, args, got, wantIDs, found.Text)
			}
		}
	}
	offered(c, "a short session started after a long one", short, long)
	stopDaemon(t, home)
	fresh := startShim(t, home)
	offered(fresh, "after the daemon restarted", short, long)
	long = advance(t, fresh, long, "Looked around in the long session.")
	mustKind(t, long, "step")
	offered(fresh, "after the long session's chat carried on", long, short)
	healthyDoctor(t, home)
}
