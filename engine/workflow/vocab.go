package workflow

// The closed sets of names a workflow may reference. Their meaning lives in
// package compile; the names live here so a file can be checked without
// compiling it.

// Features, in the fixed order they are applied.
const (
	FeatureDurableNotes        FeatureID = "wr.features.durable_notes"
	FeatureDivergenceReporting FeatureID = "wr.features.divergence_reporting"
	FeatureFinalReview         FeatureID = "wr.features.final_review"
	// Features of the TypeScript format, applied (with their meaning
	// there) to promptBlocks steps only.
	FeatureMemoryContext    FeatureID = "wr.features.memory_context"
	FeatureCapabilities     FeatureID = "wr.features.capabilities"
	FeatureSubagentGuidance FeatureID = "wr.features.subagent_guidance"
)

// Features lists every feature in application order. final_review comes
// last so the step it adds gets no other feature's text.
func Features() []FeatureID {
	return []FeatureID{FeatureDurableNotes, FeatureDivergenceReporting, FeatureMemoryContext, FeatureCapabilities, FeatureSubagentGuidance, FeatureFinalReview}
}

// Builtin template ids.
const (
	TemplateCapabilityProbe = "wr.templates.capability_probe"
)

// Templates lists every builtin template.
func Templates() []string { return []string{TemplateCapabilityProbe} }

// Contract packs.
const (
	ContractCapabilityObservation ContractRef = "wr.contracts.capability_observation"
	ContractWorkflowDivergence    ContractRef = "wr.contracts.workflow_divergence"
	ContractLoopControl           ContractRef = "wr.contracts.loop_control"
	ContractGaps                  ContractRef = "wr.contracts.gaps"
	// ContractAssessment names what a step with assessmentRefs requires:
	// wr.assessment artifacts rating the referenced dimensions.
	ContractAssessment ContractRef = "wr.contracts.assessment"

	// Handoff and verdict contracts: what one workflow hands the next, or
	// a review's verdict. Each also accepts a short artifact kind
	// (wr.coding_handoff, …) listed in its pack's Kinds.
	ContractCodingHandoff          ContractRef = "wr.contracts.coding_handoff"
	ContractReviewVerdict          ContractRef = "wr.contracts.review_verdict"
	ContractDiscoveryHandoff       ContractRef = "wr.contracts.discovery_handoff"
	ContractShapingHandoff         ContractRef = "wr.contracts.shaping_handoff"
	ContractDifferentiationHandoff ContractRef = "wr.contracts.differentiation_handoff"
)

// AssessmentKind is the artifact kind that carries an assessment.
const AssessmentKind = "wr.assessment"

// Contracts lists every contract pack.
func Contracts() []ContractRef {
	return []ContractRef{ContractCapabilityObservation, ContractWorkflowDivergence, ContractLoopControl, ContractGaps,
		ContractCodingHandoff, ContractReviewVerdict, ContractDiscoveryHandoff, ContractShapingHandoff, ContractDifferentiationHandoff}
}

func oneOf[T ~string](v T, set []T) bool {
	for _, x := range set {
		if x == v {
			return true
		}
	}
	return false
}

func names[T ~string](set []T) []string {
	out := make([]string, len(set))
	for i, x := range set {
		out[i] = string(x)
	}
	return out
}
