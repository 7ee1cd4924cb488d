package execute_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/bundle"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
)

// repoCatalog is a catalog whose one workflow a repository defines at
// commit.
type repoCatalog struct{ cat *catalog.Catalog }

func (c repoCatalog) Catalog(string) *catalog.Catalog { return c.cat }

func atCommit(t *testing.T, commit, version, lastPrompt string) repoCatalog {
	t.Helper()
	src := catalog.Source{Kind: catalog.Repo, Path: "/cache/flows/" + commit, Repo: catalog.RepoRef{URL: "https://example.com/flows.git", Ref: "main", Commit: commit}}
	e, p := catalog.Load([]byte(strings.Replace(forkFlow(version, lastPrompt), `"wr.f"`, `"team.f"`, 1)), src, "/cache/flows/"+commit+"/f.json")
	if p != nil {
		t.Fatal(p)
	}
	return repoCatalog{catalog.New([]catalog.Entry{e}, nil)}
}

// A run of a workflow a repository defines records the repository and
// commit beside its workflowHash; the repository moving on changes
// nothing for it (it rehydrates on its pinned version and tells the
// drift); a fork at its root keeps its commit, a restart takes the
// current one; the exports say where each run's workflow came from.
func TestRunsRecordTheirRepositoryCommit(t *testing.T) {
	c1, c2 := strings.Repeat("1a", 20), strings.Repeat("2b", 20)
	r := newRig(t, atCommit(t, c1, "1", "c"))
	start := r.step(t, "start", map[string]any{"workflowId": "team.f", "context": map[string]any{"topic": "x"}})
	sid, rid := start.Session.SessionID, start.Session.RunID
	started := func(i int) event.RepoPin {
		t.Helper()
		var got []event.RepoPin
		for _, e := range r.events(t, sid) {
			if d, ok := e.Data.(*event.RunStartedData); ok {
				got = append(got, d.Repo)
			}
		}
		return got[i]
	}
	if got := started(0); got != (event.RepoPin{URL: "https://example.com/flows.git", Commit: c1}) {
		t.Fatalf("run_started names %+v", got)
	}

	r.x = execute.New(r.store, executetest.Ring(t), atCommit(t, c2, "2", "c, and say so"), workflow.Preferences{}, executetest.Clock, t.Logf)
	again := r.step(t, "continue", map[string]any{"stateToken": start.NextCall.Arguments.StateToken})
	if again.Workflow.Hash != start.Workflow.Hash || len(again.Warnings) == 0 || again.Warnings[0].Code != event.NoticePinnedWorkflowDrifted {
		b, _ := json.Marshal(again)
		t.Fatalf("a rehydrate after the repository moved: %s", b)
	}
	inspect := func(args string) protocol.Result { return r.x.Inspect(context.Background(), []byte(args)) }
	res := inspect(`{"workflowId": "team.f", "stateToken": "` + start.NextCall.Arguments.StateToken + `"}`)
	if in, ok := res.(protocol.InspectResult); !ok || in.ReadFrom.Commit != c1 || !strings.Contains(in.Text, "read this version from repository https://example.com/flows.git at commit "+c1) {
		t.Errorf("inspect with the run's token: %+v", res)
	}
	res = inspect(`{"workflowId": "team.f"}`)
	if in, ok := res.(protocol.InspectResult); !ok || in.Workflow.Source.Repo.Commit != c2 || !strings.Contains(in.Text, "from repository https://example.com/flows.git (main) at commit "+c2[:12]) {
		t.Errorf("inspect now: %+v", res)
	}
	place := execute.Place{Session: sid, Run: rid, Node: 1}
	if _, at := r.x.Fork(context.Background(), place, []byte(`{"topic": "y"}`)); at.Run == 0 || started(1).Commit != c1 {
		t.Errorf("a fork at the root reads the pinned version from %+v", started(1))
	}
	if _, at := r.x.Restart(context.Background(), place, []byte(`{"topic": "y"}`)); at.Run == 0 || started(2).Commit != c2 {
		t.Errorf("a restart on the current version reads it from %+v", started(2))
	}
	md, err := r.x.ExportMarkdown(sid, bundle.ExportOptions{})
	if err != nil || strings.Count(md, "- Read from repository `https://example.com/flows.git` at commit `"+c1+"`") != 2 ||
		!strings.Contains(md, "at commit `"+c2+"`") {
		t.Errorf("the Markdown export (%v):\n%s", err, md)
	}
	b, err := r.x.Export(sid, bundle.ExportOptions{})
	if err != nil || !strings.Contains(string(b), `"repo":{"commit":"`+c1+`","url":"https://example.com/flows.git"}`) {
		t.Errorf("the bundle (%v) does not name the repository", err)
	}
	if _, err := r.x.Import(b, false); err != nil {
		t.Errorf("the bundle does not import: %v", err)
	}
	// A redacted bundle masks the repository's address, as it masks an
	// observation, and keeps the commit, a version.
	b, err = r.x.Export(sid, bundle.ExportOptions{Redact: true})
	if err != nil || strings.Contains(string(b), "example.com") || !strings.Contains(string(b), `"repo":{"commit":"`+c1+`","url":"[redacted]"}`) {
		t.Errorf("the redacted bundle (%v) shows the address, or lost the commit", err)
	}
	if _, err := r.x.Import(b, false); err != nil {
		t.Errorf("the redacted bundle does not import: %v", err)
	}
}
