package catalog_test

import (
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/workflow"
)

// testdata/user holds two good files (one legacy), one broken, one using
// the reserved wr namespace, one written in YAML, two files that are not
// *.json and a nested folder; each is loaded as every source kind.
func TestLoadFSFolder(t *testing.T) {
	syntax := func(file string, line int) string { return fmt.Sprintf("%s @%d: invalid JSON", file, line) }
	for _, tc := range []struct {
		kind     catalog.SourceKind
		entries  []string // file id [suggested rename]
		problems []string // file pointer@line: message
	}{
		{
			kind:     catalog.User,
			entries:  []string{"a-team.json team.review", "b-legacy.json quick-fix user.quick-fix", "d-reserved.json user.review user.review"},
			problems: []string{syntax("c-broken.json", 6), syntax("e-yaml.json", 1)},
		},
		{
			kind:     catalog.Project,
			entries:  []string{"a-team.json team.review", "b-legacy.json quick-fix project.quick-fix", "d-reserved.json project.review project.review"},
			problems: []string{syntax("c-broken.json", 6), syntax("e-yaml.json", 1)},
		},
		{
			kind:     catalog.Config,
			entries:  []string{"a-team.json team.review", "b-legacy.json quick-fix repo.quick-fix", "d-reserved.json repo.review repo.review"},
			problems: []string{syntax("c-broken.json", 6), syntax("e-yaml.json", 1)},
		},
		{
			kind:    catalog.Bundled,
			entries: []string{"d-reserved.json wr.review"},
			problems: []string{"a-team.json /id@2: " + msgBundled, "b-legacy.json /id@2: " + msgBundled,
				syntax("c-broken.json", 6), syntax("e-yaml.json", 1)},
		},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			s := catalog.Source{Kind: tc.kind, Path: "testdata/user"}
			entries, problems := catalog.LoadFS(os.DirFS("testdata/user"), s)
			var got []string
			for _, e := range entries {
				line := e.File + " " + string(e.Compiled.ID)
				for _, w := range e.Warnings {
					line += " " + w.Suggest
				}
				got = append(got, line)
				if e.Source != s {
					t.Errorf("%s: source %+v, want %+v", e.File, e.Source, s)
				}
			}
			if !slices.Equal(got, tc.entries) {
				t.Errorf("entries:\n got %q\nwant %q", got, tc.entries)
			}
			got = nil
			for _, lp := range problems {
				if lp.Source != s || len(lp.Problems) != 1 {
					t.Errorf("%s: source %+v, %d problems", lp.File, lp.Source, len(lp.Problems))
					continue
				}
				p := lp.Problems[0]
				if p.Line == 0 || p.Column == 0 || (p.Pointer == "/id" && p.Column != 3) {
					t.Errorf("%s: problem not located: %s", lp.File, p)
				}
				msg := p.Message
				if p.Pointer == "" {
					msg, _, _ = strings.Cut(msg, ":")
				}
				got = append(got, fmt.Sprintf("%s %s@%d: %s", lp.File, p.Pointer, p.Line, msg))
			}
			if !slices.Equal(got, tc.problems) {
				t.Errorf("problems:\n got %q\nwant %q", got, tc.problems)
			}
		})
	}
}

func TestLoadFS(t *testing.T) {
	user := catalog.Source{Kind: catalog.User, Path: "/u"}
	good := func(id string) *fstest.MapFile { return &fstest.MapFile{Data: wfJSON(id, id, "")} }
	for _, tc := range []struct {
		name     string
		fsys     fstest.MapFS
		entries  []string // file=id
		problems []string // file: problems
	}{
		{name: "empty folder", fsys: fstest.MapFS{}},
		{
			name:    "name order, not insertion or id order",
			fsys:    fstest.MapFS{"b.json": good("user.a"), "c.json": good("user.c"), "a.json": good("user.b")},
			entries: []string{"a.json=user.b", "b.json=user.a", "c.json=user.c"},
		},
		{
			name: "only *.json at the top",
			fsys: fstest.MapFS{
				"w.json": good("user.w"), "sub/x.json": good("user.x"), "x.yaml": good("user.y"),
				"x.json.bak": good("user.z"), "notes.txt": {Data: []byte("hello")},
			},
			entries: []string{"w.json=user.w"},
		},
		{
			name:     "a folder named like a workflow file",
			fsys:     fstest.MapFS{"dir.json/w.json": good("user.w"), "w.json": good("user.w")},
			entries:  []string{"w.json=user.w"},
			problems: []string{"dir.json: (document): read dir.json: invalid argument"},
		},
		{
			name:     "broken file does not stop the rest",
			fsys:     fstest.MapFS{"a.json": {Data: []byte(`{"id":"user.a",`)}, "b.json": good("user.b")},
			entries:  []string{"b.json=user.b"},
			problems: []string{"a.json: 1:16: (document): invalid JSON: unexpected EOF"},
		},
		{
			name:     "not UTF-8",
			fsys:     fstest.MapFS{"a.json": {Data: []byte("{\"id\":\"user.\xff\"}")}},
			problems: []string{"a.json: 1:13: (document): the file is not valid UTF-8 here: save it with UTF-8 encoding"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			entries, problems := catalog.LoadFS(tc.fsys, user)
			var got []string
			for _, e := range entries {
				got = append(got, e.File+"="+string(e.Compiled.ID))
			}
			if !slices.Equal(got, tc.entries) {
				t.Errorf("entries = %q, want %q", got, tc.entries)
			}
			got = nil
			for _, p := range problems {
				if p.Source != user {
					t.Errorf("%s: source %+v", p.File, p.Source)
				}
				got = append(got, p.File+": "+p.Problems.Error())
			}
			if !slices.Equal(got, tc.problems) {
				t.Errorf("problems = %q, want %q", got, tc.problems)
			}
		})
	}
}

// Folders loaded with LoadFS and handed to New: precedence holds whichever
// folder's entries come first, and the load problems reach the catalog.
func TestLoadFSIntoNew(t *testing.T) {
	userSrc := catalog.Source{Kind: catalog.User, Path: "/u"}
	projSrc := catalog.Source{Kind: catalog.Project, Path: "/ws/.workrail/workflows"}
	userE, userP := catalog.LoadFS(fstest.MapFS{
		"shared.json": {Data: wfJSON("team.shared", "Shared (user)", "")},
		"helper.json": {Data: wfJSON("helper", "Helper (user)", "routine")},
		"bad.json":    {Data: []byte(`{`)},
	}, userSrc)
	projE, projP := catalog.LoadFS(fstest.MapFS{
		"shared.json": {Data: wfJSON("team.shared", "Shared (project)", "")},
		"helper.json": {Data: wfJSON("helper", "Helper (project)", "routine")},
		"mine.json":   {Data: wfJSON("project.mine", "Mine", "")},
	}, projSrc)
	problems := append(slices.Clone(userP), projP...)
	for name, entries := range map[string][]catalog.Entry{
		"user first":    append(slices.Clone(userE), projE...),
		"project first": append(slices.Clone(projE), userE...),
	} {
		t.Run(name, func(t *testing.T) {
			c := catalog.New(entries, problems)
			if got, want := c.IDs(), []string{"helper", "project.mine", "team.shared"}; !slices.Equal(got, want) {
				t.Errorf("IDs = %v, want %v", got, want)
			}
			for _, id := range []string{"helper", "team.shared"} {
				e, _ := c.Get(engine.WorkflowID(id))
				if e.Source != userSrc || !strings.HasSuffix(e.Compiled.Name, "(user)") {
					t.Errorf("%s: used %s from %+v", id, e.Compiled.Name, e.Source)
				}
			}
			if h, _ := c.Get("helper"); h.IDStatus != workflow.Legacy || len(h.Warnings) != 1 || h.Warnings[0].Suggest != "user.helper" {
				t.Errorf("helper: status %q warnings %+v", h.IDStatus, h.Warnings)
			}
			var shadows []string
			for _, s := range c.Shadowed {
				shadows = append(shadows, fmt.Sprintf("%s %s<-%s %s", s.ID, s.Winner.Kind, s.Shadowed.Kind, s.File))
			}
			slices.Sort(shadows)
			if want := []string{"helper user<-project helper.json", "team.shared user<-project shared.json"}; !slices.Equal(shadows, want) {
				t.Errorf("shadows = %q, want %q", shadows, want)
			}
			if !reflect.DeepEqual(c.Problems, problems) || len(c.Problems) != 1 || c.Problems[0].File != "bad.json" {
				t.Errorf("Problems = %+v", c.Problems)
			}
		})
	}
}
