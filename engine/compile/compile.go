// Package compile turns a source workflow into the compiled form that runs
// are pinned to, through a fixed pipeline of pure passes (template
// expansion, features, capability probes, contract packs, prompt
// rendering), and computes its workflowHash. Nothing from a workflow file is
// ever executed: templates and features are WorkRail's own closed sets.
package compile

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/canon"
	"github.com/workrail/workrail/engine/workflow"
)

// Workflow is a compiled workflow: everything a run needs, fully expanded.
// Its canonical JSON is what workflowHash covers and what the store pins.
type Workflow struct {
	ID                     engine.WorkflowID                     `json:"id"`
	Kind                   workflow.Kind                         `json:"kind"`
	Name                   string                                `json:"name"`
	Description            string                                `json:"description"`
	Version                string                                `json:"version"`
	AppliedFeatures        []workflow.FeatureID                  `json:"appliedFeatures"`
	Capabilities           map[workflow.Capability]workflow.Need `json:"capabilities,omitempty"`
	RecommendedPreferences *workflow.Preferences                 `json:"recommendedPreferences,omitempty"`
	Context                []workflow.ContextInput               `json:"context,omitempty"`
	Contracts              map[workflow.ContractRef]ContractPack `json:"contracts,omitempty"`
	Steps                  []Node                                `json:"steps"`

	// Dialect is the authoring format the source was written in, and
	// Rewrites the sorted codes of what normalizing it changed; both are
	// empty for a canonical file, so a legacy file and its hand-converted
	// twin never share a hash.
	Dialect  Dialect  `json:"dialect,omitempty"`
	Rewrites []string `json:"rewrites,omitempty"`
	// DialectRules is the revision of the dialect's run-time rules the
	// workflow runs under (DESIGN §6): a run keeps the rules of the
	// compiled form it is pinned to, so a form compiled before a revision
	// (0) runs as it did then. Canonical files have none.
	DialectRules int `json:"dialectRules,omitempty"`

	About                string                  `json:"about,omitempty"`
	Examples             []string                `json:"examples,omitempty"`
	Preconditions        []string                `json:"preconditions,omitempty"`
	ClarificationPrompts []string                `json:"clarificationPrompts,omitempty"`
	MetaGuidance         []string                `json:"metaGuidance,omitempty"`
	References           []workflow.Reference    `json:"references,omitempty"`
	MetricsProfile       workflow.MetricsProfile `json:"metricsProfile,omitempty"`
	FunctionDefinitions  []workflow.FunctionDef  `json:"functionDefinitions,omitempty"`
	Assessments          []workflow.Assessment   `json:"assessments,omitempty"`
	Notes                workflow.NotesPolicy    `json:"notes,omitempty"`
}

// Dialect is the closed set of authoring formats a workflow is read from.
type Dialect string

// Dialects. Canonical files record none.
const (
	DialectTS Dialect = "workrail-ts"
)

// TSRulesRevision is the revision of the workrail-ts dialect's run-time
// rules a legacy file compiles to today. Revision 2 runs it as the
// TypeScript WorkRail does in four more ways: notes are required at a
// step that rates assessments (only an output contract spares them), the
// notes asked for are 10 to 30 lines, a step skipped by its condition is
// reconsidered after each advance, and an agent's value is read as a
// number or a text only where that engine compares it as one.
const TSRulesRevision = 2

// TSRules reports whether w runs under the workrail-ts dialect's rules of
// revision 2 or later (TSRulesRevision).
func (w Workflow) TSRules() bool { return w.Dialect == DialectTS && w.DialectRules >= 2 }

// Node is a compiled step or loop: a tagged union with exactly one set.
type Node struct {
	Step *Step `json:"step,omitempty"`
	Loop *Loop `json:"loop,omitempty"`
}

// ID is the node's id, whichever kind it is.
func (n Node) ID() workflow.StepID {
	if n.Loop != nil {
		return n.Loop.ID
	}
	return n.Step.ID
}

// Origin is the closed set of ways a compiled step came to be.
type Origin string

// Origins.
const (
	Authored        Origin = "authored"
	FromTemplate    Origin = "template"
	FromFeature     Origin = "feature"
	CapabilityProbe Origin = "capability_probe"
)

// Provenance says where a step or an injected block came from.
type Provenance struct {
	Origin Origin `json:"origin"`
	By     string `json:"by,omitempty"` // template, feature or capability id
}

// Injection is a block a pass added to a step's prompt, with a stable id.
type Injection struct {
	ID         string     `json:"id"`
	Text       string     `json:"text"`
	Provenance Provenance `json:"provenance"`
}

// Step is a compiled step with its final rendered prompt.
type Step struct {
	ID                  workflow.StepID          `json:"id"`
	Title               string                   `json:"title"`
	Prompt              string                   `json:"prompt"`
	RunCondition        *workflow.Condition      `json:"runCondition,omitempty"`
	RequireConfirmation bool                     `json:"requireConfirmation,omitempty"`
	Output              *workflow.OutputSpec     `json:"output,omitempty"`
	UserDependency      *workflow.UserDependency `json:"userDependency,omitempty"`
	Injections          []Injection              `json:"injections,omitempty"`
	// Probe is the capability this step probes (probe steps only).
	Probe      workflow.Capability `json:"probe,omitempty"`
	Provenance Provenance          `json:"provenance"`

	// Decided at render, from the node's context and loop place:
	// ConfirmWhen (requireConfirmation as a condition), Fragments and the
	// delegations whose conditions hold. Prompt, Title and fragment text
	// may hold {{var}} references resolved then.
	ConfirmWhen *workflow.Condition           `json:"confirmWhen,omitempty"`
	Fragments   []workflow.Fragment           `json:"fragments,omitempty"`
	Delegations []workflow.ParallelDelegation `json:"delegations,omitempty"`

	// Checked when the agent advances.
	AssessmentRefs []workflow.AssessmentID `json:"assessmentRefs,omitempty"`
	Consequences   []workflow.Consequence  `json:"assessmentConsequences,omitempty"`
	Criteria       []workflow.Criterion    `json:"validationCriteria,omitempty"`
	NotesOptional  bool                    `json:"notesOptional,omitempty"`

	// Before rendering: the authored text or blocks and the role that
	// applies. Not part of the compiled form.
	raw      string
	blocks   *workflow.PromptBlocks
	role     string
	template *workflow.TemplateCall
	// ptr is where the step is in the source: its own place, or the
	// routine call it was expanded from ("" for a step a pass added).
	ptr string
}

// Loop is a compiled loop.
type Loop struct {
	ID           workflow.StepID     `json:"id"`
	Title        string              `json:"title"`
	Spec         workflow.LoopSpec   `json:"spec"`
	Body         []Node              `json:"body"`
	Provenance   Provenance          `json:"provenance"`
	RunCondition *workflow.Condition `json:"runCondition,omitempty"`
}

// ContractPack is a WorkRail-owned output contract: a JSON Schema for the
// artifact and an example that satisfies it.
type ContractPack struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Example     json.RawMessage `json:"example"`
	// Kinds are artifact kinds accepted for the contract besides its ref.
	Kinds []string `json:"kinds,omitempty"`
}

// Compiled pairs a compiled workflow with its canonical bytes and hash.
type Compiled struct {
	Workflow
	Canonical []byte
	Hash      engine.WorkflowHash
	index     map[workflow.StepID]*Step
	outline   *outline // what RestoreOutline left undecoded; nil for a whole workflow
}

// pass is one pure step of the pipeline.
type pass func(Workflow, workflow.Workflow) (Workflow, error)

// passes run in this order, always, after routines are expanded; then
// prompts are rendered (renderPrompts), within the limits.
var passes = []pass{expandTemplates, applyFeatures, injectProbes, resolveContracts}

// Options are what a compilation needs besides the workflow itself.
type Options struct {
	// Routines finds a routine by id, for the template calls that name
	// one: among the files loaded together, then the bundled ones.
	Routines func(engine.WorkflowID) (workflow.Workflow, bool)
	// Dialect and Rewrites say what the source was read from and what
	// normalizing it changed (none for a canonical file).
	Dialect  Dialect
	Rewrites []string
	// Limits bound the compiled workflow; zero means DefaultLimits.
	Limits Limits
}

// Warning is something the compiler noticed that does not stop it.
type Warning struct {
	Code    WarningCode
	Pointer string // into the source, e.g. /steps/3/template/args/x
	Message string
}

// WarningCode is the closed set of compile warnings.
type WarningCode string

// Compile warnings.
const (
	// A routine call passes an argument the routine never uses.
	WarnRoutineArgUnused WarningCode = "routine_arg_unused"
	// A delegation names a routine by the id its file claims (wr.x), and
	// runs it under the id it loaded as (user.x).
	WarnDelegationRetargeted WarningCode = "delegation_retargeted"
)

// Compile runs the pipeline over a parsed (already checked) workflow that
// calls no routine.
func Compile(src workflow.Workflow) (Compiled, error) {
	c, _, err := CompileWith(src, Options{})
	return c, err
}

// CompileWith runs the pipeline with the routines, dialect and limits of
// opts. A workflow over its limits is a *LimitError, found before what
// is over them is built: routine calls are counted before lowering or
// expanding anything, and each prompt is measured before it is written.
func CompileWith(src workflow.Workflow, opts Options) (Compiled, []Warning, error) {
	limits := opts.Limits
	if limits == (Limits{}) {
		limits = DefaultLimits()
	}
	e := &expander{find: opts.Routines, limits: limits}
	if err := e.check(src.Steps); err != nil {
		return Compiled{}, nil, err
	}
	w := lower(src)
	w.Dialect, w.Rewrites = opts.Dialect, opts.Rewrites
	if w.Dialect == DialectTS {
		w.DialectRules = TSRulesRevision
	}
	w, warnings, err := e.expand(w)
	if err != nil {
		return Compiled{}, nil, err
	}
	for _, p := range passes {
		if w, err = p(w, src); err != nil {
			return Compiled{}, nil, err
		}
	}
	if w, err = renderPrompts(w, limits); err != nil {
		return Compiled{}, nil, err
	}
	if n := countNodes(w.Steps); n > limits.Steps { // a feature or probe added the last
		return Compiled{}, nil, &LimitError{Kind: LimitSteps, Size: n, Limit: limits.Steps}
	}
	c, err := Seal(w)
	if err == nil && len(c.Canonical) > limits.Bytes {
		return Compiled{}, nil, &LimitError{Kind: LimitBytes, Size: len(c.Canonical), Limit: limits.Bytes}
	}
	return c, warnings, err
}

// countNodes counts the steps and loops of list.
func countNodes(list []Node) int {
	n := 0
	Walk(list, func(Node) { n++ })
	return n
}

// Seal computes the canonical bytes and hash of a compiled workflow.
func Seal(c Workflow) (Compiled, error) {
	b, d, err := canon.Digest(c)
	if err != nil {
		return Compiled{}, err
	}
	return restore(c, b, engine.WorkflowHash(d)), nil
}

// Restore rebuilds a Compiled from the canonical bytes of a pinned copy
// whose hash the caller has already verified.
func Restore(canonical []byte, h engine.WorkflowHash) (Compiled, error) {
	var c Workflow
	if err := json.Unmarshal(canonical, &c); err != nil {
		return Compiled{}, fmt.Errorf("compile: pinned workflow %s: %w", h, err)
	}
	return restore(c, canonical, h), nil
}

func restore(c Workflow, canonical []byte, h engine.WorkflowHash) Compiled {
	steps := 0
	Walk(c.Steps, func(n Node) {
		if n.Step != nil {
			steps++
		}
	})
	out := Compiled{Workflow: c, Canonical: canonical, Hash: h, index: make(map[workflow.StepID]*Step, steps)}
	Walk(c.Steps, func(n Node) {
		if n.Step != nil {
			out.index[n.Step.ID] = n.Step
		}
	})
	return out
}

// Step returns the step with id.
func (c Compiled) Step(id workflow.StepID) (*Step, bool) {
	s, ok := c.index[id]
	return s, ok
}

// Walk visits every node, depth first, in document order.
func Walk(list []Node, f func(Node)) {
	for _, n := range list {
		f(n)
		if n.Loop != nil {
			Walk(n.Loop.Body, f)
		}
	}
}

// lower converts the source into the pipeline's form, unrendered.
func lower(src workflow.Workflow) Workflow {
	kind := src.Kind
	if kind == "" {
		kind = workflow.KindWorkflow
	}
	lw := lowering{prov: Provenance{Origin: Authored}}
	return Workflow{ID: src.ID, Kind: kind, Name: src.Name, Description: src.Description, Version: src.Version,
		AppliedFeatures: []workflow.FeatureID{}, Capabilities: src.Capabilities,
		RecommendedPreferences: src.RecommendedPreferences, Context: src.Context,
		Steps: lw.nodes(src.Steps, src.AgentRole, [][]workflow.FunctionDef{src.FunctionDefinitions}, "/steps"),
		About: src.About, Examples: src.Examples, Preconditions: src.Preconditions,
		ClarificationPrompts: src.ClarificationPrompts, MetaGuidance: src.MetaGuidance, References: src.References,
		MetricsProfile: src.MetricsProfile, FunctionDefinitions: src.FunctionDefinitions, Assessments: src.Assessments,
		Notes: src.Notes}
}

// lowering lowers the steps of one source (a workflow, or a routine its
// calls expand), each step's provenance prov. A function definition's
// text is written once and shared by every step that references it, so
// lowering repeats no text, however many steps reference a long one.
type lowering struct {
	prov  Provenance
	texts map[*workflow.FunctionDef]string
}

// nodes lowers a step list at pointer ptr; funcs are the function
// definitions in scope (the workflow's, then each enclosing loop's).
func (lw *lowering) nodes(list []workflow.Node, role string, funcs [][]workflow.FunctionDef, ptr string) []Node {
	out := make([]Node, 0, len(list))
	for i, n := range list {
		p := ptr + "/" + strconv.Itoa(i)
		if n.Loop != nil {
			l := n.Loop
			body := lw.nodes(l.Body, role, append(funcs[:len(funcs):len(funcs)], l.FunctionDefinitions), p+"/body")
			out = append(out, Node{Loop: &Loop{ID: l.ID, Title: l.Title, Spec: l.Loop, Body: body,
				Provenance: lw.prov, RunCondition: l.RunCondition}})
			continue
		}
		s := n.Step
		r := role
		if s.AgentRole != "" {
			r = s.AgentRole
		}
		out = append(out, Node{Step: &Step{ID: s.ID, Title: s.Title, RunCondition: s.RunCondition,
			RequireConfirmation: s.RequireConfirmation.Always, ConfirmWhen: s.RequireConfirmation.When,
			Output: s.Output, UserDependency: s.UserDependency,
			Provenance: lw.prov, raw: s.Prompt, blocks: s.PromptBlocks, role: r, ptr: p,
			template: s.Template, Fragments: s.PromptFragments, Delegations: s.ParallelDelegations,
			AssessmentRefs: s.AssessmentRefs, Consequences: s.AssessmentConsequences,
			Criteria: s.ValidationCriteria, NotesOptional: s.NotesOptional,
			Injections: lw.guidanceOf(*s, append(funcs[:len(funcs):len(funcs)], s.FunctionDefinitions))}})
	}
	return out
}
