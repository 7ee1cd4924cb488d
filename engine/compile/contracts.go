package compile

import (
	"encoding/json"

	"github.com/workrail/workrail/engine/fill"
	"github.com/workrail/workrail/engine/workflow"
)

// Pack returns the contract pack ref names. An artifact satisfies pack X
// when its "kind" is X and it validates against X's schema.
func Pack(ref workflow.ContractRef) (ContractPack, bool) {
	p, ok := packs[ref]
	return p, ok
}

// packs is the closed set of contract packs, one per workflow.Contracts(),
// and the assessment contract WorkRail pins itself.
var packs = map[workflow.ContractRef]ContractPack{
	workflow.ContractCapabilityObservation: {
		Description: "What the agent observed when it tried an optional capability.",
		Schema: raw(`{"type":"object","additionalProperties":false,"required":["kind","capability","status"],"properties":{
			"kind":{"const":"wr.contracts.capability_observation"},
			"capability":{"enum":["delegation","web_browsing"]},
			"status":{"enum":["available","unavailable"]},
			"basis":{"enum":["tried","claimed"]},
			"detail":{"type":"string","maxLength":1024}}}`),
		Example: raw(`{"kind":"wr.contracts.capability_observation","capability":"web_browsing","status":"available","detail":"Fetched https://go.dev in one call."}`),
	},
	workflow.ContractWorkflowDivergence: {
		Description: "An intentional deviation from the step's instructions, and why.",
		Schema: raw(`{"type":"object","additionalProperties":false,"required":["kind","reason","summary"],"properties":{
			"kind":{"const":"wr.contracts.workflow_divergence"},
			"reason":{"enum":["user_instruction","step_not_applicable","better_approach_found","missing_capability","scope_change"]},
			"summary":{"type":"string","minLength":1,"maxLength":512},
			"relatedStepId":{"type":"string"}}}`),
		Example: raw(`{"kind":"wr.contracts.workflow_divergence","reason":"step_not_applicable","summary":"The repository has no tests, so the test step was skipped."}`),
	},
	workflow.ContractLoopControl: {
		Description: "Whether the enclosing loop should run another iteration.",
		Schema: raw(`{"type":"object","additionalProperties":false,"required":["kind","decision"],"properties":{
			"kind":{"const":"wr.contracts.loop_control"},
			"decision":{"enum":["continue","stop"]},
			"reason":{"type":"string","maxLength":512}}}`),
		Example: raw(`{"kind":"wr.contracts.loop_control","decision":"stop","reason":"All hypotheses are resolved."}`),
	},
	workflow.ContractGaps: {
		Description: "Things the agent could not do or had to assume, disclosed durably.",
		Schema: raw(`{"type":"object","additionalProperties":false,"required":["kind","gaps"],"properties":{
			"kind":{"const":"wr.contracts.gaps"},
			"gaps":{"type":"array","maxItems":10,"items":{"type":"object","additionalProperties":false,"required":["summary","severity"],"properties":{
				"summary":{"type":"string","minLength":1,"maxLength":512},
				"severity":{"enum":["warning","critical"]},
				"howToResolve":{"type":"string","maxLength":1024}}}}}}`),
		Example: raw(`{"kind":"wr.contracts.gaps","gaps":[{"summary":"Could not run the integration tests: no database available.","severity":"warning","howToResolve":"Run task test-integration with PostgreSQL up."}]}`),
	},
	// Not named by authors: pinned for steps with assessmentRefs. The
	// dimensions a step needs are checked against its assessments.
	workflow.ContractAssessment: {
		Description: "An assessment: a level for each dimension of one of the step's assessments.",
		Schema: raw(`{"type":"object","additionalProperties":false,"required":["kind","dimensions"],"properties":{
			"kind":{"enum":["wr.contracts.assessment","wr.assessment"]},
			"assessmentId":{"type":"string","maxLength":64},
			"dimensions":{"type":"object","minProperties":1,"additionalProperties":{"anyOf":[
				{"type":"string","minLength":1},
				{"type":"object","additionalProperties":false,"required":["level"],"properties":{
					"level":{"type":"string","minLength":1},"rationale":{"type":"string","maxLength":512}}}]}},
			"summary":{"type":"string","maxLength":1024}}}`),
		Example: raw(`{"kind":"wr.assessment","assessmentId":"confidence","dimensions":{"evidence":{"level":"high","rationale":"Every claim cites a file and line."}}}`),
		Kinds:   []string{workflow.AssessmentKind},
	},
	workflow.ContractCodingHandoff: {
		Description: "What a finished implementation hands on: its branch, the decisions taken, known limits, tests added and files changed.",
		Schema: raw(`{"type":"object","additionalProperties":false,"required":["kind","version","keyDecisions","knownLimitations","testsAdded","filesChanged"],"properties":{
			"kind":{"enum":["wr.contracts.coding_handoff","wr.coding_handoff"]},
			"version":{"const":1},
			"branchName":{"type":"string","maxLength":200},
			"keyDecisions":{"type":"array","maxItems":8,"items":{"type":"string","maxLength":300}},
			"knownLimitations":{"type":"array","maxItems":6,"items":{"type":"string","maxLength":300}},
			"testsAdded":{"type":"array","maxItems":10,"items":{"type":"string","maxLength":200}},
			"filesChanged":{"type":"array","maxItems":20,"items":{"type":"string","maxLength":200}},
			"correctedAssumptions":{"type":"array","maxItems":6,"items":{"type":"object","additionalProperties":false,"required":["assumed","actual"],"properties":{
				"assumed":{"type":"string","maxLength":300},"actual":{"type":"string","maxLength":300}}}}}}`),
		Example: raw(`{"kind":"wr.contracts.coding_handoff","version":1,"branchName":"fix/retry-timeout","keyDecisions":["Retry with backoff in the client, not the server."],"knownLimitations":["No retry for uploads yet."],"testsAdded":["client/retry_test.go"],"filesChanged":["client/retry.go","client/retry_test.go"]}`),
		Kinds:   []string{"wr.coding_handoff"},
	},
	workflow.ContractReviewVerdict: {
		Description: "A review's verdict: clean, minor or blocking, how sure the reviewer is, and each finding with its severity.",
		Schema: raw(`{"type":"object","additionalProperties":false,"required":["kind","verdict","confidence","findings","summary"],"properties":{
			"kind":{"enum":["wr.contracts.review_verdict","wr.review_verdict"]},
			"verdict":{"enum":["clean","minor","blocking"]},
			"confidence":{"enum":["high","medium","low"]},
			"findings":{"type":"array","items":{"type":"object","required":["severity","summary"],"properties":{
				"severity":{"enum":["critical","major","minor","nit"]},
				"summary":{"type":"string","minLength":1,"maxLength":1024},
				"findingCategory":{"type":"string","maxLength":64}}}},
			"summary":{"type":"string","minLength":1,"maxLength":2048}}}`),
		Example: raw(`{"kind":"wr.contracts.review_verdict","verdict":"minor","confidence":"high","findings":[{"severity":"minor","summary":"The new flag is not documented in the README."}],"summary":"Correct and tested; one documentation gap."}`),
		Kinds:   []string{"wr.review_verdict"},
	},
	workflow.ContractDiscoveryHandoff: {
		Description: "What a discovery hands to design or implementation: the chosen direction, where its design is written, how sure it is, and what must stay true.",
		Schema: raw(`{"type":"object","additionalProperties":false,"required":["kind","version","selectedDirection","designDocPath","confidenceBand","keyInvariants"],"properties":{
			"kind":{"enum":["wr.contracts.discovery_handoff","wr.discovery_handoff"]},
			"version":{"const":1},
			"selectedDirection":{"type":"string","minLength":1,"maxLength":500},
			"designDocPath":{"type":"string","maxLength":300},
			"confidenceBand":{"type":"string","minLength":1,"maxLength":32},
			"keyInvariants":{"type":"array","maxItems":12,"items":{"type":"string","maxLength":300}},
			"rejectedDirections":{"type":"array","maxItems":5,"items":{"type":"object","additionalProperties":false,"required":["direction","reason"],"properties":{
				"direction":{"type":"string","maxLength":300},"reason":{"type":"string","maxLength":300}}}},
			"implementationConstraints":{"type":"array","maxItems":8,"items":{"type":"string","maxLength":300}},
			"keyCodebaseLocations":{"type":"array","maxItems":10,"items":{"type":"object","additionalProperties":false,"required":["path","relevance"],"properties":{
				"path":{"type":"string","maxLength":300},"relevance":{"type":"string","maxLength":300}}}},
			"selectionTier":{"type":"string","maxLength":32}}}`),
		Example: raw(`{"kind":"wr.contracts.discovery_handoff","version":1,"selectedDirection":"Cache compiled workflows by hash.","designDocPath":"docs/design/cache.md","confidenceBand":"high","keyInvariants":["A pinned run never sees a different compiled form."]}`),
		Kinds:   []string{"wr.discovery_handoff"},
	},
	workflow.ContractShapingHandoff: {
		Description: "What shaping hands to building: where the pitch is, the chosen shape and appetite, its constraints, rabbit holes, what is out of scope and how to check it.",
		Schema: raw(`{"type":"object","additionalProperties":false,"required":["kind","version","pitchPath","selectedShape","appetite","keyConstraints","rabbitHoles","outOfScope","validationChecklist"],"properties":{
			"kind":{"enum":["wr.contracts.shaping_handoff","wr.shaping_handoff"]},
			"version":{"const":1},
			"pitchPath":{"type":"string","minLength":1,"maxLength":300},
			"selectedShape":{"type":"string","minLength":1,"maxLength":200},
			"appetite":{"type":"string","minLength":1,"maxLength":100},
			"keyConstraints":{"type":"array","maxItems":8,"items":{"type":"string","maxLength":300}},
			"rabbitHoles":{"type":"array","maxItems":6,"items":{"type":"string","maxLength":300}},
			"outOfScope":{"type":"array","maxItems":6,"items":{"type":"string","maxLength":300}},
			"validationChecklist":{"type":"array","maxItems":10,"items":{"type":"string","maxLength":300}}}}`),
		Example: raw(`{"kind":"wr.contracts.shaping_handoff","version":1,"pitchPath":"docs/pitches/export.md","selectedShape":"CSV export from the runs list","appetite":"two weeks","keyConstraints":["No new storage format."],"rabbitHoles":["Streaming very large exports."],"outOfScope":["PDF export."],"validationChecklist":["A 10,000-row export opens in a spreadsheet."]}`),
		Kinds:   []string{"wr.shaping_handoff"},
	},
	workflow.ContractDifferentiationHandoff: {
		Description: "What a differentiation study hands to shaping: when its evidence was captured, a checklist, and the idea restated as a pitch: problem, baseline, appetite, no-gos, limits, evidence and claimed advantage.",
		Schema: raw(`{"type":"object","additionalProperties":false,"required":["kind","version","schemaVersion","generatedAt","evidenceFreshness","validationChecklist","shapingHandoff"],"properties":{
			"kind":{"enum":["wr.contracts.differentiation_handoff","wr.differentiation_handoff"]},
			"version":{"const":1},
			"schemaVersion":{"const":"1.0.0"},
			"generatedAt":{"type":"string","minLength":1,"maxLength":64},
			"evidenceFreshness":{"type":"object","additionalProperties":false,"required":["oldestCapturedAt","newestCapturedAt"],"properties":{
				"oldestCapturedAt":{"type":"string","minLength":1,"maxLength":64},"newestCapturedAt":{"type":"string","minLength":1,"maxLength":64}}},
			"validationChecklist":{"type":"array","maxItems":10,"items":{"type":"string","minLength":1,"maxLength":200}},
			"shapingHandoff":{"type":"object","additionalProperties":false,"required":["rawIdea","problem","baseline","appetiteHint","noGosHints","constraints","evidenceTopK","defensibilityClaim"],"properties":{
				"rawIdea":{"type":"string","minLength":1},"problem":{"type":"string","minLength":1},"baseline":{"type":"string","minLength":1},
				"appetiteHint":{"enum":["small_batch","big_batch"]},
				"noGosHints":{"type":"array","items":{"type":"string"}},
				"constraints":{"type":"object","additionalProperties":false,"required":["teamSize","technicalCapabilities"],"properties":{
					"teamSize":{"type":"integer","minimum":1},"technicalCapabilities":{"type":"array","minItems":1,"items":{"type":"string"}},"exclusions":{"type":"array","items":{"type":"string"}}}},
				"evidenceTopK":{"type":"array","maxItems":10,"items":{"type":"string"}},
				"defensibilityClaim":{"type":"object","additionalProperties":false,"required":["power","cannibalization"],"properties":{
					"power":{"enum":["Counter-Positioning","Switching Costs","Network Economies","Scale Economies","Cornered Resource","Process Power","Branding","None_Imitable"]},
					"cannibalization":{"type":"string"}}}}}}}`),
		Example: raw(`{"kind":"wr.contracts.differentiation_handoff","version":1,"schemaVersion":"1.0.0","generatedAt":"2026-11-20T10:00:00Z","evidenceFreshness":{"oldestCapturedAt":"2026-09-01T00:00:00Z","newestCapturedAt":"2026-11-18T00:00:00Z"},"validationChecklist":["Three teams confirm the problem."],"shapingHandoff":{"rawIdea":"Offline mode","problem":"Field staff lose work without signal.","baseline":"Paper notes typed in later.","appetiteHint":"big_batch","noGosHints":["No sync conflicts UI."],"constraints":{"teamSize":2,"technicalCapabilities":["local storage"],"exclusions":["desktop"]},"evidenceTopK":["interview-07"],"defensibilityClaim":{"power":"Switching Costs","cannibalization":"none"}}}`),
		Kinds:   []string{"wr.differentiation_handoff"},
	},
}

// Template is the template of the artifact contract ref asks for, from
// pack (the one a workflow pinned): its example's shape with a marker
// wherever the agent decides or writes, never the example's values, for
// nextCall, blockers and the step's prompt.
func Template(ref workflow.ContractRef, pack ContractPack) fill.Artifact {
	a := fill.FromContract(pack.Schema, pack.Example, packAsks[ref])
	if a.Kind == "" {
		a.Kind = string(ref)
	}
	return a
}

// packAsks says, for WorkRail's own packs, what a slot asks where its
// member's name alone would not say it well.
var packAsks = map[workflow.ContractRef]map[string]string{
	workflow.ContractCapabilityObservation: {
		"/status": "available or unavailable, as you observed it when you tried it",
		"/detail": "what you tried and what happened",
	},
	workflow.ContractWorkflowDivergence: {"/summary": "what you did differently from the step's instructions, and why"},
	workflow.ContractLoopControl: {
		"/decision": "your decision: continue (the loop runs again) or stop (its work is done)",
		"/reason":   "why",
	},
	workflow.ContractGaps: {
		"/gaps/0/summary":      "what you could not do or had to assume",
		"/gaps/0/howToResolve": "how it can be resolved",
	},
}

func raw(s string) json.RawMessage {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic("compile: contract pack JSON: " + err.Error())
	}
	b, _ := json.Marshal(v)
	return b
}
