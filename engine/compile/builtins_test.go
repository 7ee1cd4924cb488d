package compile_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/workflow"
)

// registries lists, by kind, every name the reader and the compiler know.
func registries() map[compile.BuiltinKind][]string {
	out := map[compile.BuiltinKind][]string{compile.BuiltinTemplate: workflow.Templates()}
	for _, f := range workflow.Features() {
		out[compile.BuiltinFeature] = append(out[compile.BuiltinFeature], string(f))
	}
	for _, c := range workflow.Contracts() {
		out[compile.BuiltinContract] = append(out[compile.BuiltinContract], string(c))
	}
	for _, c := range workflow.Capabilities() {
		out[compile.BuiltinCapability] = append(out[compile.BuiltinCapability], string(c))
	}
	for _, op := range workflow.Operators() {
		out[compile.BuiltinOperator] = append(out[compile.BuiltinOperator], string(op))
	}
	for _, k := range workflow.LoopKinds() {
		out[compile.BuiltinLoop] = append(out[compile.BuiltinLoop], string(k))
	}
	out[compile.BuiltinLoopVar] = workflow.LoopVariables()
	for _, c := range workflow.CriterionTypes() {
		out[compile.BuiltinCriterion] = append(out[compile.BuiltinCriterion], string(c))
	}
	for _, e := range workflow.EffectKinds() {
		out[compile.BuiltinEffect] = append(out[compile.BuiltinEffect], string(e))
	}
	for _, r := range workflow.UserDependencyReasons() {
		out[compile.BuiltinUserDep] = append(out[compile.BuiltinUserDep], string(r))
	}
	for _, m := range workflow.MetricsProfiles() {
		out[compile.BuiltinMetrics] = append(out[compile.BuiltinMetrics], string(m))
	}
	for _, n := range workflow.NotesPolicies() {
		out[compile.BuiltinNotes] = append(out[compile.BuiltinNotes], string(n))
	}
	return out
}

// TestEveryRegistryEntryIsABuiltin: each name of each registry has
// exactly one builtin, with words and a snippet, and nothing else is one.
func TestEveryRegistryEntryIsABuiltin(t *testing.T) {
	got := map[compile.BuiltinKind][]string{}
	for _, b := range compile.Builtins() {
		if !slices.Contains(compile.BuiltinKinds(), b.Kind) {
			t.Errorf("%s has kind %q, outside the closed set", b.Name, b.Kind)
		}
		if strings.TrimSpace(b.Description) == "" || strings.TrimSpace(b.Snippet) == "" || b.Where == "" {
			t.Errorf("%s %s lacks its description, place or snippet: %+v", b.Kind, b.Name, b)
		}
		got[b.Kind] = append(got[b.Kind], b.Name)
	}
	for kind, names := range registries() {
		if !slices.Equal(got[kind], names) {
			t.Errorf("%s builtins = %v; the registry has %v", kind, got[kind], names)
		}
	}
}

// host is a workflow with room for one snippet of each kind, declaring
// the context variables the operator snippets read.
func host(kind compile.BuiltinKind, snippet string) string {
	top, steps := "", `{"id":"a","title":"A","prompt":"Do a."}`
	switch kind {
	case compile.BuiltinFeature:
		top = `"features": [` + snippet + `],`
	case compile.BuiltinCapability, compile.BuiltinMetrics, compile.BuiltinNotes:
		top = snippet + ","
	case compile.BuiltinTemplate, compile.BuiltinLoop, compile.BuiltinLoopVar:
		steps += "," + snippet
	case compile.BuiltinContract, compile.BuiltinCriterion, compile.BuiltinUserDep:
		steps = `{"id":"a","title":"A","prompt":"Do a.",` + snippet + `}`
	case compile.BuiltinEffect:
		top = `"assessments":[{"id":"readiness","purpose":"Ready?","dimensions":[{"id":"clarity","purpose":"Clear?","levels":["low","high"]}]}],`
		steps = `{"id":"a","title":"A","prompt":"Do a.","assessmentRefs":["readiness"],` + snippet + `}`
	case compile.BuiltinOperator:
		steps = `{"id":"a","title":"A","prompt":"Do a.","runCondition":` + snippet + `}`
	}
	return `{"id":"user.host","name":"Host","description":"Hosts a snippet.","version":"1",` + top + `
  "context":[{"name":"depth","type":"string","description":"how deep"},{"name":"count","type":"number","description":"how many"},
    {"name":"files","type":"array","description":"which files"}],
  "steps":[` + steps + `]}`
}

// TestBuiltinSnippetsCompile: every snippet, put where its builtin says,
// makes a workflow that compiles and uses that very name.
func TestBuiltinSnippetsCompile(t *testing.T) {
	for _, b := range compile.Builtins() {
		t.Run(string(b.Kind)+"/"+b.Name, func(t *testing.T) {
			c := mustCompile(t, host(b.Kind, b.Snippet))
			var used bool
			switch b.Kind {
			case compile.BuiltinFeature:
				used = slices.Contains(c.AppliedFeatures, workflow.FeatureID(b.Name))
			case compile.BuiltinTemplate:
				used = c.Steps[1].Step.Provenance == compile.Provenance{Origin: compile.FromTemplate, By: b.Name}
			case compile.BuiltinContract:
				_, used = c.Contracts[workflow.ContractRef(b.Name)]
			case compile.BuiltinCapability:
				_, used = c.Capabilities[workflow.Capability(b.Name)]
			case compile.BuiltinOperator:
				used = c.Steps[0].Step.RunCondition.Op() == workflow.Operator(b.Name)
			case compile.BuiltinLoop:
				used = c.Steps[1].Loop.Spec.Kind == workflow.LoopKind(b.Name)
			case compile.BuiltinLoopVar:
				spec, _ := json.Marshal(c.Steps[1].Loop.Spec)
				used = strings.Contains(string(spec), `"`+b.Name+`":`)
			case compile.BuiltinCriterion:
				cr := c.Steps[0].Step.Criteria
				used = len(cr) == 1 && cr[0].Type == workflow.CriterionType(b.Name)
			case compile.BuiltinEffect:
				cs := c.Steps[0].Step.Consequences
				used = len(cs) == 1 && cs[0].Effect.Kind == workflow.EffectKind(b.Name)
			case compile.BuiltinUserDep:
				u := c.Steps[0].Step.UserDependency
				used = u != nil && u.Reason == workflow.UserDependencyReason(b.Name)
			case compile.BuiltinMetrics:
				used = c.MetricsProfile == workflow.MetricsProfile(b.Name)
			case compile.BuiltinNotes:
				used = c.Notes == workflow.NotesPolicy(b.Name)
			}
			if !used {
				t.Errorf("the snippet compiles but does not use %s:\n%s", b.Name, b.Snippet)
			}
		})
	}
}

// TestBuiltinSchemasAndOrigins: every schema a builtin carries is a JSON
// Schema that compiles, and what its snippet writes validates against
// it; every builtin names who defines it, and WorkRail's name the Go file
// that holds the name.
func TestBuiltinSchemasAndOrigins(t *testing.T) {
	for _, b := range compile.Builtins() {
		t.Run(string(b.Kind)+"/"+b.Name, func(t *testing.T) {
			if b.Origin.By != compile.ByWorkRail {
				t.Fatalf("origin %+v; want WorkRail", b.Origin)
			}
			src, err := os.ReadFile(filepath.Join("..", "..", b.Origin.File))
			if err != nil || !bytes.Contains(src, []byte(`"`+b.Name+`"`)) {
				t.Errorf("%s does not hold %q (%v)", b.Origin.File, b.Name, err)
			}
			if b.Schema == nil {
				if b.Kind != compile.BuiltinFeature && b.Kind != compile.BuiltinMetrics && b.Kind != compile.BuiltinNotes {
					t.Errorf("%s %s takes something, but has no schema", b.Kind, b.Name)
				}
				return
			}
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b.Schema))
			if err != nil {
				t.Fatal(err)
			}
			c := jsonschema.NewCompiler()
			if err := c.AddResource("b.json", doc); err != nil {
				t.Fatal(err)
			}
			s, err := c.Compile("b.json")
			if err != nil {
				t.Fatalf("schema does not compile: %v\n%s", err, b.Schema)
			}
			if v, ok := written(t, b); ok {
				if err := s.Validate(v); err != nil {
					t.Errorf("the snippet's value does not match the schema: %v\n%s\n%s", err, b.Snippet, b.Schema)
				}
			}
		})
	}
}

// written is the part of b's snippet its schema describes.
func written(t *testing.T, b compile.Builtin) (any, bool) {
	t.Helper()
	var m map[string]any
	dec := func(s string) {
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatalf("snippet is not JSON: %v\n%s", err, s)
		}
	}
	switch b.Kind {
	case compile.BuiltinTemplate:
		dec(b.Snippet)
		return m["template"].(map[string]any)["args"], true
	case compile.BuiltinOperator:
		dec(b.Snippet)
		return m[b.Name], true
	case compile.BuiltinLoop:
		dec(b.Snippet)
		return m["loop"], true
	case compile.BuiltinLoopVar:
		dec(b.Snippet)
		return m["loop"].(map[string]any)[b.Name], true
	case compile.BuiltinCapability:
		dec("{" + b.Snippet + "}")
		return m["capabilities"].(map[string]any)[b.Name], true
	case compile.BuiltinCriterion:
		dec("{" + b.Snippet + "}")
		return m["validationCriteria"].([]any)[0], true
	case compile.BuiltinEffect:
		dec("{" + b.Snippet + "}")
		return m["assessmentConsequences"].([]any)[0].(map[string]any)["effect"], true
	case compile.BuiltinUserDep:
		dec("{" + b.Snippet + "}")
		return m["userDependency"], true
	case compile.BuiltinContract:
		p, _ := compile.Pack(workflow.ContractRef(b.Name))
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(p.Example))
		if err != nil {
			t.Fatal(err)
		}
		return v, true
	}
	return nil, false
}
