package catalog_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/workflow"
)

// paths gives each source kind a distinct folder, so a Source names its kind
// and folder unambiguously in the assertions.
var paths = map[catalog.SourceKind]string{
	catalog.Bundled: "",
	catalog.User:    "/home/u/.workrail/workflows",
	catalog.Project: "/ws/.workrail/workflows",
	catalog.Config:  "/etc/workrail/extra",
	catalog.Repo:    "/home/u/.local/share/workrail/repos/0a1b2c/tree",
}

// byPrecedence lists the source kinds, highest precedence first.
var byPrecedence = []catalog.SourceKind{catalog.Bundled, catalog.User, catalog.Project, catalog.Config, catalog.Repo}

func src(k catalog.SourceKind) catalog.Source { return catalog.Source{Kind: k, Path: paths[k]} }

func TestNewPrecedenceEveryPair(t *testing.T) {
	const id = "team.shared"
	for i, hi := range byPrecedence {
		for _, lo := range byPrecedence[i+1:] {
			win := entry(hi, paths[hi], string(hi)+".json", id, "from "+string(hi), workflow.KindWorkflow)
			lose := entry(lo, paths[lo], string(lo)+".json", id, "from "+string(lo), workflow.KindWorkflow)
			other := entry(lo, paths[lo], "other.json", "zz.other", "Other", workflow.KindWorkflow)
			orders := map[string][]catalog.Entry{
				"winner first": {win, lose, other},
				"winner last":  {other, lose, win},
			}
			for name, in := range orders {
				t.Run(fmt.Sprintf("%s>%s/%s", hi, lo, name), func(t *testing.T) {
					c := catalog.New(in, nil)
					got, ok := c.Get(id)
					if !ok {
						t.Fatalf("Get(%q) missing", id)
					}
					if got.Source != src(hi) || got.File != win.File || got.Compiled.Name != win.Compiled.Name {
						t.Errorf("winner = %+v from %s, want %+v from %s", got.Source, got.File, src(hi), win.File)
					}
					want := []catalog.Shadow{{ID: id, Winner: src(hi), Shadowed: src(lo), File: lose.File}}
					if !reflect.DeepEqual(c.Shadowed, want) {
						t.Errorf("Shadowed = %+v, want %+v", c.Shadowed, want)
					}
					if ids := c.IDs(); !slices.Equal(ids, []string{id, "zz.other"}) {
						t.Errorf("IDs = %v", ids)
					}
					if c.Problems != nil {
						t.Errorf("Problems = %+v, want none: shadowing is not a load problem", c.Problems)
					}
				})
			}
		}
	}
}

// Whatever order five same-id entries arrive in, bundled is used and the
// other three are each reported once.
func TestNewPrecedenceAllKindsAnyOrder(t *testing.T) {
	const id = "team.shared"
	var in []catalog.Entry
	for _, k := range byPrecedence {
		in = append(in, entry(k, paths[k], string(k)+".json", id, string(k), workflow.KindWorkflow))
	}
	for _, order := range permutations(in) {
		var names []string
		for _, e := range order {
			names = append(names, string(e.Source.Kind))
		}
		t.Run(strings.Join(names, ","), func(t *testing.T) {
			c := catalog.New(order, nil)
			if got, _ := c.Get(id); got.Source != src(catalog.Bundled) {
				t.Errorf("winner = %+v, want bundled", got.Source)
			}
			var shadowed []string
			for _, s := range c.Shadowed {
				if s.ID != id || s.File != string(s.Shadowed.Kind)+".json" || s.Shadowed != src(s.Shadowed.Kind) {
					t.Errorf("shadow record %+v does not describe the shadowed file", s)
				}
				shadowed = append(shadowed, string(s.Shadowed.Kind))
			}
			slices.Sort(shadowed)
			if want := []string{"config", "project", "repo", "user"}; !slices.Equal(shadowed, want) {
				t.Errorf("shadowed kinds = %v, want %v", shadowed, want)
			}
			if !slices.Equal(c.IDs(), []string{id}) {
				t.Errorf("IDs = %v", c.IDs())
			}
		})
	}
}

// Shadow's doc says "the winner is used": every record's Winner should be
// the source whose entry Get returns, whatever the input order.
func TestNewShadowWinnerIsTheEntryUsed(t *testing.T) {
	const id = "team.shared"
	var in []catalog.Entry
	for _, k := range byPrecedence {
		in = append(in, entry(k, paths[k], string(k)+".json", id, string(k), workflow.KindWorkflow))
	}
	for _, order := range permutations(in) {
		c := catalog.New(order, nil)
		used, _ := c.Get(id)
		for _, s := range c.Shadowed {
			if s.Winner != used.Source {
				t.Errorf("order %v: shadow %+v names winner %s, but %s is used", kinds(order), s, s.Winner.Kind, used.Source.Kind)
			}
		}
	}
}

func kinds(es []catalog.Entry) []catalog.SourceKind {
	var out []catalog.SourceKind
	for _, e := range es {
		out = append(out, e.Source.Kind)
	}
	return out
}

// Two folders of the same kind (two config folders) tie on precedence: the
// one given first is used. This is the one case where input order decides.
func TestNewSameKindFirstGivenWins(t *testing.T) {
	a := entry(catalog.Config, "/extra/a", "w.json", "repo.w", "from a", workflow.KindWorkflow)
	b := entry(catalog.Config, "/extra/b", "w.json", "repo.w", "from b", workflow.KindWorkflow)
	for _, tc := range []struct {
		name      string
		in        []catalog.Entry
		win, lose catalog.Entry
	}{
		{"a then b", []catalog.Entry{a, b}, a, b},
		{"b then a", []catalog.Entry{b, a}, b, a},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := catalog.New(tc.in, nil)
			if got, _ := c.Get("repo.w"); got.Source != tc.win.Source {
				t.Errorf("used %+v, want %+v", got.Source, tc.win.Source)
			}
			want := []catalog.Shadow{{ID: "repo.w", Winner: tc.win.Source, Shadowed: tc.lose.Source, File: "w.json"}}
			if !reflect.DeepEqual(c.Shadowed, want) {
				t.Errorf("Shadowed = %+v, want %+v", c.Shadowed, want)
			}
		})
	}
}

// Of two repositories defining one id the later in workflowRepos wins,
// as in the TypeScript WorkRail (a team's repository layered over a
// company's); the conflict is listed naming both, and within one
// repository the file given first keeps the id, as in a folder.
func TestNewRepoLaterWins(t *testing.T) {
	repo := func(url, file, name string) catalog.Entry {
		e := entry(catalog.Repo, "/cache/"+url, file, "team.review", name, workflow.KindWorkflow)
		e.Source.Repo = catalog.RepoRef{URL: "https://example.com/" + url, Commit: strings.Repeat("a", 40)}
		return e
	}
	company, team, again := repo("company.git", "review.json", "company's"), repo("team.git", "review.json", "team's"), repo("team.git", "z-review.json", "team's other")
	c := catalog.New([]catalog.Entry{company, team, again}, nil)
	if got, _ := c.Get("team.review"); got.Compiled.Name != "team's" {
		t.Fatalf("used %q from %s", got.Compiled.Name, got.File)
	}
	want := []catalog.Shadow{
		{ID: "team.review", Winner: team.Source, Shadowed: company.Source, File: "review.json"},
		{ID: "team.review", Winner: team.Source, Shadowed: team.Source, File: "z-review.json"},
	}
	if !reflect.DeepEqual(c.Shadowed, want) {
		t.Errorf("Shadowed = %+v\nwant %+v", c.Shadowed, want)
	}
	if l := team.Source.Label(); l != "repo https://example.com/team.git@aaaaaaaaaaaa" {
		t.Errorf("label %q", l)
	}
	// A folder of higher precedence still wins over both.
	user := entry(catalog.User, paths[catalog.User], "review.json", "team.review", "mine", workflow.KindWorkflow)
	if got, _ := catalog.New([]catalog.Entry{company, user, team}, nil).Get("team.review"); got.Compiled.Name != "mine" {
		t.Errorf("used %q over the user's own", got.Compiled.Name)
	}
}

func TestNewSortOrder(t *testing.T) {
	in := []catalog.Entry{
		entry(catalog.Bundled, "", "start.json", "wr.start", "Start", workflow.KindWorkflow),
		entry(catalog.User, paths[catalog.User], "a.json", "team.a", "Alpha", workflow.KindRoutine),
		entry(catalog.User, paths[catalog.User], "b.json", "team.b", "Beta", workflow.KindWorkflow),
		entry(catalog.User, paths[catalog.User], "z.json", "team.z", "Alpha", workflow.KindWorkflow),
		entry(catalog.User, paths[catalog.User], "y.json", "team.y", "Alpha", workflow.KindWorkflow),
		entry(catalog.Config, paths[catalog.Config], "x.json", "team-x.a", "Aaa", workflow.KindWorkflow),
		entry(catalog.Project, paths[catalog.Project], "q.json", "abc.q", "Q", workflow.KindRoutine),
		entry(catalog.User, paths[catalog.User], "legacy.json", "zeta", "Zeta", workflow.KindWorkflow),
	}
	// Legacy ids (no namespace) first; then namespace ("team" before
	// "team-x", although "team-x.a" < "team.a" as strings); within one,
	// workflows before routines, then name, then id.
	want := []string{"zeta", "abc.q", "team.y", "team.z", "team.b", "team.a", "team-x.a", "wr.start"}
	var orders [][]catalog.Entry
	for i := range in {
		rot := append(slices.Clone(in[i:]), in[:i]...)
		rev := slices.Clone(rot)
		slices.Reverse(rev)
		orders = append(orders, rot, rev)
	}
	for i, order := range orders {
		t.Run(fmt.Sprint("order", i), func(t *testing.T) {
			c := catalog.New(order, nil)
			if got := c.IDs(); !slices.Equal(got, want) {
				t.Fatalf("IDs = %v\nwant %v", got, want)
			}
			all := c.All()
			if len(all) != len(want) {
				t.Fatalf("All has %d entries, want %d", len(all), len(want))
			}
			for j, e := range all {
				if string(e.Compiled.ID) != want[j] {
					t.Errorf("All()[%d] = %s, want %s", j, e.Compiled.ID, want[j])
				}
			}
			if c.Shadowed != nil {
				t.Errorf("Shadowed = %+v, want none", c.Shadowed)
			}
		})
	}
}

func TestGetAllIDs(t *testing.T) {
	t.Run("empty", func(t *testing.T) {
		c := catalog.New(nil, nil)
		if all, ids := c.All(), c.IDs(); len(all) != 0 || len(ids) != 0 {
			t.Errorf("All = %v, IDs = %v, want both empty", all, ids)
		}
		if e, ok := c.Get("user.x"); ok || !reflect.DeepEqual(e, catalog.Entry{}) {
			t.Errorf("Get on empty catalog = %+v, %v", e, ok)
		}
		if c.Shadowed != nil || c.Problems != nil {
			t.Errorf("Shadowed = %v, Problems = %v, want nil", c.Shadowed, c.Problems)
		}
	})
	a := entry(catalog.User, paths[catalog.User], "a.json", "user.a", "A", workflow.KindWorkflow)
	b := entry(catalog.Project, paths[catalog.Project], "b.json", "project.b", "B", workflow.KindRoutine)
	c := catalog.New([]catalog.Entry{a, b}, nil)
	for _, tc := range []struct {
		id   string
		want catalog.Entry
		ok   bool
	}{
		{"user.a", a, true},
		{"project.b", b, true},
		{"user.b", catalog.Entry{}, false},
		{"a", catalog.Entry{}, false},
		{"", catalog.Entry{}, false},
	} {
		t.Run("Get "+tc.id, func(t *testing.T) {
			got, ok := c.Get(engine.WorkflowID(tc.id))
			if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Get(%q) = %+v, %v; want %+v, %v", tc.id, got, ok, tc.want, tc.ok)
			}
		})
	}
	t.Run("All and IDs return copies", func(t *testing.T) {
		all := c.All()
		all[0].File = "changed.json"
		ids := c.IDs()
		ids[0] = "changed"
		if got := c.All()[0].File; got != "b.json" {
			t.Errorf("All()[0].File after mutating an earlier result = %q", got)
		}
		if got := c.IDs(); !slices.Equal(got, []string{"project.b", "user.a"}) {
			t.Errorf("IDs after mutating an earlier result = %v", got)
		}
		if e, _ := c.Get("project.b"); e.File != "b.json" {
			t.Errorf("Get after mutating All = %q", e.File)
		}
	})
}

func TestNewPassesProblemsThrough(t *testing.T) {
	problems := []catalog.LoadProblem{
		{Source: src(catalog.User), File: "broken.json", Problems: workflow.Problems{{Line: 1, Column: 9, Message: "invalid JSON: unexpected end of JSON input"}}},
		{Source: src(catalog.Config), File: "evil.json", Problems: workflow.Problems{{Pointer: "/id", Line: 1, Column: 2, Message: "reserved"}}},
	}
	for _, tc := range []struct {
		name    string
		entries []catalog.Entry
	}{
		{"no entries", nil},
		{"with a collision", []catalog.Entry{
			entry(catalog.Project, paths[catalog.Project], "w.json", "team.w", "P", workflow.KindWorkflow),
			entry(catalog.User, paths[catalog.User], "w.json", "team.w", "U", workflow.KindWorkflow),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := catalog.New(tc.entries, slices.Clone(problems))
			if !reflect.DeepEqual(c.Problems, problems) {
				t.Errorf("Problems = %+v\nwant %+v", c.Problems, problems)
			}
		})
	}
}

// The JSON shapes are what the Console and MCP results show.
func TestJSONShapes(t *testing.T) {
	c := catalog.New([]catalog.Entry{
		entry(catalog.Project, paths[catalog.Project], "p.json", "team.w", "P", workflow.KindWorkflow),
		entry(catalog.Bundled, "", "b.json", "team.w", "B", workflow.KindWorkflow),
	}, nil)
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"shadow", c.Shadowed[0], `{"id":"team.w","winner":{"kind":"bundled"},"shadowed":{"kind":"project","path":"/ws/.workrail/workflows"},"shadowedFile":"p.json"}`},
		{"notice", catalog.Notice{Code: "LEGACY_WORKFLOW_ID", Message: "m", Suggest: "user.x"}, `{"code":"LEGACY_WORKFLOW_ID","message":"m","suggestedId":"user.x"}`},
		{"notice without suggestion", catalog.Notice{Code: "LEGACY_WORKFLOW_ID", Message: "m"}, `{"code":"LEGACY_WORKFLOW_ID","message":"m"}`},
		{"load problem", catalog.LoadProblem{Source: src(catalog.User), File: "x.json", Problems: workflow.Problems{{Pointer: "/id", Line: 2, Column: 3, Message: "m"}}},
			`{"source":{"kind":"user","path":"/home/u/.workrail/workflows"},"file":"x.json","problems":[{"pointer":"/id","line":2,"column":3,"message":"m"}]}`},
		{"load problem naming its id", catalog.LoadProblem{Source: src(catalog.User), File: "x.json", ID: "user.x", Problems: workflow.Problems{{Message: "m"}}},
			`{"source":{"kind":"user","path":"/home/u/.workrail/workflows"},"file":"x.json","id":"user.x","problems":[{"pointer":"","message":"m"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("JSON = %s\nwant   %s", b, tc.want)
			}
		})
	}
}

// With several ids shadowed, the set of shadow records does not depend on
// the order the entries are given in.
func TestNewShadowedSetIndependentOfOrder(t *testing.T) {
	in := []catalog.Entry{
		entry(catalog.User, paths[catalog.User], "x.json", "team.x", "X", workflow.KindWorkflow),
		entry(catalog.Project, paths[catalog.Project], "x.json", "team.x", "X", workflow.KindWorkflow),
		entry(catalog.Project, paths[catalog.Project], "y.json", "team.y", "Y", workflow.KindWorkflow),
		entry(catalog.Config, paths[catalog.Config], "y.json", "team.y", "Y", workflow.KindWorkflow),
	}
	want := []string{
		"team.x user<-project x.json",
		"team.y project<-config y.json",
	}
	for _, order := range permutations(in) {
		c := catalog.New(order, nil)
		var got []string
		for _, s := range c.Shadowed {
			got = append(got, fmt.Sprintf("%s %s<-%s %s", s.ID, s.Winner.Kind, s.Shadowed.Kind, s.File))
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("order %v: shadows %v, want %v", kinds(order), got, want)
		}
		if ids := c.IDs(); !slices.Equal(ids, []string{"team.x", "team.y"}) {
			t.Errorf("order %v: IDs %v", kinds(order), ids)
		}
	}
}
