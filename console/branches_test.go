package console_test

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/protocol"
)

// threeBranches gives wr.f of newActions three branches off node_2: the
// path taken first, run to completion (node_3, node_4); a rewound chat's
// fork (node_5); and a fork made in the Console with another topic
// (node_6), the current branch.
func threeBranches(t *testing.T) *actions {
	t.Helper()
	a := newActions(t)
	advance := func(res protocol.Result) protocol.Result {
		args := res.(protocol.StepResult).NextCall.Arguments
		args.Output = &protocol.Output{NotesMarkdown: "did it again"}
		b, _ := json.Marshal(args)
		return a.x.Continue(context.Background(), b)
	}
	if _, ok := advance(a.x.Resume(context.Background(), execute.Place{Session: 1, Run: 1, Node: 3})).(protocol.CompleteResult); !ok {
		t.Fatal("node_3 did not complete the run")
	}
	if _, ok := advance(a.x.Resume(context.Background(), execute.Place{Session: 1, Run: 1, Node: 2})).(protocol.StepResult); !ok {
		t.Fatal("the rewound chat did not fork node_2")
	}
	if rec := a.post(t, run1+"/fork?node=node_3", a.csrf, `{"topic": "y"}`); rec.Code != http.StatusSeeOther {
		t.Fatalf("the Console fork answered %d\n%s", rec.Code, rec.Body)
	}
	return a
}

// rowOf is the run page's row of node id, its text without tags.
func rowOf(t *testing.T, page, id string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<li data-testid="row" data-node="` + id + `".*?</li>`).FindString(page)
	if m == "" {
		t.Fatalf("no row of %s on the page", id)
	}
	return strings.Join(strings.Fields(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(m, " ")), " ")
}

// The run page tells the branches apart: each by the letter it was made
// with and its state, the current one's first row labelled by how it came
// to be, each folded line by its letter, length and end.
func TestRunPageTellsBranchesApart(t *testing.T) {
	a := threeBranches(t)
	_, page := getPath(t, a.h, run1)
	for _, want := range []string{
		`data-testid="branch-status">3 branches: A ✓ complete, B ◇ left behind, C ▶ current</p>`,
		`href="/sessions/ses_1/runs/run_1?expand=all" data-testid="expand-all"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the run page lacks %s", want)
		}
	}
	rows := map[string]string{
		"node_2": "A B ✓ done 2 forks node_2",
		"node_3": "A 1 step from “C” · ✓ complete",
		"node_5": "B 1 step from “C” · ◇ left behind",
		"node_6": "C C ↳ Console fork ◆ now node_6",
	}
	for id, want := range rows {
		if got := rowOf(t, page, id); !strings.HasPrefix(got, want) {
			t.Errorf("row %s reads %q; want it to start %q", id, got, want)
		}
	}
	if !strings.Contains(page, `title="from “B”: forked in the Console, context changed: topic"`) {
		t.Error("the Console fork's row does not say in its title where it left and what it changed")
	}
}

// A node inside a folded branch opens in the panel with its line
// unfolded, and the page's links keep it open; where the run completed
// opens the row it completed from; expand=all unfolds every line and
// offers nothing more to expand.
func TestRunPageUnfoldsToTheOpenNode(t *testing.T) {
	a := threeBranches(t)
	code, page := getPath(t, a.h, run1+"?node=node_4")
	if code != http.StatusOK {
		t.Fatalf("GET ?node=node_4 = %d", code)
	}
	if got := rowOf(t, page, "node_3"); !strings.HasPrefix(got, "A C ✓ done ✓ run complete") {
		t.Errorf("node_3's row reads %q", got)
	}
	if !strings.Contains(page, `data-testid="node-panel"`) || !strings.Contains(page, `href="/sessions/ses_1/runs/run_1?expand=node_3&amp;node=node_6#panel-h"`) {
		t.Errorf("the panel is missing or the links do not keep node_3's line open")
	}
	if strings.Contains(page, `data-node="node_5" data-kind="node"`) {
		t.Error("revealing node_4 unfolded node_5's line too")
	}
	_, all := getPath(t, a.h, run1+"?expand=all")
	if strings.Contains(all, `data-kind="stub"`) || strings.Contains(all, `data-testid="expand-all"`) {
		t.Error("expand=all left a stub or still offers to expand all")
	}
	for _, id := range []string{"node_3", "node_5", "node_6"} {
		rowOf(t, all, id)
	}
	if !strings.Contains(all, `data-testid="fold-again"`) {
		t.Error("expand=all offers no way to fold again")
	}
}
