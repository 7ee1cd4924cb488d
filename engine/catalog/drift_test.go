package catalog_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/golden"
)

// greet is a version of user.greet: each version compiles to its own hash.
func greet(version string) []byte {
	return []byte(`{"id":"user.greet","name":"Greet","description":"Say hello.","version":"` + version +
		`","steps":[{"id":"hello","title":"Hello","prompt":"Say hello, version ` + version + `."}]}`)
}

// hashOf is the compiled hash of a workflow file.
func hashOf(tb testing.TB, b []byte) engine.WorkflowHash {
	tb.Helper()
	return MustLoad(tb, b, catalog.Source{Kind: catalog.User}, "x.json").Compiled.Hash
}

var (
	userDir    = catalog.Source{Kind: catalog.User, Path: "/home/u/.local/share/workrail/workflows"}
	projectDir = catalog.Source{Kind: catalog.Project, Path: "/ws/.workrail/workflows"}
	configDir  = catalog.Source{Kind: catalog.Config, Path: "/team/workflows"}
)

// folders builds the catalog of a user, a project and a config folder,
// each given as file name → content (nil for an empty folder), loaded the
// way the daemon loads them.
func folders(user, project, config map[string][]byte) *catalog.Catalog {
	var entries []catalog.Entry
	var problems []catalog.LoadProblem
	for _, f := range []struct {
		src   catalog.Source
		files map[string][]byte
	}{{userDir, user}, {projectDir, project}, {configDir, config}} {
		fsys := fstest.MapFS{}
		for name, b := range f.files {
			fsys[name] = &fstest.MapFile{Data: b}
		}
		e, p := catalog.LoadFS(fsys, f.src)
		entries, problems = append(entries, e...), append(problems, p...)
	}
	return catalog.New(entries, problems)
}

// files is a folder's content in a table row.
type files = map[string][]byte

// A run pinned to user.greet version 1, against what the folders hold
// now. The pinned hash is always v1's.
func TestDrift(t *testing.T) {
	v1, v2 := greet("1"), greet("2")
	broken := []byte(`{"id":"user.greet","name":"Greet",` + "\n" + `"steps": [`)
	for _, tc := range []struct {
		name                   string
		user, project, config  files
		want                   catalog.DriftKind // "" for no drift
		current, pinnedAt      string            // kind:file of Drift.Current, Drift.PinnedAt
		currentHashIsV2, isBad bool
	}{
		{name: "unchanged", user: files{"greet.json": v1}},
		{name: "unchanged, file renamed", user: files{"hello.json": v1}},
		{name: "unchanged, moved to another source", project: files{"greet.json": v1}},
		{name: "unchanged while a file of higher precedence naming it is broken",
			user: files{"greet.json": broken}, project: files{"greet.json": v1}},
		{name: "unchanged while it shadows a different version", user: files{"greet.json": v1}, project: files{"greet.json": v2}},
		{name: "edited", user: files{"greet.json": v2},
			want: catalog.DriftEdited, current: "user:greet.json", currentHashIsV2: true},
		{name: "edited, another source's version took over after the pinned file was deleted", project: files{"greet.json": v2},
			want: catalog.DriftEdited, current: "project:greet.json", currentHashIsV2: true},
		{name: "edited, while a broken file of higher precedence names it",
			user: files{"greet.json": broken}, project: files{"greet.json": v2},
			want: catalog.DriftEdited, current: "project:greet.json", currentHashIsV2: true},
		{name: "shadowed: a user version now wins over the pinned project one",
			user: files{"greet.json": v2}, project: files{"greet.json": v1},
			want: catalog.DriftShadowed, current: "user:greet.json", pinnedAt: "project:greet.json", currentHashIsV2: true},
		{name: "shadowed: a project version now wins over the pinned config one",
			project: files{"greet.json": v2}, config: files{"greet.json": v1},
			want: catalog.DriftShadowed, current: "project:greet.json", pinnedAt: "config:greet.json", currentHashIsV2: true},
		{name: "shadowed: the pinned version is kept twice, the higher one is named",
			user: files{"greet.json": v2}, project: files{"greet.json": v1}, config: files{"greet.json": v1},
			want: catalog.DriftShadowed, current: "user:greet.json", pinnedAt: "project:greet.json", currentHashIsV2: true},
		{name: "removed", user: files{"other.json": greetAs("user.other")},
			want: catalog.DriftRemoved},
		{name: "removed: empty folders", want: catalog.DriftRemoved},
		{name: "removed: a broken file whose id cannot be read", user: files{"greet.json": []byte(`{`)},
			want: catalog.DriftRemoved},
		{name: "removed: a broken file naming another id", user: files{"other.json": []byte(`{"id":"user.other","steps":[]}`)},
			want: catalog.DriftRemoved},
		{name: "unloadable: syntax error after the id", user: files{"greet.json": broken},
			want: catalog.DriftUnloadable, current: "user:greet.json", isBad: true},
		{name: "unloadable: fails validation", project: files{"greet.json": []byte(`{"id":"user.greet","name":"Greet","steps":[]}`)},
			want: catalog.DriftUnloadable, current: "project:greet.json", isBad: true},
		{name: "unloadable: the broken file of highest precedence is named",
			project: files{"greet.json": broken}, user: files{"a.json": []byte(`{"id":"user.greet"}`)}, config: files{"greet.json": broken},
			want: catalog.DriftUnloadable, current: "user:a.json", isBad: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := folders(tc.user, tc.project, tc.config)
			pinned := hashOf(t, v1)
			d, drifted := c.Drift("user.greet", pinned)
			if tc.want == "" {
				if drifted {
					t.Fatalf("Drift = %+v; want none", d)
				}
				if !reflect.DeepEqual(d, catalog.Drift{}) {
					t.Errorf("no drift, yet Drift = %+v", d)
				}
				return
			}
			if !drifted || d.Kind != tc.want {
				t.Fatalf("Drift = %+v, %v; want kind %s", d, drifted, tc.want)
			}
			if d.WorkflowID != "user.greet" || d.PinnedHash != pinned {
				t.Errorf("id %s, pinned %s", d.WorkflowID, d.PinnedHash)
			}
			if got := place(d.Current); got != tc.current {
				t.Errorf("Current = %s; want %s", got, tc.current)
			}
			if got := place(d.PinnedAt); got != tc.pinnedAt {
				t.Errorf("PinnedAt = %s; want %s", got, tc.pinnedAt)
			}
			wantHash, wantVersion := engine.WorkflowHash{}, ""
			if tc.currentHashIsV2 {
				wantHash, wantVersion = hashOf(t, v2), "2"
			}
			if d.CurrentHash != wantHash || d.CurrentVersion != wantVersion {
				t.Errorf("current %s version %q; want %s %q", d.CurrentHash, d.CurrentVersion, wantHash, wantVersion)
			}
			if (len(d.Problems) > 0) != tc.isBad {
				t.Errorf("Problems = %v", d.Problems)
			}
		})
	}
}

// greetAs is greet version 1 under another id.
func greetAs(id string) []byte {
	return bytes.Replace(greet("1"), []byte(`"user.greet"`), []byte(`"`+id+`"`), 1)
}

func place(p catalog.Place) string {
	if p == (catalog.Place{}) {
		return ""
	}
	return string(p.Source.Kind) + ":" + p.File
}

// Which definition wins, and so which kind is reported, does not depend
// on the order the entries reach New.
func TestDriftIndependentOfOrder(t *testing.T) {
	v1, v2 := greet("1"), greet("2")
	entries := []catalog.Entry{
		MustLoad(t, v2, userDir, "greet.json"),
		MustLoad(t, v1, projectDir, "greet.json"),
		MustLoad(t, v1, configDir, "greet.json"),
		MustLoad(t, v2, configDir, "other.json"),
	}
	for _, order := range permutations(entries) {
		d, ok := catalog.New(order, nil).Drift("user.greet", hashOf(t, v1))
		if !ok || d.Kind != catalog.DriftShadowed || place(d.Current) != "user:greet.json" || place(d.PinnedAt) != "project:greet.json" {
			t.Errorf("order %v: Drift = %+v, %v", kinds(order), d, ok)
		}
	}
}

func TestDriftKindsClosed(t *testing.T) {
	want := []catalog.DriftKind{"edited", "shadowed", "removed", "unloadable"}
	if got := catalog.DriftKinds(); !slices.Equal(got, want) {
		t.Errorf("DriftKinds = %v; want %v", got, want)
	}
}

// IDOf reads the id a file names as far as the file allows.
func TestIDOf(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"id":"user.a","steps":[]}`, "user.a"},
		{`{"name":"x","meta":{"id":"no.nested"},"list":[{"id":"no.inlist"}],"id":"user.a"}`, "user.a"},
		{`{"id":"user.a",`, "user.a"},
		{`{"name":"x", "id":"user.a" "steps"`, "user.a"},
		{`{"name":"x",,"id":"user.a"}`, ""},
		{`{"id":7}`, ""},
		{`{"id":null}`, ""},
		{`["id","user.a"]`, ""},
		{`"user.a"`, ""},
		{``, ""},
		{`{`, ""},
		{`{"steps":[`, ""},
		{"\xef\xbb\xbf{\"id\":\"user.a\"}", ""},
	} {
		if got := catalog.IDOf([]byte(tc.in)); string(got) != tc.want {
			t.Errorf("IDOf(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

// The JSON of every kind of drift, with the two versions' hashes named,
// is what the Console and tests read: testdata/drift.golden.json.
func TestDriftJSONGolden(t *testing.T) {
	v1, v2 := greet("1"), greet("2")
	broken := []byte(`{"id":"user.greet",` + "\n" + `"steps": [`)
	cases := []struct {
		name                  string
		user, project, config files
	}{
		{"edited", files{"greet.json": v2}, nil, nil},
		{"shadowed", files{"greet.json": v2}, files{"greet.json": v1}, nil},
		{"removed", nil, nil, nil},
		{"unloadable", nil, files{"greet.json": broken}, nil},
	}
	var out bytes.Buffer
	for _, tc := range cases {
		d, ok := folders(tc.user, tc.project, tc.config).Drift("user.greet", hashOf(t, v1))
		if !ok || string(d.Kind) != tc.name {
			t.Fatalf("%s: Drift = %+v, %v", tc.name, d, ok)
		}
		b, err := json.MarshalIndent(d, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		s := strings.NewReplacer(hashOf(t, v1).String(), "<hash of v1>", hashOf(t, v2).String(), "<hash of v2>").Replace(string(b))
		out.WriteString("// " + tc.name + "\n" + s + "\n")
	}
	golden.Check(t, filepath.Join("testdata", "drift.golden.json"), out.Bytes())
}

// A pinned version is found again where a source still defines it,
// winning or shadowed, and nowhere else: salvage rebuilds a lost pin
// from it.
func TestDefinitionFindsThePinnedVersion(t *testing.T) {
	c := folders(files{"g.json": greet("2")}, files{"g.json": greet("1")}, nil)
	for _, tc := range []struct {
		version string
		found   bool
		src     catalog.SourceKind
	}{{"2", true, catalog.User}, {"1", true, catalog.Project}, {"3", false, ""}} {
		e, ok := c.Definition("user.greet", hashOf(t, greet(tc.version)))
		if ok != tc.found || e.Source.Kind != tc.src || (ok && e.Compiled.Hash != hashOf(t, greet(tc.version))) {
			t.Errorf("version %s: found %v in %q; want %v in %q", tc.version, ok, e.Source.Kind, tc.found, tc.src)
		}
	}
	if _, ok := c.Definition("user.other", hashOf(t, greet("2"))); ok {
		t.Error("another id's definition was found by the hash alone")
	}
}
