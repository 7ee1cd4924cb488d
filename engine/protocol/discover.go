package protocol

import (
	"fmt"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/workflow"
)

// WorkflowSummary is one row of list_workflows.
type WorkflowSummary struct {
	ID          engine.WorkflowID `json:"id"`
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Version     string            `json:"version"`
	Kind        workflow.Kind     `json:"kind"`
	IDStatus    workflow.IDStatus `json:"idStatus"`
	// Source is where the definition is read from; absent only when a
	// run's pinned version is shown and no source defines it any more.
	Source   catalog.Source   `json:"source,omitzero"`
	Warnings []catalog.Notice `json:"warnings,omitempty"`
}

// ListResult is list_workflows' result.
type ListResult struct {
	Kind      Kind                  `json:"kind"`
	Text      string                `json:"text"`
	Workflows []WorkflowSummary     `json:"workflows"`
	Shadowed  []catalog.Shadow      `json:"shadowed,omitempty"`
	Problems  []catalog.LoadProblem `json:"problems,omitempty"`
}

// ResultKind implements Result.
func (ListResult) ResultKind() Kind { return KindWorkflows }

// RenderedText implements Result.
func (l ListResult) RenderedText() string { return l.Text }

// NewList renders the workflows of a catalog.
func NewList(cat *catalog.Catalog) ListResult {
	out := ListResult{Kind: KindWorkflows, Workflows: []WorkflowSummary{}, Shadowed: cat.Shadowed, Problems: cat.Problems}
	var b strings.Builder
	b.WriteString("# Workflows\n\n")
	for _, e := range cat.All() {
		s := summary(e)
		out.Workflows = append(out.Workflows, s)
		fmt.Fprintf(&b, "- %s (%s): %s. %s\n", s.ID, s.Kind, s.Name, s.Description)
		for _, w := range e.Warnings {
			fmt.Fprintf(&b, "  warning %s: %s\n", w.Code, w.Message)
		}
	}
	for _, sh := range cat.Shadowed {
		fmt.Fprintf(&b, "\nNote: %s from %s (%s) is shadowed by the %s one.\n", sh.ID, sh.Shadowed.Kind, sh.File, sh.Winner.Kind)
	}
	for _, p := range cat.Problems {
		fmt.Fprintf(&b, "\nNot loaded: %s: %s\n", p.File, p.Problems[0])
	}
	b.WriteString("\nTo begin, call start_workflow with {\"workflowId\": \"<id>\"}.\n")
	out.Text = b.String()
	return out
}

func summary(e catalog.Entry) WorkflowSummary {
	c := e.Compiled
	return WorkflowSummary{ID: c.ID, Name: c.Name, Description: c.Description, Version: c.Version,
		Kind: c.Kind, IDStatus: e.IDStatus, Source: e.Source, Warnings: e.Warnings}
}

// InspectResult is inspect_workflow's result: what a workflow is and, in
// preview mode, the prompts its steps render to.
type InspectResult struct {
	Kind                   Kind                                  `json:"kind"`
	Text                   string                                `json:"text"`
	Mode                   InspectMode                           `json:"mode"`
	Workflow               WorkflowSummary                       `json:"workflow"`
	WorkflowHash           engine.WorkflowHash                   `json:"workflowHash"`
	AppliedFeatures        []workflow.FeatureID                  `json:"appliedFeatures"`
	Capabilities           map[workflow.Capability]workflow.Need `json:"capabilities,omitempty"`
	RecommendedPreferences *workflow.Preferences                 `json:"recommendedPreferences,omitempty"`
	Context                []workflow.ContextInput               `json:"context"`
	Steps                  []StepOutline                         `json:"steps"`
	Warnings               []Warning                             `json:"warnings"`
	pinned                 bool                                  // the version a run is pinned to
}

// StepOutline is one step or loop in the outline.
type StepOutline struct {
	ID             workflow.StepID      `json:"id"`
	Title          string               `json:"title"`
	Depth          int                  `json:"depth"`
	Loop           *workflow.LoopSpec   `json:"loop,omitempty"`
	Condition      string               `json:"runCondition,omitempty"`
	Output         workflow.ContractRef `json:"requiredOutput,omitempty"`
	UserDependency string               `json:"userDependency,omitempty"`
	Origin         compile.Origin       `json:"origin"`
	Prompt         string               `json:"prompt,omitempty"` // preview mode only
}

// ResultKind implements Result.
func (InspectResult) ResultKind() Kind { return KindWorkflow }

// RenderedText implements Result.
func (r InspectResult) RenderedText() string { return r.Text }

// NewInspect renders one workflow's outline; preview adds every prompt.
func NewInspect(e catalog.Entry, mode InspectMode) InspectResult {
	return newInspect(e, mode, false, nil)
}

// NewInspectPinned renders the version a run is pinned to, with the
// drift warning when its id now means something else.
func NewInspectPinned(e catalog.Entry, mode InspectMode, warnings []Warning) InspectResult {
	return newInspect(e, mode, true, warnings)
}

func newInspect(e catalog.Entry, mode InspectMode, pinned bool, warnings []Warning) InspectResult {
	c := e.Compiled
	r := InspectResult{Kind: KindWorkflow, Mode: mode, Workflow: summary(e), WorkflowHash: c.Hash,
		AppliedFeatures: c.AppliedFeatures, Capabilities: c.Capabilities, RecommendedPreferences: c.RecommendedPreferences,
		Context: c.Context, Steps: outline(c.Steps, 0, mode == InspectPreview), Warnings: nonNil(warnings), pinned: pinned}
	if r.Context == nil {
		r.Context = []workflow.ContextInput{}
	}
	r.Text = inspectText(r)
	return r
}

func outline(list []compile.Node, depth int, preview bool) []StepOutline {
	var out []StepOutline
	for _, n := range list {
		if l := n.Loop; l != nil {
			spec := l.Spec
			out = append(out, StepOutline{ID: l.ID, Title: l.Title, Depth: depth, Loop: &spec, Origin: l.Provenance.Origin})
			out = append(out, outline(l.Body, depth+1, preview)...)
			continue
		}
		s := n.Step
		o := StepOutline{ID: s.ID, Title: s.Title, Depth: depth, Origin: s.Provenance.Origin}
		if s.RunCondition != nil {
			o.Condition = s.RunCondition.String()
		}
		if s.Output != nil {
			o.Output = s.Output.ContractRef
		}
		if s.UserDependency != nil {
			o.UserDependency = string(s.UserDependency.Reason)
		}
		if preview {
			o.Prompt = s.Prompt
		}
		out = append(out, o)
	}
	return out
}

func inspectText(r InspectResult) string {
	var b strings.Builder
	w := r.Workflow
	from := "from " + string(w.Source.Kind)
	if w.Source == (catalog.Source{}) {
		from = "no longer defined by any source"
	}
	fmt.Fprintf(&b, "# %s (%s)\n%s\nversion %s, %s %s, hash %s\n", w.Name, w.ID, w.Description, w.Version, w.Kind, from, r.WorkflowHash)
	if len(r.Context) > 0 {
		b.WriteString("\n## Context inputs\n")
		for _, in := range r.Context {
			req := "optional"
			if in.Required {
				req = "required"
			}
			fmt.Fprintf(&b, "- %s (%s, %s): %s\n", in.Name, in.Type, req, in.Description)
		}
	}
	b.WriteString("\n## Steps\n")
	for _, s := range r.Steps {
		b.WriteString(outlineLine(s) + "\n")
		if s.Prompt != "" {
			b.WriteString(indent(s.Prompt, s.Depth+1) + "\n")
		}
	}
	if r.pinned {
		b.WriteString("\nYour run is pinned to this version: keep calling continue_workflow with its tokens.\n")
	} else {
		fmt.Fprintf(&b, "\nTo run it, call start_workflow with {\"workflowId\": %q}.\n", w.ID)
	}
	warningsSection(&b, r.Warnings)
	return b.String()
}

func outlineLine(s StepOutline) string {
	line := fmt.Sprintf("%s- %s: %s", strings.Repeat("  ", s.Depth), s.ID, s.Title)
	if s.Loop != nil {
		line += fmt.Sprintf(" [%s loop, at most %d]", s.Loop.Kind, s.Loop.MaxIterations)
	}
	if s.Condition != "" {
		line += " [when " + s.Condition + "]"
	}
	if s.Output != "" {
		line += " [requires " + string(s.Output) + "]"
	}
	if s.UserDependency != "" {
		line += " [needs the user: " + s.UserDependency + "]"
	}
	return line
}

func indent(s string, depth int) string {
	pad := strings.Repeat("  ", depth)
	return pad + strings.ReplaceAll(s, "\n", "\n"+pad)
}

// DaemonUnavailable is the error a tool call gets when the stdio shim
// cannot reach or start the daemon; cause says why and where to look.
func DaemonUnavailable(cause string) ErrorResult {
	return NewError(engine.Errorf(engine.CodeDaemonUnavailable, "%s. Retry the same call in a second; nothing was recorded.", cause))
}
