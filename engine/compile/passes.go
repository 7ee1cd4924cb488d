package compile

import (
	"fmt"
	"sort"
	"strings"

	"github.com/workrail/workrail/engine/workflow"
)

// mapSteps returns a copy of list with f applied to every step (loops are
// copied and descended into), so passes never mutate their input.
func mapSteps(list []Node, f func(Step) Step) []Node {
	out := make([]Node, len(list))
	for i, n := range list {
		if n.Loop != nil {
			l := *n.Loop
			l.Body = mapSteps(l.Body, f)
			out[i] = Node{Loop: &l}
			continue
		}
		s := f(*n.Step)
		out[i] = Node{Step: &s}
	}
	return out
}

// expandTemplates replaces each template call with the template's step.
func expandTemplates(w Workflow, _ workflow.Workflow) (Workflow, error) {
	var err error
	w.Steps = mapSteps(w.Steps, func(s Step) Step {
		if s.template == nil {
			return s
		}
		switch s.template.ID {
		case workflow.TemplateCapabilityProbe:
			capName, _ := s.template.Args["capability"].(string)
			probe := probeStep(workflow.Capability(capName))
			probe.ID, probe.Title, probe.RunCondition, probe.role = s.ID, s.Title, s.RunCondition, s.role
			probe.RequireConfirmation, probe.ConfirmWhen, probe.UserDependency = s.RequireConfirmation, s.ConfirmWhen, s.UserDependency
			if s.Output != nil {
				probe.Output.Hints = s.Output.Hints
			}
			probe.Provenance = Provenance{Origin: FromTemplate, By: s.template.ID}
			return probe
		}
		err = fmt.Errorf("compile: step %s: unknown template %q", s.ID, s.template.ID)
		return s
	})
	return w, err
}

// probeStep is wr.templates.capability_probe: try the capability once and
// report what happened as a capability observation.
func probeStep(c workflow.Capability) Step {
	try := map[workflow.Capability]string{
		workflow.Delegation:  "Start one subagent (or delegated task) with a trivial job, e.g. \"reply with the word ready\", and wait for its answer.",
		workflow.WebBrowsing: "Fetch any small public web page or run one web search, e.g. look up the current Go release.",
	}[c]
	return Step{
		ID: workflow.StepID("wr-probe-" + string(c)), Title: "Check whether " + string(c) + " is available", Probe: c,
		Output: &workflow.OutputSpec{ContractRef: workflow.ContractCapabilityObservation},
		blocks: &workflow.PromptBlocks{
			Goal:        fmt.Sprintf("Find out whether you can use %s in this environment.", c),
			Procedure:   []string{try, "Do not work around a failure: the point is to learn whether the capability works."},
			Constraints: []string{"Report only what you observed; do not claim a capability you did not try."},
			OutputRequired: []string{fmt.Sprintf("One artifact of kind %s with capability %q and status \"available\" or \"unavailable\".",
				workflow.ContractCapabilityObservation, c)},
		},
	}
}

// feature is a pure transform from the closed set.
type feature func(Workflow) (Workflow, error)

var features = map[workflow.FeatureID]feature{
	workflow.FeatureDurableNotes:        injectEverywhere(workflow.FeatureDurableNotes, "notes", durableNotesText),
	workflow.FeatureDivergenceReporting: injectEverywhere(workflow.FeatureDivergenceReporting, "divergence", divergenceText),
	workflow.FeatureFinalReview:         finalReview,
	workflow.FeatureCapabilities:        injectIntoBlocks(workflow.FeatureCapabilities, "capabilities", capabilitiesText),
	workflow.FeatureSubagentGuidance:    injectIntoBlocks(workflow.FeatureSubagentGuidance, "subagents", subagentText),
}

const (
	durableNotesText = "Before calling continue_workflow, put 1-10 lines in output.notesMarkdown: what you did, what you found, what comes next. WorkRail keeps them when the chat forgets."
	divergenceText   = "If you deviate from these instructions, say so: add an artifact of kind wr.contracts.workflow_divergence to output.artifacts with a reason and a one-line summary."
	capabilitiesText = "Before relying on a tool or capability (subagents, web access, a build or test command), check that this environment has it; if it does not, do the step without it and say so in your notes."
	subagentText     = "If you can start subagents, hand them independent, well-bounded parts of this step with everything they need in the request; keep the decisions and the final synthesis to yourself, and check what they return before you use it."
)

// applyFeatures applies the declared features in the fixed order of
// workflow.Features(), whatever order the author listed them in.
func applyFeatures(w Workflow, src workflow.Workflow) (Workflow, error) {
	declared := map[workflow.FeatureID]bool{}
	for _, f := range src.Features {
		declared[f] = true
	}
	for _, id := range workflow.Features() {
		if !declared[id] {
			continue
		}
		var err error
		if w, err = features[id](w); err != nil {
			return w, fmt.Errorf("compile: feature %s: %w", id, err)
		}
		w.AppliedFeatures = append(w.AppliedFeatures, id)
	}
	return w, nil
}

func injectEverywhere(id workflow.FeatureID, name, text string) feature {
	return func(w Workflow) (Workflow, error) {
		w.Steps = mapSteps(w.Steps, func(s Step) Step {
			s.Injections = append(append([]Injection(nil), s.Injections...),
				Injection{ID: string(id) + "/" + name, Text: text, Provenance: Provenance{Origin: FromFeature, By: string(id)}})
			return s
		})
		return w, nil
	}
}

// injectIntoBlocks adds text to the steps written with promptBlocks only,
// as the TypeScript format's features do.
func injectIntoBlocks(id workflow.FeatureID, name, text string) feature {
	return func(w Workflow) (Workflow, error) {
		w.Steps = mapSteps(w.Steps, func(s Step) Step {
			if s.blocks == nil {
				return s
			}
			s.Injections = append(append([]Injection(nil), s.Injections...),
				Injection{ID: string(id) + "/" + name, Text: text, Provenance: Provenance{Origin: FromFeature, By: string(id)}})
			return s
		})
		return w, nil
	}
}

// finalReview appends a closing review step.
func finalReview(w Workflow) (Workflow, error) {
	s := Step{ID: "wr-final-review", Title: "Final review", role: "",
		Provenance: Provenance{Origin: FromFeature, By: string(workflow.FeatureFinalReview)},
		blocks: &workflow.PromptBlocks{
			Goal: fmt.Sprintf("Check the work done in this run against the purpose of %s: %s", w.ID, w.Description),
			Procedure: []string{"Re-read the notes you recorded for each step.",
				"List anything promised but not done, and anything done but not verified.",
				"Fix what you can now; report what remains."},
			OutputRequired: []string{"Notes that state plainly what is finished, what is not, and any risks."},
		}}
	w.Steps = append(append([]Node(nil), w.Steps...), Node{Step: &s})
	return w, nil
}

// injectProbes puts a probe step first for every required capability that
// no step is sure to probe, and tells the first step how to use preferred
// ones. Only a top-level probe without a runCondition is sure to run.
func injectProbes(w Workflow, _ workflow.Workflow) (Workflow, error) {
	probed := map[workflow.Capability]bool{}
	for _, n := range w.Steps {
		if n.Step != nil && n.Step.Probe != "" && n.Step.RunCondition == nil {
			probed[n.Step.Probe] = true
		}
	}
	var probes []Node
	var preferred []string
	for _, c := range workflow.Capabilities() {
		switch w.Capabilities[c] {
		case workflow.Required:
			if !probed[c] {
				p := probeStep(c)
				p.Provenance = Provenance{Origin: CapabilityProbe, By: string(c)}
				probes = append(probes, Node{Step: &p})
			}
		case workflow.Preferred:
			preferred = append(preferred, string(c))
		}
	}
	if len(preferred) > 0 {
		w.Steps = preferIn(w.Steps, preferred)
	}
	w.Steps = append(probes, w.Steps...)
	return w, nil
}

// preferIn adds the degrade-gracefully instruction to the first authored
// step.
func preferIn(list []Node, caps []string) []Node {
	first := true
	return mapSteps(list, func(s Step) Step {
		if !first {
			return s
		}
		first = false
		text := fmt.Sprintf("This workflow works better with %s. Use it where it helps; if it is not available, work without it and add an artifact of kind %s (status \"unavailable\") so the run records the degraded path.",
			strings.Join(caps, " and "), workflow.ContractCapabilityObservation)
		s.Injections = append(append([]Injection(nil), s.Injections...),
			Injection{ID: "wr.capabilities/preferred", Text: text, Provenance: Provenance{Origin: CapabilityProbe, By: strings.Join(caps, ",")}})
		return s
	})
}

// resolveContracts copies into the workflow every contract pack its steps
// reference (and the divergence pack when that feature is on), WorkRail's
// or declared by the workflow, so the pinned copy carries the exact
// schemas it was compiled with.
func resolveContracts(w Workflow, src workflow.Workflow) (Workflow, error) {
	used := map[workflow.ContractRef]bool{}
	Walk(w.Steps, func(n Node) {
		if n.Step != nil && n.Step.Output != nil && n.Step.Output.ContractRef != "" {
			used[n.Step.Output.ContractRef] = true
		}
		if n.Step != nil && len(n.Step.AssessmentRefs) > 0 {
			used[workflow.ContractAssessment] = true
		}
	})
	for _, f := range w.AppliedFeatures {
		if f == workflow.FeatureDivergenceReporting {
			used[workflow.ContractWorkflowDivergence] = true
		}
	}
	if len(used) == 0 {
		return w, nil
	}
	refs := make([]string, 0, len(used))
	for r := range used {
		refs = append(refs, string(r))
	}
	sort.Strings(refs)
	w.Contracts = map[workflow.ContractRef]ContractPack{}
	for _, r := range refs {
		pack, ok := Pack(workflow.ContractRef(r))
		if d, declared := src.Contracts[workflow.ContractRef(r)]; declared {
			pack, ok = ContractPack{Description: d.Description, Schema: d.Schema, Example: d.Example, Kinds: d.Kinds}, true
		}
		if !ok {
			return w, fmt.Errorf("compile: unknown contract pack %q", r)
		}
		w.Contracts[workflow.ContractRef(r)] = pack
	}
	return w, nil
}
