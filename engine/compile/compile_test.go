package compile_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/golden"
	"github.com/workrail/workrail/engine/workflow"
)

func mustCompile(t *testing.T, src string) compile.Compiled {
	t.Helper()
	w, err := workflow.Parse([]byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	c, err := compile.Compile(w)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const sample = `{"id":"user.sample","name":"Sample","description":"A sample.","version":"1",
 "agentRole":"a meticulous reviewer",
 "features":[%s],
 "capabilities":{"web_browsing":"required","delegation":"preferred"},
 "steps":[
  {"id":"look","title":"Look","promptBlocks":{"goal":"Read the change.","constraints":["Stay read-only."],"procedure":["Open the diff.","Note risks."],"outputRequired":["A list of risks."],"verify":["Every file was opened."]},
   "output":{"contractRef":"wr.contracts.gaps","hints":["at most 5 gaps"]}},
  {"id":"say","title":"Say","prompt":"Tell the user.","agentRole":"a plain speaker"}]}`

func TestFeaturesApplyInFixedOrder(t *testing.T) {
	a := mustCompile(t, strings.Replace(sample, "%s", `"wr.features.final_review","wr.features.durable_notes"`, 1))
	b := mustCompile(t, strings.Replace(sample, "%s", `"wr.features.durable_notes","wr.features.final_review"`, 1))
	if a.Hash != b.Hash || !bytes.Equal(a.Canonical, b.Canonical) {
		t.Fatal("declaration order of features changed the compiled workflow")
	}
	want := []workflow.FeatureID{workflow.FeatureDurableNotes, workflow.FeatureFinalReview}
	if len(a.AppliedFeatures) != 2 || a.AppliedFeatures[0] != want[0] || a.AppliedFeatures[1] != want[1] {
		t.Fatalf("appliedFeatures = %v; want %v", a.AppliedFeatures, want)
	}
	last := a.Steps[len(a.Steps)-1].Step
	if last.ID != "wr-final-review" || last.Provenance.Origin != compile.FromFeature || last.Provenance.By != string(workflow.FeatureFinalReview) {
		t.Fatalf("final review step = %+v", last)
	}
	look, _ := a.Step("look")
	if len(look.Injections) == 0 || look.Injections[0].ID != "wr.features.durable_notes/notes" {
		t.Fatalf("injections on look = %+v", look.Injections)
	}
}

func TestProbesAndContracts(t *testing.T) {
	c := mustCompile(t, strings.Replace(sample, "%s", "", 1))
	first := c.Steps[0].Step
	if first.ID != "wr-probe-web_browsing" || first.Output.ContractRef != workflow.ContractCapabilityObservation || first.Provenance.Origin != compile.CapabilityProbe {
		t.Fatalf("first step = %+v; want the injected web_browsing probe", first)
	}
	for _, ref := range []workflow.ContractRef{workflow.ContractCapabilityObservation, workflow.ContractGaps} {
		if _, ok := c.Contracts[ref]; !ok {
			t.Errorf("contract pack %s not resolved into the compiled workflow", ref)
		}
	}
	if len(c.Contracts) != 2 {
		t.Errorf("contracts = %d; want only the two used", len(c.Contracts))
	}
	look, _ := c.Step("look")
	if !strings.Contains(look.Prompt, "works better with delegation") {
		t.Errorf("preferred capability not explained on the first authored step:\n%s", look.Prompt)
	}
}

func TestAuthoredProbeIsNotDuplicated(t *testing.T) {
	c := mustCompile(t, `{"id":"user.p","name":"P","description":"d","version":"1","capabilities":{"web_browsing":"required"},
	 "steps":[{"id":"check-web","title":"Check the web","template":{"id":"wr.templates.capability_probe","args":{"capability":"web_browsing"}}}]}`)
	if len(c.Steps) != 1 || c.Steps[0].Step.ID != "check-web" || c.Steps[0].Step.Provenance.Origin != compile.FromTemplate {
		t.Fatalf("steps = %+v", c.Steps)
	}
}

func TestHashChangesWithContent(t *testing.T) {
	a := mustCompile(t, strings.Replace(sample, "%s", "", 1))
	b := mustCompile(t, strings.Replace(strings.Replace(sample, "%s", "", 1), "Tell the user.", "Tell the user!", 1))
	if a.Hash == b.Hash {
		t.Fatal("a prompt change kept the same workflowHash")
	}
}

// The rendered prompts and the whole compiled form are pinned: a change is
// a deliberate golden update (go test ./engine/compile -update).
func TestCompiledGolden(t *testing.T) {
	c := mustCompile(t, strings.Replace(sample, "%s", `"wr.features.durable_notes","wr.features.divergence_reporting","wr.features.final_review"`, 1))
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, c.Canonical, "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteString("\n")
	for _, n := range c.Steps {
		pretty.WriteString("\n==== " + string(n.ID()) + "\n" + n.Step.Prompt + "\n")
	}
	golden.Check(t, filepath.Join("testdata", "sample.golden"), pretty.Bytes())
}
