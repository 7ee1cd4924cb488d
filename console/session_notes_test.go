package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/workrail/workrail/console"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/golden"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
)

// twoRunSession is a session of two runs of wr.long: run_1 advanced
// eight times (its first notes "**Alice** reviewed …"), then rewound
// once to node_2 and advanced there (a branch), and run_2 started in
// the same session with run_1's stateToken and advanced twice.
func twoRunSession(t *testing.T) (*memstore.Store, execute.Workflows) {
	t.Helper()
	st := memstore.New()
	wf := executetest.Long(t, 12)
	clock := func() time.Time { return time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC) }
	x := execute.New(st, executetest.Ring(t), wf, workflow.Preferences{}, clock, t.Logf)
	step := func(res protocol.Result) protocol.StepResult {
		t.Helper()
		s, ok := res.(protocol.StepResult)
		if !ok {
			b, _ := json.Marshal(res)
			t.Fatalf("want a step: %s", b)
		}
		return s
	}
	advance := func(s protocol.StepResult, notes string) protocol.StepResult {
		args := s.NextCall.Arguments
		args.Output = &protocol.Output{NotesMarkdown: notes}
		b, _ := json.Marshal(args)
		return step(x.Continue(context.Background(), b))
	}
	s := step(x.Start(context.Background(), []byte(`{"workflowId":"wr.long"}`)))
	s = advance(s, "**Alice** reviewed the `auth` patch")
	second := s
	for i := 2; i <= 8; i++ {
		s = advance(s, fmt.Sprintf("main note %d", i))
	}
	b, _ := json.Marshal(map[string]string{"stateToken": second.StateToken})
	advance(step(x.Continue(context.Background(), b)), "branch note")
	b, _ = json.Marshal(map[string]string{"workflowId": "wr.long", "stateToken": s.StateToken})
	r2 := step(x.Start(context.Background(), b))
	r2 = advance(r2, "second run note 1")
	advance(r2, "second run note 2")
	return st, wf
}

// The session page of a two-run session: the heading is the title in
// plain words with the id beside it; the sidebar lists both runs with
// the chosen one current; the notes are folded by run and branch, the
// chosen run's open and, on a long branch, only the latest few open; the
// timeline has a lane per run in log order.
func TestSessionPageOfTwoRuns(t *testing.T) {
	st, wf := twoRunSession(t)
	h := serve(t, st, wf)
	code, body := getPath(t, h, "/sessions/ses_1")
	if code != http.StatusOK {
		t.Fatalf("GET /sessions/ses_1 = %d", code)
	}
	golden.Check(t, filepath.Join("testdata", "session_two_runs.html"), []byte(body))

	for _, want := range []string{
		`<title>Alice reviewed the auth patch · WorkRail</title>`,
		`data-testid="session-heading">Alice reviewed the auth patch <small class="meta"><code>ses_1</code></small></h2>`,
		// The active run by default is the one touched last: run_2.
		`<details class="note-run lane-2" data-testid="note-run" data-run="run_2" open>`,
		`<details class="note-run lane-1" data-testid="note-run" data-run="run_1">`,
		`<h4 class="meta">branch A · 8 notes</h4>`,
		`<summary>5 earlier notes</summary>`,
		`<h4 class="meta">branch B · 1 note</h4>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Contains(body, "**Alice**") {
		t.Error("the page shows the title's Markdown marks")
	}
	if got := regexp.MustCompile(`<li data-run="(run_\d)"><a [^>]*aria-current="page"`).FindAllStringSubmatch(body, -1); len(got) != 1 || got[0][1] != "run_2" {
		t.Errorf("current runs in the sidebar %v; want run_2 alone", got)
	}
	lanes := regexp.MustCompile(`<li class="stretch (lane-\d)" data-run="(run_\d)">`).FindAllStringSubmatch(body, -1)
	var order []string
	for _, l := range lanes {
		order = append(order, l[1]+"="+l[2])
	}
	if got := strings.Join(order, " "); got != "lane-1=run_1 lane-2=run_2" {
		t.Errorf("timeline lanes %q; want run_1 then run_2, each its own lane", got)
	}

	// Picking run_1 opens its notes and folds run_2's.
	_, body = getPath(t, h, "/sessions/ses_1?run=run_1")
	if !strings.Contains(body, `data-run="run_1" open>`) || strings.Contains(body, `data-run="run_2" open>`) {
		t.Error("?run=run_1 does not open run_1's notes alone")
	}
	// Paging still cuts the notes list, and groups the page it shows.
	paged := serveWith(t, st, wf, func(c *console.Config) {
		c.Settings = func() console.Settings { return console.Settings{PageSize: 4, PollSeconds: 2} }
	})
	_, body = getPath(t, paged, "/sessions/ses_1?notes=4")
	if !strings.Contains(body, `data-testid="pager-notes"`) || strings.Count(body, `<li data-node=`) != 4+2 {
		t.Errorf("the second page of 4 notes shows %d notes; want 4 and the active run's latest 2", strings.Count(body, `<li data-node=`))
	}

	// The sessions list shows the same title in plain words.
	_, list := getPath(t, h, "/")
	if !strings.Contains(list, ">Alice reviewed the auth patch</a>") || strings.Contains(list, "**Alice**") {
		t.Error("the sessions list does not show the title in plain words")
	}
}
