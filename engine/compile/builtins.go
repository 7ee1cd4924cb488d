package compile

import "github.com/workrail/workrail/engine/workflow"

// BuiltinKind is the closed set of kinds of names WorkRail defines for
// workflow authors.
type BuiltinKind string

// Builtin kinds, in the order an editor lists them.
const (
	BuiltinFeature    BuiltinKind = "feature"
	BuiltinTemplate   BuiltinKind = "template"
	BuiltinContract   BuiltinKind = "contract"
	BuiltinCapability BuiltinKind = "capability"
	BuiltinOperator   BuiltinKind = "operator"
)

// BuiltinKinds lists every builtin kind in order.
func BuiltinKinds() []BuiltinKind {
	return []BuiltinKind{BuiltinFeature, BuiltinTemplate, BuiltinContract, BuiltinCapability, BuiltinOperator}
}

// Builtin is one name from WorkRail's closed sets as an editor offers it:
// what it does, where in a workflow it goes, and a snippet of workflow
// JSON that uses it there.
type Builtin struct {
	Kind        BuiltinKind
	Name        string
	Description string
	Where       string
	Snippet     string
}

// Builtins lists every feature, template, contract pack, capability and
// condition operator, read from the registries the reader and the
// compiler use, so an editor's list cannot drift from what compiles. A
// name added to a registry without its words below comes out with an
// empty description and snippet, which the tests refuse.
func Builtins() []Builtin {
	var out []Builtin
	for _, f := range workflow.Features() {
		d := featureDocs[f]
		out = append(out, Builtin{Kind: BuiltinFeature, Name: string(f), Description: d.description,
			Where: `an entry of the workflow's "features"`, Snippet: d.snippet})
	}
	for _, t := range workflow.Templates() {
		d := templateDocs[t]
		out = append(out, Builtin{Kind: BuiltinTemplate, Name: t, Description: d.description,
			Where: `a step in "steps" (or a loop's "body")`, Snippet: d.snippet})
	}
	for _, ref := range workflow.Contracts() {
		p, _ := Pack(ref)
		out = append(out, Builtin{Kind: BuiltinContract, Name: string(ref), Description: p.Description,
			Where: "a member of a step", Snippet: `"output": { "contractRef": "` + string(ref) + `" }`})
	}
	for _, c := range workflow.Capabilities() {
		out = append(out, Builtin{Kind: BuiltinCapability, Name: string(c), Description: capabilityDocs[c],
			Where:   `a member of the workflow: "required" probes it before the first step, "preferred" asks the agent to use it where it helps`,
			Snippet: `"capabilities": { "` + string(c) + `": "preferred" }`})
	}
	for _, op := range workflow.Operators() {
		d := operatorDocs[op]
		out = append(out, Builtin{Kind: BuiltinOperator, Name: string(op), Description: d.description,
			Where: `a step's "runCondition" or a while/until loop's "condition"; variables are declared in "context"`, Snippet: d.snippet})
	}
	return out
}

// builtinDoc is what the registries themselves do not say about a name.
type builtinDoc struct{ description, snippet string }

var featureDocs = map[workflow.FeatureID]builtinDoc{
	workflow.FeatureDurableNotes: {
		description: "Every step asks the agent for 1-10 lines of notes (what it did, found, and does next), kept by WorkRail when the chat forgets.",
		snippet:     `"` + string(workflow.FeatureDurableNotes) + `"`,
	},
	workflow.FeatureDivergenceReporting: {
		description: "Every step asks the agent to report any deviation from its instructions as a " +
			string(workflow.ContractWorkflowDivergence) + " artifact, with a reason.",
		snippet: `"` + string(workflow.FeatureDivergenceReporting) + `"`,
	},
	workflow.FeatureCapabilities: {
		description: "Steps written with promptBlocks ask the agent to check that a tool or capability is there before relying on it, and to say so when it is not.",
		snippet:     `"` + string(workflow.FeatureCapabilities) + `"`,
	},
	workflow.FeatureSubagentGuidance: {
		description: "Steps written with promptBlocks tell the agent how to hand bounded parts of the work to subagents while keeping decisions and synthesis to itself.",
		snippet:     `"` + string(workflow.FeatureSubagentGuidance) + `"`,
	},
	workflow.FeatureFinalReview: {
		description: "Adds a last step that checks the run's work against the workflow's description: what is finished, what is not, what is at risk.",
		snippet:     `"` + string(workflow.FeatureFinalReview) + `"`,
	},
}

var templateDocs = map[string]builtinDoc{
	workflow.TemplateCapabilityProbe: {
		description: "A step in which the agent tries a capability once and reports what happened, so later steps know whether they may use it.",
		snippet: `{
  "id": "check-web",
  "title": "Check web access",
  "template": { "id": "` + workflow.TemplateCapabilityProbe + `", "args": { "capability": "` + string(workflow.WebBrowsing) + `" } }
}`,
	},
}

var capabilityDocs = map[workflow.Capability]string{
	workflow.Delegation:  "Handing part of the work to a subagent or a delegated task.",
	workflow.WebBrowsing: "Fetching web pages or searching the web.",
}

var operatorDocs = map[workflow.Operator]builtinDoc{
	workflow.OpEquals: {
		description: "True when the variable equals the value, compared as JSON (1 and 1.0 are equal).",
		snippet:     `{ "var": "depth", "equals": "deep" }`,
	},
	workflow.OpNotEquals: {
		description: "True when the variable is set and differs from the value.",
		snippet:     `{ "var": "depth", "notEquals": "quick" }`,
	},
	workflow.OpIn: {
		description: "True when the variable equals one of the values.",
		snippet:     `{ "var": "depth", "in": ["quick", "deep"] }`,
	},
	workflow.OpContains: {
		description: "True when the variable's text (or any element's, for an array) contains the text, ignoring case.",
		snippet:     `{ "var": "depth", "contains": "dee" }`,
	},
	workflow.OpExists: {
		description: `True when the variable is set ("exists": false: when it is not).`,
		snippet:     `{ "var": "depth", "exists": true }`,
	},
	workflow.OpGt: {
		description: "True when the number variable is greater than the value.",
		snippet:     `{ "var": "count", "gt": 3 }`,
	},
	workflow.OpGte: {
		description: "True when the number variable is at least the value.",
		snippet:     `{ "var": "count", "gte": 3 }`,
	},
	workflow.OpLt: {
		description: "True when the number variable is less than the value.",
		snippet:     `{ "var": "count", "lt": 3 }`,
	},
	workflow.OpLte: {
		description: "True when the number variable is at most the value.",
		snippet:     `{ "var": "count", "lte": 3 }`,
	},
	workflow.OpAnd: {
		description: "True when every condition in the list is.",
		snippet:     `{ "and": [{ "var": "depth", "equals": "deep" }, { "var": "count", "gt": 3 }] }`,
	},
	workflow.OpOr: {
		description: "True when any condition in the list is.",
		snippet:     `{ "or": [{ "var": "depth", "equals": "deep" }, { "var": "count", "gt": 3 }] }`,
	},
	workflow.OpNot: {
		description: "True when the condition is not; a comparison of a variable that is not set is false, so not of it is true.",
		snippet:     `{ "not": { "var": "depth", "equals": "quick" } }`,
	},
}
