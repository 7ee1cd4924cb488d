package protocol_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/golden"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
)

var projectSource = catalog.Source{Kind: catalog.Project, Path: "/home/u/app/.workrail/workflows"}

// testCatalog loads testdata/workflows as a project source, plus the
// review workflow again from the user folder, which shadows the project's.
func testCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	entries, problems := catalog.LoadFS(os.DirFS(filepath.Join("testdata", "workflows")), projectSource)
	b, err := os.ReadFile(filepath.Join("testdata", "workflows", "project.review.json"))
	if err != nil {
		t.Fatal(err)
	}
	user, p := catalog.Load(b, catalog.Source{Kind: catalog.User, Path: "/home/u/.workrail/workflows"}, "project.review.json")
	if p != nil {
		t.Fatalf("load: %v", p)
	}
	return catalog.New(append(entries, user), problems)
}

func reviewEntry(t *testing.T) catalog.Entry {
	t.Helper()
	e, ok := testCatalog(t).Get("project.review")
	if !ok {
		t.Fatal("project.review did not load")
	}
	return e
}

func TestNewList(t *testing.T) {
	cat := testCatalog(t)
	r := protocol.NewList(cat)
	golden.Check(t, filepath.Join("testdata", "golden", "list.txt"), []byte(r.Text))
	golden.Check(t, filepath.Join("testdata", "golden", "list.json"), mustJSON(t, r))

	if r.ResultKind() != protocol.KindWorkflows || r.Kind != protocol.KindWorkflows || r.RenderedText() != r.Text {
		t.Errorf("kind %q/%q, or RenderedText is not Text", r.ResultKind(), r.Kind)
	}
	var ids []engine.WorkflowID
	for _, w := range r.Workflows {
		ids = append(ids, w.ID)
	}
	if want := []engine.WorkflowID{"legacy_flow", "project.review"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("workflows %v; want %v", ids, want)
	}
	if len(r.Shadowed) != 1 || r.Shadowed[0].ID != "project.review" || r.Shadowed[0].Winner.Kind != catalog.User {
		t.Errorf("shadowed %+v; want the project's review shadowed by the user's", r.Shadowed)
	}
	if len(r.Problems) != 1 || r.Problems[0].File != "broken.json" {
		t.Errorf("problems %+v; want broken.json", r.Problems)
	}
	for _, want := range []string{
		"- project.review (routine): Review. Review the changed files.\n",
		"\nNote: project.review from project (project.review.json) is shadowed by the user one.\n",
		"\nNot loaded: broken.json: ",
		"\nTo begin, call start_workflow with {\"workflowId\": \"<id>\"}.\n",
	} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, r.Text)
		}
	}
	legacy := r.Workflows[0]
	if legacy.IDStatus != workflow.Legacy || len(legacy.Warnings) != 1 || legacy.Warnings[0].Suggest != "project.legacy_flow" {
		t.Errorf("legacy row %+v; want a rename warning to project.legacy_flow", legacy)
	}
	if !strings.Contains(r.Text, "  warning "+string(legacy.Warnings[0].Code)+" at /id: "+legacy.Warnings[0].Message+"\n") {
		t.Errorf("text lacks the legacy warning:\n%s", r.Text)
	}
}

func TestNewListEmpty(t *testing.T) {
	r := protocol.NewList(catalog.New(nil, nil))
	if r.Workflows == nil || len(r.Workflows) != 0 {
		t.Errorf("workflows %#v; want an empty list, not null", r.Workflows)
	}
	if want := "# Workflows\n\n\nTo begin, call start_workflow with {\"workflowId\": \"<id>\"}.\n"; r.Text != want {
		t.Errorf("text %q; want %q", r.Text, want)
	}
}

func TestNewInspect(t *testing.T) {
	e := reviewEntry(t)
	tests := []struct {
		mode    protocol.InspectMode
		prompts bool
	}{
		{protocol.InspectMetadata, false},
		{protocol.InspectPreview, true},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode), func(t *testing.T) {
			r := protocol.NewInspect(e, tt.mode)
			golden.Check(t, filepath.Join("testdata", "golden", "inspect_"+string(tt.mode)+".txt"), []byte(r.Text))
			if r.ResultKind() != protocol.KindWorkflow || r.RenderedText() != r.Text || r.Mode != tt.mode {
				t.Errorf("kind %q, mode %q", r.ResultKind(), r.Mode)
			}
			if r.WorkflowHash != e.Compiled.Hash || r.Workflow.ID != "project.review" || r.Workflow.Source.Kind != catalog.User {
				t.Errorf("workflow %+v, hash %v", r.Workflow, r.WorkflowHash)
			}
			var outline []string
			for _, s := range r.Steps {
				outline = append(outline, strings.Repeat(">", s.Depth)+string(s.ID))
				if hasPrompt := s.Prompt != ""; hasPrompt != (tt.prompts && s.Loop == nil) {
					t.Errorf("step %s has prompt %q in %s mode", s.ID, s.Prompt, tt.mode)
				}
			}
			if want := []string{"plan", "each", ">check", "ship"}; !reflect.DeepEqual(outline, want) {
				t.Errorf("outline %v; want %v", outline, want)
			}
			if len(r.Context) != 2 || r.Context[0].Name != "files" || !r.Context[0].Required {
				t.Errorf("context %+v", r.Context)
			}
			if r.RecommendedPreferences == nil || r.RecommendedPreferences.Autonomy != workflow.Guided {
				t.Errorf("recommended preferences %+v", r.RecommendedPreferences)
			}
			for _, want := range []string{
				"# Review (project.review)\nReview the changed files.\nversion 2.1.0, routine from user, hash " + e.Compiled.Hash.String() + "\n",
				"\n## Context inputs\n- files (array, required): Files to review.\n- strict (boolean, optional): Fail on warnings.\n",
				"- each: Each file [forEach loop, at most 10]\n",
				"  - check: Check one file [when ",
				" [requires wr.contracts.gaps]",
				"- ship: Ship it [needs the user: needs_user_approval]\n",
				"\nTo run it, call start_workflow with {\"workflowId\": \"project.review\"}.\n",
			} {
				if !strings.Contains(r.Text, want) {
					t.Errorf("text lacks %q:\n%s", want, r.Text)
				}
			}
		})
	}
}

// inspect says which inputs the agent sets during the run, in the text
// and in the JSON.
func TestInspectSaysWhatIsSetDuringTheRun(t *testing.T) {
	e, p := catalog.Load([]byte(`{"id":"user.loop","name":"Loop","description":"d","version":"1",
		"context":[{"name":"done","type":"boolean","description":"Send true once it is done.","setDuringRun":true}],
		"steps":[{"id":"a","title":"A","prompt":"p"}]}`), catalog.Source{Kind: catalog.User, Path: "/u"}, "loop.json")
	if p != nil {
		t.Fatal(p)
	}
	r := protocol.NewInspect(e, protocol.InspectMetadata)
	if !strings.Contains(r.Text, "- done (boolean, optional, set during the run): Send true once it is done.\n") || !r.Context[0].SetDuringRun {
		t.Errorf("inspect does not say done is set during the run:\n%s", r.Text)
	}
}

func TestNewInspectWithoutContext(t *testing.T) {
	e, ok := testCatalog(t).Get("legacy_flow")
	if !ok {
		t.Fatal("legacy_flow did not load")
	}
	r := protocol.NewInspect(e, protocol.InspectMetadata)
	if r.Context == nil || len(r.Context) != 0 {
		t.Errorf("context %#v; want an empty list, not null", r.Context)
	}
	if strings.Contains(r.Text, "## Context inputs") {
		t.Errorf("a Context inputs section without inputs:\n%s", r.Text)
	}
	if b := string(mustJSON(t, r)); !strings.Contains(b, `"context": []`) {
		t.Errorf("JSON context is not []:\n%s", b)
	}
}

func TestDaemonUnavailable(t *testing.T) {
	r := protocol.DaemonUnavailable("cannot reach the daemon at /run/wr.sock")
	want := "cannot reach the daemon at /run/wr.sock. Retry the same call in a second; nothing was recorded."
	if r.Error.Code != engine.CodeDaemonUnavailable || r.Error.Message != want {
		t.Errorf("error %+v; want DAEMON_UNAVAILABLE %q", r.Error, want)
	}
	if r.Error.Retry != (engine.Retry{Kind: engine.RetryableAfterMs, AfterMs: 1000}) {
		t.Errorf("retry %+v", r.Error.Retry)
	}
	if !strings.HasPrefix(r.Text, "# Error: DAEMON_UNAVAILABLE\nretry: retryable_after_ms (1000 ms)\n") {
		t.Errorf("text %q", r.Text)
	}
}

// A call that reached the daemon but got no answer may have been
// recorded: the error says so, and that a start is to be found with
// resume_session rather than sent again.
func TestDaemonLost(t *testing.T) {
	r := protocol.DaemonLost("the daemon closed the connection")
	for _, want := range []string{"the daemon closed the connection. ", "may have been recorded", "call resume_session first"} {
		if !strings.Contains(r.Error.Message, want) {
			t.Errorf("message %q does not say %q", r.Error.Message, want)
		}
	}
	if r.Error.Code != engine.CodeDaemonUnavailable || strings.Contains(r.Error.Message, "nothing was recorded") ||
		r.Error.Retry != (engine.Retry{Kind: engine.RetryableAfterMs, AfterMs: 1000}) {
		t.Errorf("error %+v", r.Error)
	}
}

// TestNewInspectShowsWhatTheWorkflowSays: the metadata a workflow carries
// (about, examples, preconditions, questions, rules, references,
// functions, assessments, contracts, notes policy, metrics profile) is in
// inspect's JSON and text; list keeps to its summary.
func TestNewInspectShowsWhatTheWorkflowSays(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "rich", "project.rich.json"))
	if err != nil {
		t.Fatal(err)
	}
	e, p := catalog.Load(b, projectSource, "project.rich.json")
	if p != nil {
		t.Fatalf("load: %v", p)
	}
	e.Warnings = append(e.Warnings, catalog.Notice{Code: "LEGACY_WORKFLOW_ID", Pointer: "/steps/0/prompt", Message: "a warning that points"})
	r := protocol.NewInspect(e, protocol.InspectMetadata)
	golden.Check(t, filepath.Join("testdata", "golden", "inspect_rich.txt"), []byte(r.Text))
	if r.About == "" || len(r.Examples) != 2 || len(r.Preconditions) != 2 || len(r.ClarificationPrompts) != 1 || len(r.MetaGuidance) != 2 {
		t.Errorf("metadata lists: %+v", r)
	}
	if len(r.References) != 1 || !r.References[0].Authoritative || r.MetricsProfile != workflow.MetricsCoding || r.Notes != workflow.NotesRequired {
		t.Errorf("references %+v, metrics %q, notes %q", r.References, r.MetricsProfile, r.Notes)
	}
	if len(r.FunctionDefinitions) != 1 || len(r.Assessments) != 1 || len(r.Assessments[0].Dimensions) != 2 {
		t.Errorf("functions %+v, assessments %+v", r.FunctionDefinitions, r.Assessments)
	}
	var refs []workflow.ContractRef
	for _, c := range r.Contracts {
		refs = append(refs, c.Ref)
	}
	if want := []workflow.ContractRef{"user.plan_summary", workflow.ContractAssessment, workflow.ContractGaps}; !reflect.DeepEqual(refs, want) {
		t.Fatalf("contracts %v; want %v: the declared one, the assessment pack its assessmentRefs need, and gaps", refs, want)
	}
	if g := r.Contracts[2]; g.Declared || len(g.Schema) == 0 {
		t.Errorf("gaps %+v; want WorkRail's pack with its schema", g)
	}
	if d := r.Contracts[0]; !d.Declared || len(d.Kinds) != 1 || d.Kinds[0] != "user.plan" || len(d.Example) == 0 {
		t.Errorf("declared contract %s: declared %v, kinds %v; want declared, accepting user.plan, with its example", d.Ref, d.Declared, d.Kinds)
	}
	if !strings.Contains(r.Text, "- LEGACY_WORKFLOW_ID at /steps/0/prompt: a warning that points\n") {
		t.Errorf("text lacks the pointed warning:\n%s", r.Text)
	}
	l := protocol.NewList(catalog.New([]catalog.Entry{e}, nil))
	if row := string(mustJSON(t, l)); strings.Contains(row, `"about"`) || strings.Contains(row, `"references"`) || !strings.Contains(row, `"pointer": "/steps/0/prompt"`) {
		t.Errorf("list carries metadata, or lacks the warning's pointer:\n%s", row)
	}
}

// TestInspectALegacyFile: a file in the TypeScript WorkRail's format is
// listed with its dialect, and inspect says which dialect it was read from,
// the rewrites applied and each rewrite's warning with its code and pointer.
func TestInspectALegacyFile(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "rich", "ts-check.json"))
	if err != nil {
		t.Fatal(err)
	}
	e, p := catalog.Load(b, projectSource, "ts-check.json")
	if p != nil {
		t.Fatalf("load: %v", p)
	}
	l := protocol.NewList(catalog.New([]catalog.Entry{e}, nil))
	// A list counts a legacy file's rewrites; inspect lists them.
	if w := l.Workflows[0]; w.ID != "project.ts-check" || w.Dialect != "workrail-ts" || len(w.Warnings) != 1 || w.Rewrites != 3 {
		t.Errorf("list row %+v; want project.ts-check in the workrail-ts dialect with its id warning and 3 rewrites", w)
	}
	if !strings.Contains(l.Text, "  read from the workrail-ts format with 3 rewrites (inspect_workflow lists them)\n") ||
		strings.Contains(l.Text, "NOT_EQUALS") {
		t.Errorf("list text does not count the rewrites, or lists them:\n%s", l.Text)
	}
	r := protocol.NewInspect(e, protocol.InspectMetadata)
	if !slices.Equal(r.Rewrites, []string{"CONTEXT_SYNTHESIZED", "NOT_EQUALS", "OUTPUT_CONTRACT"}) {
		t.Errorf("rewrites %v", r.Rewrites)
	}
	for _, want := range []string{
		"\nwritten in the workrail-ts dialect and read through its normalizer (rewrites: CONTEXT_SYNTHESIZED, NOT_EQUALS, OUTPUT_CONTRACT)\n",
		"\n## Load warnings\n- RESERVED_ID_RENAMED at /id: ",
		"\n- LEGACY_FORMAT OUTPUT_CONTRACT at /steps/0/outputContract: ",
	} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("inspect text lacks %q:\n%s", want, r.Text)
		}
	}
}

// A folder of 20,000 broken files (a cloned repository's) lists the first
// files it could not load, each with its first problems, counts the rest
// and says how to see them all: the answer stays small. It was 9.55 MB.
func TestNewListBoundsWhatItCouldNotLoad(t *testing.T) {
	const files = 20000
	broken := fstest.MapFS{"broken.json": &fstest.MapFile{Data: []byte(
		`{"id":"project.broken","name":"","steps":[{"id":"a","title":"","prompt":"","bogus":1},{"id":"a"}]}`)}}
	_, loaded := catalog.LoadFS(broken, projectSource)
	if len(loaded) != 1 || len(loaded[0].Problems) <= 5 {
		t.Fatalf("not loaded: %+v; want the file, with more than 5 problems", loaded)
	}
	problems := make([]catalog.LoadProblem, files)
	for i := range problems {
		problems[i] = loaded[0]
		problems[i].File = fmt.Sprintf("broken%05d.json", i)
	}
	r := protocol.NewList(catalog.New(nil, problems))
	if len(r.Problems) != protocol.MaxListedProblems || r.ProblemCount != files || r.Problems[0].File != "broken00000.json" {
		t.Errorf("%d files listed of %d counted, the first %s; want the first %d of %d", len(r.Problems), r.ProblemCount, r.Problems[0].File, protocol.MaxListedProblems, files)
	}
	if p := r.Problems[0]; len(p.Problems) != 5 || p.MoreProblems != len(loaded[0].Problems)-5 {
		t.Errorf("the first file lists %d problems and counts %d more; it has %d", len(p.Problems), p.MoreProblems, len(loaded[0].Problems))
	}
	want := "\n19980 more files not loaded (20000 in all). Run `workrail validate " + projectSource.Path + "` to see every problem of every file, with its line.\n"
	if !strings.Contains(r.Text, want) {
		t.Errorf("the text does not say how many more and where to see them:\n%s", r.Text)
	}
	if n := len(mustJSON(t, r)); n > 64<<10 {
		t.Errorf("the answer is %d bytes", n)
	}
}

// A workflow of a repository lists with the repository, ref and commit;
// two repositories defining one id are a conflict naming both and the
// rule that picked; a repository not fetched is a warning saying since
// when, in the text and in JSON.
func TestNewListRepositories(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "workflows", "project.review.json"))
	if err != nil {
		t.Fatal(err)
	}
	repo := func(name, commit string) catalog.Source {
		return catalog.Source{Kind: catalog.Repo, Path: "/cache/" + name, Repo: catalog.RepoRef{URL: "https://example.com/" + name + ".git", Ref: "main", Commit: commit}}
	}
	a, b2 := repo("company", strings.Repeat("a", 40)), repo("team", strings.Repeat("b", 40))
	ea, _ := catalog.Load(b, a, "/cache/company/review.json")
	eb, _ := catalog.Load(b, b2, "/cache/team/review.json")
	cat := catalog.New([]catalog.Entry{ea, eb}, nil).WithWarnings([]catalog.SourceWarning{{Code: catalog.SourceStale, Source: b2,
		LastSynced: "2025-03-01T12:00:00Z", Message: "https://example.com/team.git could not be fetched; its workflows are those of commit bbbbbbbbbbbb, fetched 2025-03-01T12:00:00Z: connection refused"}})
	r := protocol.NewList(cat)
	for _, want := range []string{
		"Warning SOURCE_STALE: https://example.com/team.git could not be fetched",
		"  from repository https://example.com/team.git (main) at commit bbbbbbbbbbbb\n",
		"Note: project.review from repository https://example.com/company.git (/cache/company/review.json) is shadowed by the repository https://example.com/team.git one. Of two repositories the later in workflowRepos wins.",
	} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("the text lacks %q:\n%s", want, r.Text)
		}
	}
	compact, _ := json.Marshal(r)
	js := string(compact)
	for _, want := range []string{`"repo":{"url":"https://example.com/team.git","ref":"main","commit":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}`,
		`"sourceWarnings":[{"code":"SOURCE_STALE","source":{"kind":"repo"`, `"lastSynced":"2025-03-01T12:00:00Z"`} {
		if !strings.Contains(js, want) {
			t.Errorf("the JSON lacks %s:\n%s", want, js)
		}
	}
}
