package workflows_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/workflows"
)

// TestBundledWorkflows checks that every bundled file parses, compiles,
// follows the schema and compiles to the same hash every time.
func TestBundledWorkflows(t *testing.T) {
	for _, f := range bundledFiles(t) {
		t.Run(f.name, func(t *testing.T) {
			w, c := mustCompile(t, f.name, f.src)
			if !strings.HasPrefix(string(w.ID), "wr.") {
				t.Errorf("id %q is not in the wr namespace", w.ID)
			}
			if want := string(w.ID) + ".json"; f.name != want {
				t.Errorf("file is named %s; want %s", f.name, want)
			}
			if err := validate(t, f.src); err != nil {
				t.Errorf("schema: %v", err)
			}
			_, again := mustCompile(t, f.name, f.src)
			if c.Hash != again.Hash || !bytes.Equal(c.Canonical, again.Canonical) {
				t.Errorf("compiling twice gave %s and %s", c.Hash, again.Hash)
			}
		})
	}
}

// TestBundledConventions holds the bundled workflows to the house rules:
// schema reference, a role, structured prompts only, inputs that something
// reads, and the shape every shipped workflow needs.
func TestBundledConventions(t *testing.T) {
	for _, f := range bundledFiles(t) {
		t.Run(f.name, func(t *testing.T) {
			w, c := mustCompile(t, f.name, f.src)
			if w.Schema != "./schema/workflow.schema.json" {
				t.Errorf("$schema = %q; want ./schema/workflow.schema.json", w.Schema)
			}
			if strings.TrimSpace(w.AgentRole) == "" {
				t.Error("no agentRole")
			}
			read := map[string]bool{}
			var steps, conditioned, userDeps int
			var walkNodes func([]workflow.Node)
			walkNodes = func(list []workflow.Node) {
				for _, n := range list {
					if l := n.Loop; l != nil {
						if l.Loop.Condition != nil {
							for _, v := range l.Loop.Condition.Vars() {
								read[v] = true
							}
						}
						read[l.Loop.Over] = true
						walkNodes(l.Body)
						continue
					}
					s := n.Step
					steps++
					if s.Prompt != "" {
						t.Errorf("step %s uses a plain prompt; bundled workflows use promptBlocks or a template", s.ID)
					}
					if s.RunCondition != nil {
						conditioned++
						for _, v := range s.RunCondition.Vars() {
							read[v] = true
						}
					}
					if s.UserDependency != nil {
						userDeps++
					}
				}
			}
			walkNodes(w.Steps)
			for _, in := range w.Context {
				if !read[in.Name] {
					t.Errorf("context input %q is declared but no condition or loop reads it", in.Name)
				}
			}
			if w.ID == "wr.session" {
				return // start_session's one notes step: nothing to branch on
			}
			if conditioned == 0 {
				t.Error("no step has a runCondition")
			}
			if w.ID == "wr.hello" {
				return // the tour stays three steps long
			}
			if steps < 5 || steps > 12 {
				t.Errorf("%d authored steps; want 5-12", steps)
			}
			if userDeps == 0 {
				t.Error("no step declares a userDependency")
			}
			// A required capability is probed exactly once.
			for capName, need := range w.Capabilities {
				if need != workflow.Required {
					continue
				}
				probes := 0
				compile.Walk(c.Steps, func(n compile.Node) {
					if n.Step != nil && n.Step.Output != nil && n.Step.Output.ContractRef == workflow.ContractCapabilityObservation &&
						strings.Contains(n.Step.Prompt, string(capName)) {
						probes++
					}
				})
				if probes != 1 {
					t.Errorf("required capability %s is probed %d times; want 1", capName, probes)
				}
			}
		})
	}
}

// TestBundledSetCoverage checks that the bundled set, taken together, uses
// every loop kind, the main contract packs, and every feature.
func TestBundledSetCoverage(t *testing.T) {
	kinds := map[workflow.LoopKind]bool{}
	contracts := map[workflow.ContractRef]bool{}
	features := map[workflow.FeatureID]bool{}
	templates := map[string]bool{}
	for _, f := range bundledFiles(t) {
		w, _ := mustCompile(t, f.name, f.src)
		for _, x := range w.Features {
			features[x] = true
		}
		var walkNodes func([]workflow.Node)
		walkNodes = func(list []workflow.Node) {
			for _, n := range list {
				if n.Loop != nil {
					kinds[n.Loop.Loop.Kind] = true
					walkNodes(n.Loop.Body)
					continue
				}
				if n.Step.Output != nil {
					contracts[n.Step.Output.ContractRef] = true
				}
				if n.Step.Template != nil {
					templates[n.Step.Template.ID] = true
				}
			}
		}
		walkNodes(w.Steps)
	}
	for _, k := range []workflow.LoopKind{workflow.While, workflow.Until, workflow.For, workflow.ForEach} {
		if !kinds[k] {
			t.Errorf("no bundled workflow has a %s loop", k)
		}
	}
	for _, c := range []workflow.ContractRef{workflow.ContractGaps, workflow.ContractLoopControl} {
		if !contracts[c] {
			t.Errorf("no bundled step uses contract %s", c)
		}
	}
	// The TypeScript format's features are there for files in that
	// format; the bundled set shows WorkRail's own.
	tsOnly := map[workflow.FeatureID]bool{workflow.FeatureMemoryContext: true, workflow.FeatureCapabilities: true, workflow.FeatureSubagentGuidance: true}
	for _, x := range workflow.Features() {
		if !features[x] && !tsOnly[x] {
			t.Errorf("no bundled workflow uses feature %s", x)
		}
	}
	for _, x := range workflow.Templates() {
		if !templates[x] {
			t.Errorf("no bundled workflow uses template %s", x)
		}
	}
}

// TestSchemaEmbedded checks the exported schema bytes are the schema file,
// with the $id and draft the editors rely on.
func TestSchemaEmbedded(t *testing.T) {
	var s struct {
		Schema string `json:"$schema"`
		ID     string `json:"$id"`
	}
	if err := json.Unmarshal(workflows.Schema, &s); err != nil {
		t.Fatal(err)
	}
	if s.ID != schemaID || s.Schema != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$id %q, $schema %q", s.ID, s.Schema)
	}
	workflowSchema(t)
}
