package execute_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/bundle"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/golden"
	"github.com/workrail/workrail/engine/protocol"
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
		golden.Check(t, filepath.Join("testdata", "golden", "run_markdown_"+run.String()+".md"), []byte(md))
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

// A session's resource is the Markdown `workrail export --markdown`
// writes, byte for byte, though it is rendered without a bundle.
func TestSessionMarkdownIsTheExport(t *testing.T) {
	r := autonomyRig(t)
	id := richSession(t, r)
	md, err := r.x.SessionMarkdown(id)
	if err != nil {
		t.Fatal(err)
	}
	export, err := r.x.ExportMarkdown(id, bundle.ExportOptions{})
	if err != nil || md != export {
		t.Fatalf("the session's resource differs from its export (%v):\n%s\n---\n%s", err, md, export)
	}
	sick := execute.New(damaged{r.store}, executetest.Ring(t), catalogOf(t, map[string]string{"wr.auto.json": autonomyWorkflow}), workflow.Preferences{}, executetest.Clock, t.Logf)
	if _, err := sick.SessionMarkdown(id); codeOf(err) != engine.CodeSessionCorrupt {
		t.Fatalf("a damaged session: %v", err)
	}
}

// A session read again at the same head answers what it rendered; once
// the log has grown, it renders the new notes, reading only the new
// events, to the text a first read renders.
func TestMarkdownFollowsTheLog(t *testing.T) {
	st0 := memstore.New()
	cat := catalogOf(t, map[string]string{"wr.two.json": `{"id":"wr.two","name":"Two","description":"Two steps.","version":"1",
		"steps":[{"id":"a","title":"A","prompt":"Do a."},{"id":"b","title":"B","prompt":"Do b."}]}`})
	x := execute.New(st0, executetest.Ring(t), cat, workflow.Preferences{}, executetest.Clock, t.Logf)
	st := x.Start(context.Background(), []byte(`{"workflowId":"wr.two"}`)).(protocol.StepResult)
	before, err := x.SessionMarkdown(st.Session.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := x.SessionMarkdown(st.Session.SessionID); again != before {
		t.Fatal("the same session read twice differs")
	}
	raw, _ := json.Marshal(map[string]any{"stateToken": st.StateToken, "ackToken": st.AckToken, "output": map[string]any{"notesMarkdown": "Did a, found the cause."}})
	x.Continue(context.Background(), raw)
	for _, read := range []func() (string, error){
		func() (string, error) { return x.SessionMarkdown(st.Session.SessionID) },
		func() (string, error) { return x.RunMarkdown(st.Session.SessionID, st.Session.RunID) },
	} {
		after, err := read()
		if err != nil || !strings.Contains(after, "Did a, found the cause.") || strings.Contains(after, "Do a.") && !strings.Contains(after, "Do b.") {
			t.Fatalf("after an advance (%v):\n%s", err, after)
		}
	}
	fresh := execute.New(st0, executetest.Ring(t), cat, workflow.Preferences{}, executetest.Clock, t.Logf)
	for _, rid := range []engine.RunID{0, 1} {
		read := func(x *execute.Service) (string, error) {
			if rid == 0 {
				return x.SessionMarkdown(st.Session.SessionID)
			}
			return x.RunMarkdown(st.Session.SessionID, rid)
		}
		whole, err := read(fresh)
		if grown, _ := read(x); err != nil || grown != whole {
			t.Fatalf("read after growing differs from a first read (%v):\n%s\n---\n%s", err, grown, whole)
		}
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
