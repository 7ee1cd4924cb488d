package execute_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/workflow"
)

// One run as a resource is pinned: its steps and notes, its branches, its
// open gaps and the step it waits on, the same bytes every time.
func TestRunMarkdownGolden(t *testing.T) {
	r := autonomyRig(t)
	id := richSession(t, r)
	for _, run := range []engine.RunID{1, 2} {
		md, err := r.x.RunMarkdown(id, run)
		if err != nil {
			t.Fatal(err)
		}
		compareGolden(t, filepath.Join("testdata", "golden", "run_markdown_"+run.String()+".md"), []byte(md))
		if again, _ := r.x.RunMarkdown(id, run); again != md {
			t.Fatal("two renderings of one run differ")
		}
		if !strings.HasPrefix(md, "# "+run.String()+" of "+id.String()+"\n") {
			t.Errorf("%s starts %q", run, md[:40])
		}
	}
}

// A run that is not there, or a damaged session, is an error as data.
func TestRunMarkdownRefusals(t *testing.T) {
	r := autonomyRig(t)
	id := richSession(t, r)
	if _, err := r.x.RunMarkdown(id, 9); codeOf(err) != engine.CodeInvalidInput {
		t.Fatalf("a run the session lacks: %v", err)
	}
	if _, err := r.x.RunMarkdown(id+1, 1); codeOf(err) != engine.CodeInvalidInput {
		t.Fatalf("a session the store lacks: %v", err)
	}
	sick := execute.New(damaged{r.store}, executetest.Ring(t), catalogOf(t, map[string]string{"wr.auto.json": autonomyWorkflow}), workflow.Preferences{}, executetest.Clock, t.Logf)
	if _, err := sick.RunMarkdown(id, 1); codeOf(err) != engine.CodeSessionCorrupt || !strings.Contains(err.Error(), "workrail doctor") {
		t.Fatalf("a damaged session: %v", err)
	}
}

// Prompts leave routines out; a routine or an unknown id is no prompt,
// and a workflow's source is the file as read.
func TestPromptsAndSources(t *testing.T) {
	x := execute.New(nil, executetest.Ring(t), catalogOf(t, map[string]string{"wr.auto.json": autonomyWorkflow,
		"helper.json": `{"id":"wr.helper","kind":"routine","name":"Helper","description":"A routine.","version":"1","steps":[{"id":"r","title":"R","prompt":"Help."}]}`}),
		workflow.Preferences{}, executetest.Clock, t.Logf)
	ps := x.Prompts("")
	if len(ps) != 1 || ps[0].Name != "wr.auto" {
		t.Fatalf("prompts %+v", ps)
	}
	if _, err := x.Prompt("", "wr.helper", nil); codeOf(err) != engine.CodeWorkflowNotFound {
		t.Fatalf("a routine as a prompt: %v", err)
	}
	if _, err := x.Prompt("", "wr.autp", nil); codeOf(err) != engine.CodeWorkflowNotFound {
		t.Fatalf("an unknown prompt: %v", err)
	}
	src, err := x.WorkflowSource("", "wr.auto")
	if err != nil || string(src) != autonomyWorkflow {
		t.Fatalf("source %v:\n%s", err, src)
	}
	if _, err := x.WorkflowSource("", "wr.nope"); codeOf(err) != engine.CodeWorkflowNotFound {
		t.Fatalf("an unknown source: %v", err)
	}
}
