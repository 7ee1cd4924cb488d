package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/workflow"
)

// leaves lists the dotted JSON names of t's non-struct fields.
func leaves(t reflect.Type, prefix string) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name := prefix + strings.Split(f.Tag.Get("json"), ",")[0]
		if f.Type.Kind() == reflect.Struct {
			out = append(out, leaves(f.Type, name+".")...)
			continue
		}
		out = append(out, name)
	}
	return out
}

// schemaLeaves lists the dotted names of the schema's non-object properties.
func schemaLeaves(props map[string]any, prefix string) []string {
	var out []string
	for name, p := range props {
		if name == "$schema" {
			continue
		}
		if sub, ok := p.(map[string]any)["properties"].(map[string]any); ok {
			out = append(out, schemaLeaves(sub, prefix+name+".")...)
			continue
		}
		out = append(out, prefix+name)
	}
	return out
}

func TestEveryKeyHasAClassAndASchema(t *testing.T) {
	var names []string
	for _, k := range Keys() {
		names = append(names, k.Name)
		if k.Class != RestartRequired && k.Class != RuntimeSafe {
			t.Errorf("%s: class %q is not in the closed set", k.Name, k.Class)
		}
		if (k.Class == RuntimeSafe) != (k.apply != nil) {
			t.Errorf("%s: a runtime-safe key, and only one, is applied live", k.Name)
		}
		if k.Why == "" {
			t.Errorf("%s: no why", k.Name)
		}
	}
	fields := leaves(reflect.TypeFor[Config](), "")
	slices.Sort(fields)
	sorted := slices.Sorted(slices.Values(names))
	if !slices.Equal(sorted, fields) {
		t.Errorf("keys %v\n  differ from Config's fields %v", sorted, fields)
	}
	var doc map[string]any
	if err := json.Unmarshal(Schema, &doc); err != nil {
		t.Fatal(err)
	}
	inSchema := schemaLeaves(doc["properties"].(map[string]any), "")
	slices.Sort(inSchema)
	if !slices.Equal(sorted, inSchema) {
		t.Errorf("keys %v\n  differ from the schema's %v", sorted, inSchema)
	}
}

// TestRuntimeSafeIsPresentationOrRetention holds the classification to
// seed §6: nothing but presentation and retention applies live.
func TestRuntimeSafeIsPresentationOrRetention(t *testing.T) {
	for _, k := range Keys() {
		safe := k.Name == "retentionDays" || strings.HasPrefix(k.Name, "console.")
		if safe != (k.Class == RuntimeSafe) {
			t.Errorf("%s is %s", k.Name, k.Class)
		}
	}
}

func TestSchemaEnumsAreTheEngines(t *testing.T) {
	var doc struct {
		Properties struct {
			DefaultMode        struct{ Enum []string }
			DefaultPreferences struct {
				Properties struct {
					Autonomy   struct{ Enum []string }
					RiskPolicy struct{ Enum []string }
				}
			}
		}
	}
	if err := json.Unmarshal(Schema, &doc); err != nil {
		t.Fatal(err)
	}
	str := func(xs any) []string {
		v := reflect.ValueOf(xs)
		out := make([]string, v.Len())
		for i := range out {
			out[i] = v.Index(i).String()
		}
		return out
	}
	p := doc.Properties
	for name, pair := range map[string][2][]string{
		"defaultMode": {p.DefaultMode.Enum, str(outcome.Modes())},
		"autonomy":    {p.DefaultPreferences.Properties.Autonomy.Enum, str(workflow.Autonomies())},
		"riskPolicy":  {p.DefaultPreferences.Properties.RiskPolicy.Enum, str(workflow.RiskPolicies())},
	} {
		if !slices.Equal(pair[0], pair[1]) {
			t.Errorf("%s: schema %v, engine %v", name, pair[0], pair[1])
		}
	}
}

func TestParse(t *testing.T) {
	withRetention := Defaults()
	withRetention.RetentionDays = 7
	startSession := Defaults()
	startSession.Features.StartSession = true
	paths := Defaults()
	paths.WorkflowPaths = []string{"/srv/flows"}
	never := Defaults()
	never.DefaultMode = outcome.ModeNeverStop
	repos := Defaults()
	repos.WorkflowRepos = []Repo{{URL: "https://tok3n@example.com/acme/flows.git", Ref: "release/2", Path: "workflows/team"}, {URL: "git@example.com:acme/more.git"}}
	repos.WorkflowReposSyncMinutes = 0
	cases := []struct {
		name, file string
		want       Config
		code       engine.Code
		pointer    string
		suggest    string
	}{
		{name: "empty file", file: "", want: Defaults()},
		{name: "empty object", file: "{}", want: Defaults()},
		{name: "editor schema key", file: `{"$schema": "./config.schema.json"}`, want: Defaults()},
		{name: "one key", file: `{"retentionDays": 7}`, want: withRetention},
		{name: "one flag keeps the others' defaults", file: `{"features": {"start_session": true}}`, want: startSession},
		{name: "paths", file: `{"workflowPaths": ["/srv/flows"]}`, want: paths},
		{name: "mode", file: `{"defaultMode": "wr.modes.full_auto_never_stop"}`, want: never},
		{name: "not JSON", file: `{"port": `, code: engine.CodeInvalidInput, pointer: ""},
		{name: "unknown key", file: `{"retentionDay": 7}`, code: engine.CodeUnknownKey, pointer: "/retentionDay", suggest: "retentionDays"},
		{name: "unknown nested key", file: `{"console": {"pagesize": 20}}`, code: engine.CodeUnknownKey, pointer: "/console/pagesize", suggest: "console.pageSize"},
		{name: "wrong type", file: `{"port": "7421"}`, code: engine.CodeInvalidInput, pointer: "/port"},
		{name: "out of range", file: `{"console": {"pollSeconds": 0}}`, code: engine.CodeInvalidInput, pointer: "/console/pollSeconds"},
		{name: "relative path", file: `{"workflowPaths": ["flows"]}`, code: engine.CodeInvalidInput, pointer: "/workflowPaths/0"},
		{name: "unknown mode", file: `{"defaultMode": "guided"}`, code: engine.CodeInvalidInput, pointer: "/defaultMode"},
		{name: "repos", want: repos, file: `{"workflowReposSyncMinutes": 0, "workflowRepos": [
			{"url": "https://tok3n@example.com/acme/flows.git", "ref": "release/2", "path": "workflows/team"},
			{"url": "git@example.com:acme/more.git"}]}`},
		{name: "repo without url", file: `{"workflowRepos": [{"ref": "main"}]}`, code: engine.CodeInvalidInput, pointer: "/workflowRepos/0"},
		{name: "repo url of no scheme", file: `{"workflowRepos": [{"url": "example.com/flows"}]}`, code: engine.CodeInvalidInput, pointer: "/workflowRepos/0/url"},
		{name: "repo over plain http", file: `{"workflowRepos": [{"url": "http://example.com/flows.git"}]}`, code: engine.CodeInvalidInput, pointer: "/workflowRepos/0/url"},
		{name: "repo ref climbing", file: `{"workflowRepos": [{"url": "https://example.com/f.git", "ref": "a/../b"}]}`, code: engine.CodeInvalidInput, pointer: "/workflowRepos/0/ref"},
		{name: "repo path climbing", file: `{"workflowRepos": [{"url": "https://example.com/f.git", "path": "flows/../../etc"}]}`, code: engine.CodeInvalidInput, pointer: "/workflowRepos/0/path"},
		{name: "repo path absolute", file: `{"workflowRepos": [{"url": "https://example.com/f.git", "path": "/etc"}]}`, code: engine.CodeInvalidInput, pointer: "/workflowRepos/0/path"},
		{name: "repo key unknown", file: `{"workflowRepos": [{"url": "https://example.com/f.git", "branch": "main"}]}`, code: engine.CodeUnknownKey, pointer: "/workflowRepos/0/branch"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, e := Parse([]byte(c.file))
			if c.code != "" {
				if e == nil {
					t.Fatalf("accepted %s", c.file)
				}
				if e.Code != c.code || e.Details["pointer"] != c.pointer {
					t.Errorf("got %s at %v, want %s at %q: %s", e.Code, e.Details["pointer"], c.code, c.pointer, e.Message)
				}
				if c.suggest != "" && (len(e.Suggestions) != 1 || e.Suggestions[0].DidYouMean != c.suggest) {
					t.Errorf("suggestions %+v, want %s", e.Suggestions, c.suggest)
				}
				return
			}
			if e != nil {
				t.Fatal(e)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestHash(t *testing.T) {
	a, _ := Parse([]byte(`{"retentionDays": 7, "port": 9000}`))
	b, _ := Parse([]byte("{\n  \"port\": 9000,\n  \"retentionDays\": 7\n}\n"))
	if a.Hash() != b.Hash() {
		t.Errorf("the same meaning hashes differently: %s vs %s", a.Hash(), b.Hash())
	}
	if a.Hash() == Defaults().Hash() {
		t.Error("a change does not change the hash")
	}
	// The defaults' hash is pinned: a new key, or a new default, changes it
	// on purpose.
	const want = "sha256:e4e0af17d517cbd7a688866978470635df257923147855df08f9efc40322a416"
	if got := Defaults().Hash(); got != want {
		t.Errorf("Defaults().Hash() = %s, want %s", got, want)
	}
}

func TestCompare(t *testing.T) {
	desired, _ := Parse([]byte(`{"retentionDays": 7, "features": {"start_session": true}}`))
	entries := Compare(desired, Defaults())
	var differ []string
	for _, e := range entries {
		if e.Differs {
			differ = append(differ, e.Key+"="+e.Desired+"<"+e.Applied)
		}
	}
	if want := []string{"features.start_session=true<false", "retentionDays=7<60"}; !slices.Equal(differ, want) {
		t.Errorf("differences %v, want %v", differ, want)
	}
	if got := PendingRestart(entries); !slices.Equal(got, []string{"features.start_session"}) {
		t.Errorf("pending %v", got)
	}
	applied := ApplyRuntimeSafe(Defaults(), desired)
	if applied.RetentionDays != 7 || applied.Features.StartSession {
		t.Errorf("applied live: %+v", applied)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestLive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	var heard []int
	l := NewLive(path, Defaults())
	l.OnApply(func(c Config) { heard = append(heard, c.Console.PageSize) })
	s := l.Snapshot()
	if s.RestartNeeded() || s.DesiredErr != nil || s.AppliedHash != Defaults().Hash() {
		t.Fatalf("no file: %+v", s)
	}
	gen := s.Generation

	write(t, path, `{"console": {"pageSize": 20}}`)
	s = l.Snapshot()
	if s.Applied.Console.PageSize != 20 || s.RestartNeeded() || !slices.Equal(heard, []int{20}) {
		t.Errorf("a runtime-safe change is not applied live: %+v, heard %v", s.Applied, heard)
	}
	if s.Generation == gen || s.AppliedHash == Defaults().Hash() {
		t.Errorf("generation %d (was %d), hash %s", s.Generation, gen, s.AppliedHash)
	}
	gen = s.Generation
	if s = l.Snapshot(); s.Generation != gen || len(heard) != 1 {
		t.Errorf("an unchanged file moved the generation or applied again: %d, %v", s.Generation, heard)
	}

	write(t, path, `{"console": {"pageSize": 20}, "workflowPaths": ["/srv/flows"]}`)
	s = l.Snapshot()
	if !slices.Equal(s.Pending, []string{"workflowPaths"}) || len(s.Applied.WorkflowPaths) != 0 {
		t.Errorf("a restart-required change: pending %v, applied %v", s.Pending, s.Applied.WorkflowPaths)
	}

	write(t, path, `{"console": {"pageSize": "big"}}`)
	s = l.Snapshot()
	if s.DesiredErr == nil || s.DesiredErr.Details["pointer"] != "/console/pageSize" {
		t.Fatalf("an invalid file: %+v", s.DesiredErr)
	}
	if s.Applied.Console.PageSize != 20 || s.RestartNeeded() {
		t.Errorf("an invalid file changed what is applied or asks for a restart: %+v %v", s.Applied, s.Pending)
	}

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	s = l.Snapshot()
	if s.DesiredErr != nil || s.Applied.Console.PageSize != 50 {
		t.Errorf("a removed file is the defaults: %+v %+v", s.DesiredErr, s.Applied.Console)
	}
}

func TestSetAndUnset(t *testing.T) {
	cases := []struct {
		name, file, key, value string
		unset                  bool
		want                   string // the file after, or the error code
	}{
		{name: "number into no file", file: "", key: "retentionDays", value: "30", want: "{\n  \"retentionDays\": 30\n}\n"},
		{name: "bare string", file: "{}", key: "defaultMode", value: "wr.modes.full_auto_never_stop",
			want: "{\n  \"defaultMode\": \"wr.modes.full_auto_never_stop\"\n}\n"},
		{name: "nested keeps siblings", file: `{"console": {"pollSeconds": 5}}`, key: "console.pageSize", value: "20",
			want: "{\n  \"console\": {\n    \"pageSize\": 20,\n    \"pollSeconds\": 5\n  }\n}\n"},
		{name: "array", file: `{}`, key: "workflowPaths", value: `["/a", "/b"]`, want: "{\n  \"workflowPaths\": [\n    \"/a\",\n    \"/b\"\n  ]\n}\n"},
		{name: "unset drops an emptied object", file: `{"console": {"pageSize": 20}, "port": 9000}`, key: "console.pageSize", unset: true,
			want: "{\n  \"port\": 9000\n}\n"},
		{name: "invalid value", file: `{"port": 9000}`, key: "port", value: "70000", want: string(engine.CodeInvalidInput)},
		{name: "unknown key", file: `{}`, key: "retention", value: "3", want: string(engine.CodeUnknownKey)},
		{name: "broken file", file: `{"port": `, key: "port", value: "1", want: string(engine.CodeInvalidInput)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out []byte
			var e *engine.Error
			if c.unset {
				out, _, e = Unset([]byte(c.file), c.key)
			} else {
				out, _, e = Set([]byte(c.file), c.key, c.value)
			}
			got := string(out)
			if e != nil {
				got = string(e.Code)
			}
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func BenchmarkHashAndCompare(b *testing.B) {
	desired, _ := Parse([]byte(`{"retentionDays": 7, "workflowPaths": ["/a", "/b"], "console": {"pageSize": 20}}`))
	applied := Defaults()
	for b.Loop() {
		_ = applied.Hash()
		_ = PendingRestart(Compare(desired, applied))
	}
}

// The applied port is the one in use: it moves the hash, and is pending
// a restart only when config.json chose it (a restart reads it again),
// not when the command line or the environment did (a restart keeps it).
func TestListening(t *testing.T) {
	for _, tc := range []struct {
		kept    bool
		pending []string
	}{{false, []string{"port"}}, {true, nil}} {
		l := NewLive(filepath.Join(t.TempDir(), "config.json"), Defaults())
		hash := l.Listening(54321, tc.kept)
		s := l.Snapshot()
		if s.Applied.Port != 54321 || hash != s.AppliedHash || hash == Defaults().Hash() {
			t.Errorf("kept %v: applied port %d, hash %s (snapshot %s)", tc.kept, s.Applied.Port, hash, s.AppliedHash)
		}
		if !slices.Equal(s.Pending, tc.pending) {
			t.Errorf("kept %v: pending %v, want %v", tc.kept, s.Pending, tc.pending)
		}
	}
}

// A repository address's token is never shown (`workrail config`, the
// Console's settings), yet a change of token alone is a change that
// waits for a restart.
func TestRepoCredentialsNeverShown(t *testing.T) {
	before, _ := Parse([]byte(`{"workflowRepos": [{"url": "https://x-access-token:tok3n-one@example.com/f.git"}]}`))
	after, _ := Parse([]byte(`{"workflowRepos": [{"url": "https://x-access-token:tok3n-two@example.com/f.git"}]}`))
	entries := Compare(after, before)
	for _, e := range entries {
		if strings.Contains(e.Desired+e.Applied, "tok3n") || strings.Contains(e.Desired+e.Applied, "x-access-token") {
			t.Errorf("%s shows a credential: %s / %s", e.Key, e.Desired, e.Applied)
		}
		if e.Key == "workflowRepos" && (!e.Differs || e.Desired != `[{"url":"https://example.com/f.git"}]`) {
			t.Errorf("workflowRepos: %+v", e)
		}
	}
	if got := PendingRestart(entries); !slices.Equal(got, []string{"workflowRepos"}) {
		t.Errorf("pending %v", got)
	}
	if _, e := Parse([]byte(`{"workflowRepos": [{"url": "http://tok3n@example.com/f.git"}]}`)); e == nil || strings.Contains(e.Message, "tok3n") {
		t.Errorf("a refused address: %v", e)
	}
}
