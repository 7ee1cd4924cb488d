package compile

import (
	"encoding/json"

	"github.com/workrail/workrail/engine/workflow"
)

// Pack returns the contract pack ref names. An artifact satisfies pack X
// when its "kind" is X and it validates against X's schema.
func Pack(ref workflow.ContractRef) (ContractPack, bool) {
	p, ok := packs[ref]
	return p, ok
}

// packs is the closed set of contract packs, one per workflow.Contracts().
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
}

func raw(s string) json.RawMessage {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic("compile: contract pack JSON: " + err.Error())
	}
	b, _ := json.Marshal(v)
	return b
}
