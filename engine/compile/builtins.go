package compile

import (
	"encoding/json"
	"slices"

	"github.com/workrail/workrail/engine/workflow"
)

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
	BuiltinLoop       BuiltinKind = "loop"
	BuiltinLoopVar    BuiltinKind = "loop_variable"
	BuiltinCriterion  BuiltinKind = "criterion"
	BuiltinEffect     BuiltinKind = "effect"
	BuiltinUserDep    BuiltinKind = "user_dependency"
	BuiltinMetrics    BuiltinKind = "metrics_profile"
	BuiltinNotes      BuiltinKind = "notes_policy"
	BuiltinRoutine    BuiltinKind = "routine"
	BuiltinRef        BuiltinKind = "ref"
)

// BuiltinKinds lists every builtin kind in order.
func BuiltinKinds() []BuiltinKind {
	return []BuiltinKind{BuiltinFeature, BuiltinTemplate, BuiltinContract, BuiltinCapability, BuiltinOperator,
		BuiltinLoop, BuiltinLoopVar, BuiltinCriterion, BuiltinEffect, BuiltinUserDep, BuiltinMetrics, BuiltinNotes, BuiltinRef, BuiltinRoutine}
}

// Builtin is one name from WorkRail's closed sets as an editor offers it:
// what it does, where in a workflow it goes, a snippet of workflow JSON
// that uses it there, what it takes, and who defines it.
type Builtin struct {
	Kind        BuiltinKind `json:"kind"`
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Where       string      `json:"where"`
	Snippet     string      `json:"snippet"`
	// Schema is the JSON Schema of what the name takes where it goes: a
	// template's or routine's args, a contract's artifact, an operator's
	// operand, a loop's spec. Absent for a bare name.
	Schema json.RawMessage `json:"schema,omitempty"`
	// Aliases are other names accepted for it (a contract's artifact kinds).
	Aliases []string      `json:"aliases,omitempty"`
	Origin  BuiltinOrigin `json:"origin"`
}

// BuiltinOrigin says who defines a builtin: WorkRail's registries (File is the
// Go file that holds the set) or a workflow file (a routine: File is its
// name in its source).
type BuiltinOrigin struct {
	By   string `json:"by"`
	File string `json:"file"`
}

// Definers of builtins.
const (
	ByWorkRail = "workrail"
)

// Builtins lists every name of WorkRail's closed sets an author writes:
// features, templates, contract packs, capabilities, condition operators,
// loop kinds and their variables, notes checks, assessment effects,
// user-dependency reasons, metrics profiles and notes policies. Each is
// read from the registry the reader and the compiler use, so an editor's
// list cannot drift from what compiles. A name added to a registry
// without its words below comes out with an empty description and
// snippet, which the tests refuse. Routines are workflow files, and the
// TypeScript format's prompt references belong to its reader: the catalog
// lists both.
func Builtins() []Builtin {
	var out []Builtin
	add := func(kind BuiltinKind, name, where, file string, d builtinDoc) {
		out = append(out, Builtin{Kind: kind, Name: name, Description: d.description, Where: where, Snippet: d.snippet,
			Schema: schemaOf(d.schema), Origin: BuiltinOrigin{By: ByWorkRail, File: file}})
	}
	for _, f := range workflow.Features() {
		add(BuiltinFeature, string(f), `an entry of the workflow's "features"`, vocabFile, featureDocs[f])
	}
	for _, t := range workflow.Templates() {
		add(BuiltinTemplate, t, `a step in "steps" (or a loop's "body")`, vocabFile, templateDocs[t])
	}
	for _, ref := range workflow.Contracts() {
		p, _ := Pack(ref)
		out = append(out, Builtin{Kind: BuiltinContract, Name: string(ref), Description: p.Description,
			Where: "a member of a step", Snippet: `"output": { "contractRef": "` + string(ref) + `" }`,
			Schema: p.Schema, Aliases: p.Kinds, Origin: BuiltinOrigin{By: ByWorkRail, File: "engine/compile/contracts.go"}})
	}
	// The assessment contract is never named in output.contractRef: a
	// step's assessmentRefs require it.
	p, _ := Pack(workflow.ContractAssessment)
	out = append(out, Builtin{Kind: BuiltinContract, Name: string(workflow.ContractAssessment), Description: p.Description,
		Where:   `a step's "assessmentRefs", which require it: one ` + workflow.AssessmentKind + ` artifact per assessment named`,
		Snippet: `"assessmentRefs": ["readiness"]`, Schema: p.Schema, Aliases: p.Kinds,
		Origin: BuiltinOrigin{By: ByWorkRail, File: "engine/compile/contracts.go"}})
	for _, c := range workflow.Capabilities() {
		add(BuiltinCapability, string(c),
			`a member of the workflow: "required" probes it before the first step, "preferred" asks the agent to use it where it helps`,
			modelFile, builtinDoc{description: capabilityDocs[c], snippet: `"capabilities": { "` + string(c) + `": "preferred" }`,
				schema: `{"enum":["required","preferred"]}`})
	}
	for _, op := range workflow.Operators() {
		add(BuiltinOperator, string(op), `a step's "runCondition" or a while/until loop's "condition"; variables are declared in "context"`,
			"engine/workflow/condition.go", operatorDocs[op])
	}
	for _, k := range workflow.LoopKinds() {
		add(BuiltinLoop, string(k), `a node in "steps" (or a loop's "body")`, modelFile, loopDocs[k])
	}
	for _, v := range workflow.LoopVariables() {
		add(BuiltinLoopVar, v, `a member of a forEach loop's "loop"; the body's conditions and {{}} read the variable it names`, modelFile, loopVarDocs[v])
	}
	for _, c := range workflow.CriterionTypes() {
		add(BuiltinCriterion, string(c), `an entry of a step's "validationCriteria", checked against its notes`, modelFile, criterionDocs[c])
	}
	for _, e := range workflow.EffectKinds() {
		add(BuiltinEffect, string(e), `the "effect" of an entry of a step's "assessmentConsequences"`, modelFile, effectDocs[e])
	}
	for _, r := range workflow.UserDependencyReasons() {
		add(BuiltinUserDep, string(r), `a step's "userDependency"`, modelFile, userDepDoc(r))
	}
	for _, m := range workflow.MetricsProfiles() {
		add(BuiltinMetrics, string(m), `the workflow's "metricsProfile"`, modelFile, builtinDoc{description: metricsDocs[m],
			snippet: `"metricsProfile": "` + string(m) + `"`})
	}
	for _, n := range workflow.NotesPolicies() {
		add(BuiltinNotes, string(n), `the workflow's "notes"`, modelFile, builtinDoc{description: notesDocs[n],
			snippet: `"notes": "` + string(n) + `"`})
	}
	return out
}

// The Go files that hold the registries, named in each builtin's origin;
// a test checks each holds its names.
const (
	vocabFile = "engine/workflow/vocab.go"
	modelFile = "engine/workflow/model.go"
)

// schemaOf is a schema written below as text, or nothing.
func schemaOf(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return raw(s)
}

// builtinDoc is what the registries themselves do not say about a name.
type builtinDoc struct{ description, snippet, schema string }

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
	workflow.FeatureMemoryContext: {
		description: "Steps written with promptBlocks tell the agent how to use a memory tool when one is there: ask it first, store what was learned, never wait on it.",
		snippet:     `"` + string(workflow.FeatureMemoryContext) + `"`,
	},
	workflow.FeatureCapabilities: {
		description: "Steps written with promptBlocks ask the agent to check that an optional capability is there before relying on it, to record why it took or skipped it, and to keep the synthesis to itself (constraints, procedure and checks).",
		snippet:     `"` + string(workflow.FeatureCapabilities) + `"`,
	},
	workflow.FeatureSubagentGuidance: {
		description: "Steps written with promptBlocks tell the agent how to hand bounded parts of the work to WorkRail Executor subagents while keeping decisions and synthesis to itself (constraints, procedure and checks).",
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
		schema: `{"type":"object","additionalProperties":false,"required":["capability"],"properties":{"capability":` +
			enumOf(workflow.Capabilities()) + `}}`,
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
		schema:      `{"description":"any JSON value, compared as JSON"}`,
	},
	workflow.OpNotEquals: {
		description: "True when the variable is set and differs from the value.",
		snippet:     `{ "var": "depth", "notEquals": "quick" }`,
		schema:      `{"description":"any JSON value, compared as JSON"}`,
	},
	workflow.OpIn: {
		description: "True when the variable equals one of the values.",
		snippet:     `{ "var": "depth", "in": ["quick", "deep"] }`,
		schema:      `{"type":"array","minItems":1}`,
	},
	workflow.OpContains: {
		description: "True when the variable's text (or any element's, for an array) contains the text, ignoring case.",
		snippet:     `{ "var": "depth", "contains": "dee" }`,
		schema:      `{"type":"string","minLength":1}`,
	},
	workflow.OpExists: {
		description: `True when the variable is set ("exists": false: when it is not).`,
		snippet:     `{ "var": "depth", "exists": true }`,
		schema:      `{"type":"boolean"}`,
	},
	workflow.OpGt: {
		description: "True when the number variable is greater than the value.",
		snippet:     `{ "var": "count", "gt": 3 }`,
		schema:      numberOperand,
	},
	workflow.OpGte: {
		description: "True when the number variable is at least the value.",
		snippet:     `{ "var": "count", "gte": 3 }`,
		schema:      numberOperand,
	},
	workflow.OpLt: {
		description: "True when the number variable is less than the value.",
		snippet:     `{ "var": "count", "lt": 3 }`,
		schema:      numberOperand,
	},
	workflow.OpLte: {
		description: "True when the number variable is at most the value.",
		snippet:     `{ "var": "count", "lte": 3 }`,
		schema:      numberOperand,
	},
	workflow.OpAnd: {
		description: "True when every condition in the list is.",
		snippet:     `{ "and": [{ "var": "depth", "equals": "deep" }, { "var": "count", "gt": 3 }] }`,
		schema:      conditionList,
	},
	workflow.OpOr: {
		description: "True when any condition in the list is.",
		snippet:     `{ "or": [{ "var": "depth", "equals": "deep" }, { "var": "count", "gt": 3 }] }`,
		schema:      conditionList,
	},
	workflow.OpNot: {
		description: "True when the condition is not; a comparison of a variable that is not set is false, so not of it is true.",
		snippet:     `{ "not": { "var": "depth", "equals": "quick" } }`,
		schema:      `{"type":"object","description":"a condition"}`,
	},
}

// Operand schemas shared by several operators.
const (
	numberOperand = `{"type":"number"}`
	conditionList = `{"type":"array","minItems":1,"items":{"type":"object","description":"a condition"}}`
)

// enumOf is the JSON Schema of one name of set.
func enumOf[T ~string](set []T) string {
	b, _ := json.Marshal(map[string][]T{"enum": set})
	return string(b)
}

const maxIter = `,"maxIterations":{"type":"integer","minimum":1,"maximum":100}`

var loopDocs = map[workflow.LoopKind]builtinDoc{
	workflow.While: {
		description: "Repeats its body while the condition holds, checked before each iteration; without a condition, a body step requiring " +
			string(workflow.ContractLoopControl) + " decides, up to maxIterations.",
		snippet: `{
  "id": "refine",
  "title": "Refine",
  "loop": { "kind": "while", "condition": { "var": "count", "lt": 3 }, "maxIterations": 5 },
  "body": [{ "id": "refine-once", "title": "Refine once", "prompt": "Improve the draft once." }]
}`,
		schema: `{"type":"object","required":["kind","maxIterations"],"properties":{"kind":{"const":"while"},"condition":{"type":"object"}` + maxIter + `}}`,
	},
	workflow.Until: {
		description: "Runs its body, then repeats until the condition holds, checked after each iteration, up to maxIterations.",
		snippet: `{
  "id": "retry",
  "title": "Retry",
  "loop": { "kind": "until", "condition": { "var": "depth", "equals": "deep" }, "maxIterations": 3 },
  "body": [{ "id": "try", "title": "Try", "prompt": "Try once more." }]
}`,
		schema: `{"type":"object","required":["kind","condition","maxIterations"],"properties":{"kind":{"const":"until"},"condition":{"type":"object"}` + maxIter + `}}`,
	},
	workflow.For: {
		description: "Runs its body count times.",
		snippet: `{
  "id": "passes",
  "title": "Passes",
  "loop": { "kind": "for", "count": 2, "maxIterations": 2 },
  "body": [{ "id": "pass", "title": "Pass", "prompt": "Read the text once through." }]
}`,
		schema: `{"type":"object","required":["kind","count","maxIterations"],"properties":{"kind":{"const":"for"},"count":{"type":"integer","minimum":1}` + maxIter + `}}`,
	},
	workflow.ForEach: {
		description: "Runs its body once per item of a context array, the item shown under the name in \"as\".",
		snippet: `{
  "id": "each-file",
  "title": "Each file",
  "loop": { "kind": "forEach", "over": "files", "as": "file", "maxIterations": 20 },
  "body": [{ "id": "read-file", "title": "Read the file", "prompt": "Read {{file}}." }]
}`,
		schema: `{"type":"object","required":["kind","over","as","maxIterations"],"properties":{"kind":{"const":"forEach"},"over":{"type":"string"},"as":{"type":"string"},` +
			`"indexVar":{"type":"string"},"iterationVar":{"type":"string"},"itemsRequired":{"type":"boolean"}` + maxIter + `}}`,
	},
}

var loopVarDocs = map[string]builtinDoc{
	"as": {
		description: "Names the current item of a forEach loop.",
		snippet: `{
  "id": "each-file",
  "title": "Each file",
  "loop": { "kind": "forEach", "over": "files", "as": "file", "maxIterations": 20 },
  "body": [{ "id": "read-file", "title": "Read the file", "prompt": "Read {{file}}." }]
}`,
		schema: `{"type":"string","minLength":1}`,
	},
	"indexVar": {
		description: "Names the current item's place in the array, counted from 0.",
		snippet: `{
  "id": "each-file",
  "title": "Each file",
  "loop": { "kind": "forEach", "over": "files", "as": "file", "indexVar": "fileIndex", "maxIterations": 20 },
  "body": [{ "id": "read-file", "title": "Read the file", "prompt": "Read {{file}} (number {{fileIndex}})." }]
}`,
		schema: `{"type":"string","minLength":1}`,
	},
	"iterationVar": {
		description: "Names the iteration the loop is in, counted from 1.",
		snippet: `{
  "id": "each-file",
  "title": "Each file",
  "loop": { "kind": "forEach", "over": "files", "as": "file", "iterationVar": "round", "maxIterations": 20 },
  "body": [{ "id": "read-file", "title": "Read the file", "prompt": "Round {{round}}: read {{file}}." }]
}`,
		schema: `{"type":"string","minLength":1}`,
	},
}

const criterionCommon = `"message":{"type":"string"},"condition":{"type":"object","description":"a condition; the check applies only when it holds"}`

var criterionDocs = map[workflow.CriterionType]builtinDoc{
	workflow.CriterionContains: {
		description: "The notes contain the text, ignoring case.",
		snippet:     `"validationCriteria": [{ "type": "contains", "value": "tested", "message": "Say what you tested." }]`,
		schema:      `{"type":"object","required":["type","value"],"properties":{"type":{"const":"contains"},"value":{"type":"string","minLength":1},` + criterionCommon + `}}`,
	},
	workflow.CriterionRegex: {
		description: "The notes match the regular expression (Go syntax; flags i, m, s).",
		snippet:     `"validationCriteria": [{ "type": "regex", "pattern": "^## Plan", "flags": "m", "message": "Start the plan with a Plan heading." }]`,
		schema: `{"type":"object","required":["type","pattern"],"properties":{"type":{"const":"regex"},"pattern":{"type":"string","minLength":1},` +
			`"flags":{"type":"string","pattern":"^[ims]*$"},` + criterionCommon + `}}`,
	},
	workflow.CriterionLength: {
		description: "The notes are at least min and at most max characters long.",
		snippet:     `"validationCriteria": [{ "type": "length", "min": 80, "message": "Say a little more: at least 80 characters." }]`,
		schema: `{"type":"object","required":["type"],"properties":{"type":{"const":"length"},"min":{"type":"integer","minimum":0},` +
			`"max":{"type":"integer","minimum":0},` + criterionCommon + `}}`,
	},
}

var effectDocs = map[workflow.EffectKind]builtinDoc{
	workflow.RequireFollowup: {
		description: "When a rated dimension is at the level named, the same step stays pending with the author's guidance (a critical gap in full_auto_never_stop).",
		snippet:     `"assessmentConsequences": [{ "when": { "anyEqualsLevel": "low" }, "effect": { "kind": "require_followup", "guidance": "Raise the low dimensions before going on." } }]`,
		schema:      `{"type":"object","required":["kind","guidance"],"properties":{"kind":{"const":"require_followup"},"guidance":{"type":"string","minLength":1}}}`,
	},
}

var userDepDocs = map[workflow.UserDependencyReason]string{
	workflow.NeedsUserSecretOrToken:     "The step needs a secret or token only the user has.",
	workflow.NeedsUserAccountAccess:     "The step needs access to an account only the user can grant.",
	workflow.NeedsUserArtifact:          "The step needs a file or document only the user can provide.",
	workflow.NeedsUserChoice:            "The step needs a choice the agent may not assume; choiceKind says which kind.",
	workflow.NeedsUserApproval:          "The step needs the user's approval before the agent goes on.",
	workflow.NeedsUserEnvironmentAction: "The step needs the user to do something in their environment.",
}

// userDepDoc is a reason's words, a snippet that declares it, and the
// schema of a userDependency, its choice kinds read from their registry.
func userDepDoc(r workflow.UserDependencyReason) builtinDoc {
	choice := ""
	if r == workflow.NeedsUserChoice {
		choice = `, "choiceKind": "` + string(workflow.ScopeBoundary) + `", "options": ["core", "all"]`
	}
	return builtinDoc{description: userDepDocs[r],
		snippet: `"userDependency": { "reason": "` + string(r) + `", "summary": "What is needed", "requestedFromUser": "What to ask the user"` + choice + ` }`,
		schema: `{"type":"object","required":["reason","summary","requestedFromUser"],"properties":{"reason":{"const":"` + string(r) + `"},` +
			`"summary":{"type":"string"},"requestedFromUser":{"type":"string"},"whyUserOnly":{"type":"string"},` +
			`"choiceKind":` + enumOf(workflow.ChoiceKinds()) + `,"options":{"type":"array","items":{"type":"string"}}}}`}
}

var metricsDocs = map[workflow.MetricsProfile]string{
	workflow.MetricsCoding:   "The workflow changes code; shown with it, it changes no prompt.",
	workflow.MetricsReview:   "The workflow reviews work; shown with it, it changes no prompt.",
	workflow.MetricsResearch: "The workflow researches a question; shown with it, it changes no prompt.",
	workflow.MetricsDesign:   "The workflow designs something; shown with it, it changes no prompt.",
	workflow.MetricsTicket:   "The workflow writes tickets; shown with it, it changes no prompt.",
	workflow.MetricsNone:     "The workflow is measured by no profile.",
}

var notesDocs = map[workflow.NotesPolicy]string{
	workflow.NotesOptional: "Notes are welcome at every step and required at none (the default).",
	workflow.NotesRequired: "Every step's advance needs notes, unless the step says notesOptional or requires an output contract.",
}

// RoutineArgs lists, sorted, the arguments a routine's text uses ({name}
// in its step and loop titles, prompts and prompt blocks): what a
// template call of it must pass.
func RoutineArgs(r workflow.Workflow) []string {
	var names []string
	scan := func(texts ...string) {
		for _, t := range texts {
			for _, m := range argsIn(t) {
				if name := t[m[0]+1 : m[1]-1]; !slices.Contains(names, name) {
					names = append(names, name)
				}
			}
		}
	}
	var walk func([]workflow.Node)
	walk = func(list []workflow.Node) {
		for _, n := range list {
			if l := n.Loop; l != nil {
				scan(l.Title)
				walk(l.Body)
				continue
			}
			s := n.Step
			scan(s.Title, s.Prompt)
			if b := s.PromptBlocks; b != nil {
				scan(b.Goal)
				scan(b.Constraints...)
				scan(b.Procedure...)
				scan(b.OutputRequired...)
				scan(b.Verify...)
			}
		}
	}
	walk(r.Steps)
	slices.Sort(names)
	return names
}
