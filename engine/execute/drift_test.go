package execute_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/golden"
	"github.com/workrail/workrail/engine/protocol"
)

// greetV is user.greet at a version: a step, a step only the user can
// unblock (so an attempt can be blocked), and a last step.
func greetV(version string) []byte {
	return []byte(`{"id":"user.greet","name":"Greet","description":"Say hello.","version":"` + version + `",
 "steps":[
  {"id":"hello","title":"Hello","prompt":"Say hello (version ` + version + `)."},
  {"id":"choose","title":"Choose","prompt":"Ask which greeting.","userDependency":{"reason":"needs_user_choice","choiceKind":"preference_tradeoff","summary":"Pick a greeting","requestedFromUser":"Formal or casual?","options":["formal","casual"]}},
  {"id":"bye","title":"Bye","prompt":"Say goodbye."}]}`)
}

var greetBroken = []byte(`{"id":"user.greet","name":"Greet",` + "\n" + `"steps": [`)

const workspace = "/ws"

var (
	userFolder    = catalog.Source{Kind: catalog.User, Path: "/home/u/.local/share/workrail/workflows"}
	projectFolder = catalog.Source{Kind: catalog.Project, Path: filepath.Join(workspace, ".workrail", "workflows")}
)

// disk is a workflow catalog read afresh on every call, as the daemon's
// sources are: a user folder and, for the workspace /ws only, its project
// folder. A test edits the folders between calls the way a user edits
// files on disk.
type disk struct {
	mu            sync.Mutex
	user, project fstest.MapFS
	asked         []string // the workspace of every call, in order
}

func newDisk() *disk { return &disk{user: fstest.MapFS{}, project: fstest.MapFS{}} }

func (d *disk) Catalog(ws string) *catalog.Catalog {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.asked = append(d.asked, ws)
	entries, problems := catalog.LoadFS(d.user, userFolder)
	if ws == workspace {
		e, p := catalog.LoadFS(d.project, projectFolder)
		entries, problems = append(entries, e...), append(problems, p...)
	}
	return catalog.New(entries, problems)
}

// put writes a file into the user or project folder; nil removes it.
func (d *disk) put(folder, name string, b []byte) {
	d.mu.Lock()
	defer d.mu.Unlock()
	fsys := d.user
	if folder == "project" {
		fsys = d.project
	}
	if b == nil {
		delete(fsys, name)
		return
	}
	fsys[name] = &fstest.MapFile{Data: b}
}

func (d *disk) lastAsked() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.asked[len(d.asked)-1]
}

// driftCases start user.greet version 1.0.0 from one folder, then change
// the folders; want is the drift a rehydrate reports ("" for none).
var driftCases = []struct {
	name   string
	pinned string // folder the run starts from
	change func(*disk)
	want   catalog.DriftKind
}{
	{"unchanged", "user", func(*disk) {}, ""},
	{"rewritten with the same content", "user", func(d *disk) { d.put("user", "greet.json", greetV("1.0.0")) }, ""},
	{"moved to the project folder", "user", func(d *disk) {
		d.put("user", "greet.json", nil)
		d.put("project", "greet.json", greetV("1.0.0"))
	}, ""},
	{"edited", "user", func(d *disk) { d.put("user", "greet.json", greetV("1.1.0")) }, catalog.DriftEdited},
	{"shadowed: a user version now wins over the pinned project one", "project", func(d *disk) {
		d.put("user", "greet.json", greetV("1.1.0"))
	}, catalog.DriftShadowed},
	{"removed", "user", func(d *disk) { d.put("user", "greet.json", nil) }, catalog.DriftRemoved},
	{"unloadable", "project", func(d *disk) { d.put("project", "greet.json", greetBroken) }, catalog.DriftUnloadable},
}

// startGreet starts user.greet 1.0.0 from folder in the workspace /ws.
func startGreet(t *testing.T, folder string) (*rig, *disk, protocol.StepResult) {
	t.Helper()
	d := newDisk()
	d.put(folder, "greet.json", greetV("1.0.0"))
	r := newRig(t, d)
	s := r.step(t, "start", map[string]any{"workflowId": "user.greet", "workspacePath": workspace})
	if s.Pending.StepID != "hello" {
		t.Fatalf("first step %s", s.Pending.StepID)
	}
	return r, d, s
}

func noticeCodes(ws []protocol.Warning) []event.NoticeCode {
	var out []event.NoticeCode
	for _, w := range ws {
		out = append(out, w.Code)
	}
	return out
}

// A rehydrate (stateToken only) of a run whose pinned workflow has
// drifted warns, naming the kind, and still serves the pinned version.
// The catalog is the one of the workspace the run was started in, though
// the rehydrate sends no workspacePath.
func TestRehydrateWarnsOfPinnedDrift(t *testing.T) {
	for _, tc := range driftCases {
		t.Run(tc.name, func(t *testing.T) {
			r, d, s := startGreet(t, tc.pinned)
			tc.change(d)
			re := r.step(t, "continue", map[string]any{"stateToken": s.StateToken})
			if d.lastAsked() != workspace {
				t.Errorf("rehydrate read the catalog of %q; want the run's workspace %q", d.lastAsked(), workspace)
			}
			if !reflect.DeepEqual(re.Pending, s.Pending) || re.Workflow != s.Workflow {
				t.Errorf("rehydrate serves %+v of %+v; want the pinned %+v of %+v", re.Pending, re.Workflow, s.Pending, s.Workflow)
			}
			got, ok := r.x.Drift(workspace, "user.greet", s.Workflow.Hash)
			if tc.want == "" {
				if ok {
					t.Errorf("Service.Drift = %+v; want none", got)
				}
				if len(re.Warnings) != 0 || strings.Contains(re.Text, "## Warnings") {
					t.Errorf("warnings %+v; want none", re.Warnings)
				}
				return
			}
			if !ok || got.Kind != tc.want {
				t.Fatalf("Service.Drift = %+v, %v; want kind %s", got, ok, tc.want)
			}
			if codes := noticeCodes(re.Warnings); !slices.Equal(codes, []event.NoticeCode{event.NoticePinnedWorkflowDrifted}) {
				t.Fatalf("warnings %v; want one %s", codes, event.NoticePinnedWorkflowDrifted)
			}
			w := re.Warnings[0]
			if want := protocol.DriftWarning("1.0.0", got); !reflect.DeepEqual(w, want) {
				t.Errorf("warning %+v\nwant %+v", w, want)
			}
			if !strings.Contains(w.Message, "("+string(tc.want)+")") || !strings.Contains(re.Text, "- PINNED_WORKFLOW_DRIFTED: "+w.Message) {
				t.Errorf("the warning does not name %s, or the text does not show it:\n%s", tc.want, re.Text)
			}
		})
	}
}

// The warning follows the notices of ignored inputs, and a completed
// run's rehydrate carries it too.
func TestDriftWarningWithOtherNoticesAndOnComplete(t *testing.T) {
	r, d, s := startGreet(t, "user")
	d.put("user", "greet.json", greetV("1.1.0"))
	re := r.step(t, "continue", map[string]any{"stateToken": s.StateToken, "context": map[string]any{"x": 1}})
	want := []event.NoticeCode{event.NoticeContextIgnoredOnRehydrate, event.NoticePinnedWorkflowDrifted}
	if got := noticeCodes(re.Warnings); !slices.Equal(got, want) {
		t.Errorf("warnings %v; want %v", got, want)
	}
	// The output schema names every notice code: these two are in it.
	conforms(t, schemaFor(t, protocol.ToolContinue), re)

	d.put("user", "greet.json", greetV("1.0.0"))
	res := r.x.Continue(context.Background(), mustArgs(t, s.NextCall.Arguments))
	for range 3 {
		switch v := res.(type) {
		case protocol.StepResult:
			args := v.NextCall.Arguments
			if v.Pending.UserDependency != nil {
				args.Output = &protocol.Output{NotesMarkdown: "Asked.", Artifacts: []json.RawMessage{json.RawMessage(`{"kind":"wr.user_response","response":"formal"}`)}}
			}
			res = r.x.Continue(context.Background(), mustArgs(t, args))
		case protocol.BlockedResult:
			t.Fatalf("blocked: %s", v.Text)
		}
	}
	done, ok := res.(protocol.CompleteResult)
	if !ok {
		t.Fatalf("want complete, got %s", res.RenderedText())
	}
	d.put("user", "greet.json", nil)
	again, ok := r.x.Continue(context.Background(), mustArgs(t, map[string]any{"stateToken": done.StateToken})).(protocol.CompleteResult)
	if !ok || !slices.Equal(noticeCodes(again.Warnings), []event.NoticeCode{event.NoticePinnedWorkflowDrifted}) ||
		!strings.Contains(again.Warnings[0].Message, "(removed)") {
		t.Errorf("rehydrate of the completed run: %+v", again)
	}
}

func mustArgs(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A replayed ack answers byte for byte what it answered first, whatever
// happened to the workflow on disk since: the drift warning is never
// added to a replay, an advanced or a blocked one. (A rehydrate at the
// same point shows the drift, so it is there to be added.)
func TestReplayIgnoresPinnedDrift(t *testing.T) {
	for _, tc := range driftCases {
		if tc.want == "" {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			r, d, s := startGreet(t, tc.pinned)
			advance := s.NextCall.Arguments
			first, firstBytes := r.call(t, "continue", advance)
			choose, ok := first.(protocol.StepResult)
			if !ok || choose.Pending.StepID != "choose" {
				t.Fatalf("advance: %s", firstBytes)
			}
			block := choose.NextCall.Arguments
			blocked, blockedBytes := r.call(t, "continue", block)
			if blocked.ResultKind() != protocol.KindBlocked {
				t.Fatalf("want blocked: %s", blockedBytes)
			}

			tc.change(d)
			for _, c := range []struct {
				name string
				args protocol.ContinueArgs
				want []byte
			}{{"advanced", advance, firstBytes}, {"blocked", block, blockedBytes}} {
				if _, again := r.call(t, "continue", c.args); !bytes.Equal(again, c.want) {
					t.Errorf("%s replay after the drift differs:\n got %s\nwant %s", c.name, again, c.want)
				}
			}
			re := r.step(t, "continue", map[string]any{"stateToken": choose.StateToken})
			if !slices.Equal(noticeCodes(re.Warnings), []event.NoticeCode{event.NoticePinnedWorkflowDrifted}) {
				t.Errorf("a rehydrate at the replayed node has warnings %v; want the drift", noticeCodes(re.Warnings))
			}
		})
	}
}

// The whole text of a rehydrate after an edit: testdata/golden/drift_rehydrate.txt.
func TestDriftRehydrateGolden(t *testing.T) {
	r, d, s := startGreet(t, "user")
	d.put("user", "greet.json", greetV("1.1.0"))
	re := r.step(t, "continue", map[string]any{"stateToken": s.StateToken})
	golden.Check(t, filepath.Join("testdata", "golden", "drift_rehydrate.txt"), []byte(re.Text))
}

// The Console's entry point reads through the Workflows port it is given,
// for the workspace it names, and agrees with the catalog's rule.
func TestDriftThroughThePort(t *testing.T) {
	_, d, s := startGreet(t, "project")
	d.put("project", "greet.json", greetV("1.1.0"))
	for _, tc := range []struct {
		ws   string
		want catalog.DriftKind
	}{{workspace, catalog.DriftEdited}, {"", catalog.DriftRemoved}, {"/elsewhere", catalog.DriftRemoved}} {
		got, ok := execute.Drift(d, tc.ws, "user.greet", s.Workflow.Hash)
		if !ok || got.Kind != tc.want || d.lastAsked() != tc.ws {
			t.Errorf("Drift(%q) = %+v, %v (asked %q); want %s", tc.ws, got, ok, d.lastAsked(), tc.want)
		}
	}
	if _, ok := execute.Drift(d, workspace, "user.greet", d.Catalog(workspace).All()[0].Compiled.Hash); ok {
		t.Errorf("Drift of the current hash reports drift")
	}
}

// inspect_workflow with a run's stateToken describes the version that run
// is pinned to, wherever its id points now, and carries the same drift
// warning as a rehydrate; without the token it describes the workflow as
// it is now, with no warning.
func TestInspectPinnedVersion(t *testing.T) {
	for _, tc := range driftCases {
		t.Run(tc.name, func(t *testing.T) {
			r, d, s := startGreet(t, tc.pinned)
			tc.change(d)
			res := r.x.Inspect(context.Background(), mustArgs(t, map[string]any{"workflowId": "user.greet", "mode": "preview", "stateToken": s.StateToken}))
			in, ok := res.(protocol.InspectResult)
			if !ok {
				t.Fatalf("inspect = %s", res.RenderedText())
			}
			conforms(t, schemaFor(t, protocol.ToolInspect), in)
			if in.WorkflowHash != s.Workflow.Hash || in.Workflow.Version != "1.0.0" || !strings.Contains(in.Steps[0].Prompt, "version 1.0.0") {
				t.Errorf("inspect shows %s version %s (%q); want the pinned %s 1.0.0", in.WorkflowHash, in.Workflow.Version, in.Steps[0].Prompt, s.Workflow.Hash)
			}
			if !strings.Contains(in.Text, "Your run is pinned to this version") || strings.Contains(in.Text, "call start_workflow") {
				t.Errorf("the text does not speak of the run:\n%s", in.Text)
			}
			drift, drifted := r.x.Drift(workspace, "user.greet", s.Workflow.Hash)
			var want []protocol.Warning
			if drifted {
				want = []protocol.Warning{protocol.DriftWarning("1.0.0", drift)}
			}
			if !reflect.DeepEqual(in.Warnings, want) && len(in.Warnings)+len(want) > 0 {
				t.Errorf("warnings %+v; want %+v", in.Warnings, want)
			}
			wantSource := map[catalog.DriftKind]catalog.Source{"": {Kind: catalog.User, Path: userFolder.Path},
				catalog.DriftShadowed: projectFolder}[tc.want]
			if tc.name == "moved to the project folder" {
				wantSource = projectFolder
			}
			if in.Workflow.Source != wantSource {
				t.Errorf("source %+v; want %+v", in.Workflow.Source, wantSource)
			}
			if (wantSource == catalog.Source{}) != strings.Contains(in.Text, "no longer defined by any source") {
				t.Errorf("the text and the source %+v disagree:\n%s", in.Workflow.Source, in.Text)
			}

			now := r.x.Inspect(context.Background(), mustArgs(t, map[string]any{"workflowId": "user.greet", "workspacePath": workspace}))
			if cur, ok := now.(protocol.InspectResult); ok && (len(cur.Warnings) != 0 || !strings.Contains(cur.Text, "call start_workflow")) {
				t.Errorf("inspect without a token: warnings %+v, text:\n%s", cur.Warnings, cur.Text)
			}
		})
	}
}

// A stateToken of another workflow's run, or a forged one, is refused
// with a pointer to the argument at fault.
func TestInspectPinnedRefusals(t *testing.T) {
	r, _, s := startGreet(t, "user")
	for _, tc := range []struct {
		name, id, token, pointer string
	}{
		{"another workflow", "wr.hello", s.StateToken, "/workflowId"},
		{"forged token", "user.greet", s.StateToken[:len(s.StateToken)-2] + "xx", "/stateToken"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := r.x.Inspect(context.Background(), mustArgs(t, map[string]any{"workflowId": tc.id, "stateToken": tc.token}))
			e, ok := res.(protocol.ErrorResult)
			if !ok || e.Error.Details["pointer"] != tc.pointer {
				t.Errorf("inspect = %s; want an error at %s", res.RenderedText(), tc.pointer)
			}
		})
	}
}
