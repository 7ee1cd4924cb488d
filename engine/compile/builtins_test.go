package compile_test

import (
	"slices"
	"strings"
	"testing"

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
	case compile.BuiltinCapability:
		top = snippet + ","
	case compile.BuiltinTemplate:
		steps += "," + snippet
	case compile.BuiltinContract:
		steps = `{"id":"a","title":"A","prompt":"Do a.",` + snippet + `}`
	case compile.BuiltinOperator:
		steps = `{"id":"a","title":"A","prompt":"Do a.","runCondition":` + snippet + `}`
	}
	return `{"id":"user.host","name":"Host","description":"Hosts a snippet.","version":"1",` + top + `
  "context":[{"name":"depth","type":"string","description":"how deep"},{"name":"count","type":"number","description":"how many"}],
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
			}
			if !used {
				t.Errorf("the snippet compiles but does not use %s:\n%s", b.Name, b.Snippet)
			}
		})
	}
}
