package compile

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
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
	workflow.FeatureMemoryContext:       injectIntoBlocks(workflow.FeatureMemoryContext, blockRules{constraints: []string{refText("wr.refs.memory_usage")}}),
	workflow.FeatureCapabilities:        injectIntoBlocks(workflow.FeatureCapabilities, capabilitiesRules),
	workflow.FeatureSubagentGuidance:    injectIntoBlocks(workflow.FeatureSubagentGuidance, subagentRules),
}

const (
	durableNotesText = "Before calling continue_workflow, put 1-10 lines in output.notesMarkdown: what you did, what you found, what comes next. WorkRail keeps them when the chat forgets."
	divergenceText   = "If you deviate from these instructions, say so: add an artifact of kind wr.contracts.workflow_divergence to output.artifacts with a reason and a one-line summary."
)

// The features of the TypeScript format carry every rule its features
// carry there, in WorkRail's words, each where it put it: a constraint,
// a procedure step or a check (features_test.go lists them by their
// substance).
var (
	capabilitiesRules = blockRules{
		constraints: []string{
			"Do not take an optional capability for granted because this workflow can use it.",
			"When subagents, web access or another optional capability matters here, make sure it works with a real probe or a real attempt before you rely on it.",
			"When a capability is not there, say so and take the path without it; never act as if you had it.",
		},
		procedure: []string{
			"When an optional capability would change the quality of this step, decide whether it is worth using here.",
			"When you take a path that depends on a capability, record the observation or attempt that showed it works.",
			"When you skip subagents or another optional capability, do the work yourself and record why that path is enough.",
		},
		verify: []string{
			"No path that depends on a capability was taken without an observation, a probe or an attempt behind it.",
			"Where a capability was missing or skipped, the path taken instead and what it cannot do are said plainly.",
			"The synthesis and the final judgment are still yours, the main agent's.",
		},
	}
	subagentRules = blockRules{
		constraints: []string{
			"The WorkRail Executor is the only kind of subagent: do not name or count on others (a Builder, a Researcher, …).",
			"You, the main agent, own the strategy, the decisions, the synthesis and the final outputs; subagents bring independent ways of looking at the work, nothing more.",
			refText("wr.refs.parallelize_cognition_serialize_synthesis"),
		},
		procedure: []string{
			"When you hand work to WorkRail Executors, give each a clear focus that does not overlap another's, and the shared packet of facts or context as the truth they start from.",
			"When their results come back, merge them yourself: no single subagent's result becomes the answer without your review.",
		},
		verify: []string{
			"Every result handed back was merged by you, not taken over word for word.",
			"No subagent was given the final say over the findings, recommendations or artifacts that count.",
		},
	}
)

// refText is a prompt reference's text (workflow.PromptRefs), which a
// feature carries as one of its constraints.
func refText(id string) string {
	t, ok := workflow.PromptRefText(id)
	if !ok {
		panic("compile: no prompt reference " + id)
	}
	return t
}

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

// blockRules are what a feature adds to a step's blocks.
type blockRules struct{ constraints, procedure, verify []string }

// Where an injected block goes in the prompt (pieces): its id holds the
// part, "<feature>/procedure/<n>" or "<feature>/verify/<n>"; any other
// is a constraint.
const (
	procedurePart = "/procedure/"
	verifyPart    = "/verify/"
)

// injectIntoBlocks adds rules to the steps written with promptBlocks only,
// as the TypeScript format's features do: each rule where the feature
// puts it.
func injectIntoBlocks(id workflow.FeatureID, rules blockRules) feature {
	var add []Injection
	for _, part := range []struct {
		name  string
		rules []string
	}{{"/constraint/", rules.constraints}, {procedurePart, rules.procedure}, {verifyPart, rules.verify}} {
		for i, r := range part.rules {
			add = append(add, Injection{ID: string(id) + part.name + strconv.Itoa(i+1), Text: r, Provenance: Provenance{Origin: FromFeature, By: string(id)}})
		}
	}
	return func(w Workflow) (Workflow, error) {
		w.Steps = mapSteps(w.Steps, func(s Step) Step {
			if s.blocks == nil {
				return s
			}
			s.Injections = append(slices.Clip(s.Injections), add...)
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
