package catalog_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/workflow"
)

// multiline puts the id on line 3, column 3, so located problems can be
// checked exactly.
func multiline(id string) []byte {
	return fmt.Appendf(nil, `{
  "name": "Review",
  "id": %q,
  "description": "d",
  "version": "1",
  "steps": [{"id": "a", "title": "A", "prompt": "do a"}]
}
`, id)
}

const (
	msgBundled  = "bundled workflows must use the wr namespace"
	msgReserved = "the wr namespace is reserved for workflows bundled with WorkRail; rename %q to e.g. %q"
)

func TestLoadIDRules(t *testing.T) {
	for _, tc := range []struct {
		kind    catalog.SourceKind
		id      string
		problem string // exact message of the one /id problem; "" to load
		status  workflow.IDStatus
		suggest string // legacy rename, when loaded
		loadsAs string // the id a reserved one loads under
	}{
		{kind: catalog.Bundled, id: "wr.review", status: workflow.Namespaced},
		{kind: catalog.Bundled, id: "user.review", problem: msgBundled},
		{kind: catalog.Bundled, id: "wrx.review", problem: msgBundled},
		{kind: catalog.Bundled, id: "review", problem: msgBundled},
		{kind: catalog.Bundled, id: "wr", problem: msgBundled},

		{kind: catalog.User, id: "wr.review", status: workflow.Namespaced, loadsAs: "user.review"},
		{kind: catalog.User, id: "team.review", status: workflow.Namespaced},
		{kind: catalog.User, id: "project.review", status: workflow.Namespaced},
		{kind: catalog.User, id: "review", status: workflow.Legacy, suggest: "user.review"},
		{kind: catalog.User, id: "wr", status: workflow.Legacy, suggest: "user.wr"},

		{kind: catalog.Project, id: "wr.review", status: workflow.Namespaced, loadsAs: "project.review"},
		{kind: catalog.Project, id: "user.review", status: workflow.Namespaced},
		{kind: catalog.Project, id: "review", status: workflow.Legacy, suggest: "project.review"},

		{kind: catalog.Config, id: "wr.review", status: workflow.Namespaced, loadsAs: "repo.review"},
		{kind: catalog.Config, id: "repo.review", status: workflow.Namespaced},
		{kind: catalog.Config, id: "review", status: workflow.Legacy, suggest: "repo.review"},
	} {
		t.Run(string(tc.kind)+"/"+tc.id, func(t *testing.T) {
			s := catalog.Source{Kind: tc.kind, Path: paths[tc.kind]}
			e, p := catalog.Load(multiline(tc.id), s, "review.json")
			if tc.problem != "" {
				want := workflow.Problems{{Pointer: "/id", Line: 3, Column: 3, Message: tc.problem}}
				if !reflect.DeepEqual(p, want) {
					t.Fatalf("problems = %#v\nwant %#v", p, want)
				}
				if want := "3:3: /id: " + tc.problem; p.Error() != want {
					t.Errorf("Error() = %q, want %q", p.Error(), want)
				}
				if !reflect.DeepEqual(e, catalog.Entry{}) {
					t.Errorf("entry = %+v, want zero with problems", e)
				}
				return
			}
			if p != nil {
				t.Fatalf("problems = %v", p)
			}
			id := tc.id
			if tc.loadsAs != "" {
				id = tc.loadsAs
			}
			if e.Source != s || e.File != "review.json" || string(e.Compiled.ID) != id || e.IDStatus != tc.status {
				t.Errorf("entry = {Source %+v File %q ID %q IDStatus %q}", e.Source, e.File, e.Compiled.ID, e.IDStatus)
			}
			var want []catalog.Notice
			if tc.loadsAs != "" {
				want = []catalog.Notice{{Code: event.NoticeReservedIDRenamed, Suggest: tc.loadsAs, Pointer: "/id",
					Message: fmt.Sprintf("%q is in the wr namespace, which is WorkRail's own; it loads as %q (rename it in the file to keep that id)", tc.id, tc.loadsAs)}}
			}
			if tc.suggest != "" {
				want = []catalog.Notice{{
					Code:    event.NoticeLegacyWorkflowID,
					Pointer: "/id",
					Suggest: tc.suggest,
					Message: fmt.Sprintf("workflow id %q has no namespace; it still runs, but rename it to %q", tc.id, tc.suggest),
				}}
			}
			if !reflect.DeepEqual(e.Warnings, want) {
				t.Errorf("warnings = %#v\nwant %#v", e.Warnings, want)
			}
		})
	}
}

func TestLoadCompiles(t *testing.T) {
	s := catalog.Source{Kind: catalog.User, Path: "/u"}
	for _, tc := range []struct {
		name string
		kind string
		want workflow.Kind
	}{
		{"kind left out", "", workflow.KindWorkflow},
		{"workflow", "workflow", workflow.KindWorkflow},
		{"routine", "routine", workflow.KindRoutine},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := wfJSON("user.w", "W", tc.kind)
			e := MustLoad(t, b, s, "w.json")
			w, err := workflow.Parse(b)
			if err != nil {
				t.Fatal(err)
			}
			c, err := compile.Compile(w)
			if err != nil {
				t.Fatal(err)
			}
			if e.Compiled.Kind != tc.want || e.Compiled.Name != "W" {
				t.Errorf("compiled kind %q name %q", e.Compiled.Kind, e.Compiled.Name)
			}
			if e.Compiled.Hash == (engine.WorkflowHash{}) || e.Compiled.Hash != c.Hash || string(e.Compiled.Canonical) != string(c.Canonical) {
				t.Errorf("compiled hash %q, want %q from compile.Compile", e.Compiled.Hash, c.Hash)
			}
		})
	}
}

// Problems from parsing come back as Parse reports them, and the source's
// id rules add nothing on top.
func TestLoadParseProblems(t *testing.T) {
	for _, tc := range []struct {
		name  string
		kind  catalog.SourceKind
		src   string
		check func(t *testing.T, p workflow.Problems)
	}{
		{"truncated JSON", catalog.User, `{"id":"user.x","name":"x"`, func(t *testing.T, p workflow.Problems) {
			if len(p) != 1 || p[0].Line != 1 || p[0].Column != 26 || p[0].Pointer != "" {
				t.Errorf("problem = %#v, want one at 1:26 with no pointer", p)
			}
		}},
		// The column of a syntax error is not pinned here: Parse reports the
		// one after the offending character (reported separately).
		{"not JSON at all", catalog.Project, "id: project.x\nname: X\n", func(t *testing.T, p workflow.Problems) {
			if len(p) != 1 || p[0].Line != 1 || p[0].Column == 0 || p[0].Pointer != "" {
				t.Errorf("problem = %#v, want one on line 1 with no pointer", p)
			}
		}},
		{"malformed id from bundled", catalog.Bundled, string(multiline("WR.Review")), func(t *testing.T, p workflow.Problems) {
			if len(p) != 1 || p[0].Pointer != "/id" || p[0].Line != 3 || p[0].Message == msgBundled {
				t.Errorf("problems = %#v, want only Parse's /id complaint", p)
			}
		}},
		{"reserved id and a missing name", catalog.Config, `{"id":"wr.x","description":"d","version":"1","steps":[{"id":"a","title":"A","prompt":"p"}]}`,
			func(t *testing.T, p workflow.Problems) {
				if len(p) != 1 || p[0].Pointer != "/name" {
					t.Errorf("problems = %#v, want only Parse's /name complaint", p)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, p := catalog.Load([]byte(tc.src), catalog.Source{Kind: tc.kind}, "x.json")
			if !reflect.DeepEqual(e, catalog.Entry{}) {
				t.Errorf("entry = %+v, want zero", e)
			}
			_, err := workflow.Parse([]byte(tc.src))
			if err == nil || !reflect.DeepEqual(p, err) {
				t.Errorf("Load problems = %#v\nParse error = %#v", p, err)
			}
			tc.check(t, p)
		})
	}
}

func TestSuggestedID(t *testing.T) {
	for _, tc := range []struct {
		kind catalog.SourceKind
		want engine.WorkflowID
	}{
		{catalog.User, "user.review"},
		{catalog.Project, "project.review"},
		{catalog.Config, "repo.review"},
		// Bundled legacy ids never load; any kind without its own
		// namespace falls back to user.
		{catalog.Bundled, "user.review"},
		{"", "user.review"},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			if got := catalog.SuggestedID("review", tc.kind); got != tc.want {
				t.Errorf("SuggestedID(review, %q) = %q, want %q", tc.kind, got, tc.want)
			}
			if st, err := workflow.StatusOf(tc.want); err != nil || st != workflow.Namespaced {
				t.Errorf("suggestion %q is not a valid namespaced id: %v %v", tc.want, st, err)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		id      string
		kind    catalog.SourceKind
		problem string
		suggest string
	}{
		{id: "wr.review", kind: catalog.Bundled},
		{id: "wr.review", kind: catalog.User, suggest: "user.review"},
		{id: "team.review", kind: catalog.Bundled, problem: msgBundled},
		{id: "team.review", kind: catalog.User},
		{id: "review", kind: catalog.Bundled, problem: msgBundled},
		{id: "review", kind: catalog.User, suggest: "user.review"},
		{id: "review", kind: catalog.Project, suggest: "project.review"},
	} {
		t.Run(string(tc.kind)+"/"+tc.id, func(t *testing.T) {
			b := multiline(tc.id)
			c, notices, p := catalog.Validate(b, tc.kind)
			if tc.problem != "" {
				want := workflow.Problems{{Pointer: "/id", Line: 3, Column: 3, Message: tc.problem}}
				if !reflect.DeepEqual(p, want) {
					t.Errorf("problems = %#v\nwant %#v", p, want)
				}
				if c.ID != "" || c.Hash != (engine.WorkflowHash{}) || notices != nil {
					t.Errorf("got compiled %q (%q) and notices %v alongside problems", c.ID, c.Hash, notices)
				}
				return
			}
			if p != nil {
				t.Fatalf("problems = %v", p)
			}
			e := MustLoad(t, b, catalog.Source{Kind: tc.kind, Path: "/anywhere"}, "f.json")
			if (string(c.ID) != tc.id && string(c.ID) != tc.suggest) || c.Hash != e.Compiled.Hash {
				t.Errorf("compiled %q hash %q, want %q hash %q as Load gives", c.ID, c.Hash, tc.id, e.Compiled.Hash)
			}
			if !reflect.DeepEqual(notices, e.Warnings) {
				t.Errorf("notices = %#v, Load warnings = %#v", notices, e.Warnings)
			}
			if got := len(notices) == 1 && notices[0].Suggest == tc.suggest; (tc.suggest != "") != got {
				t.Errorf("notices = %#v, want suggestion %q", notices, tc.suggest)
			}
		})
	}
}
