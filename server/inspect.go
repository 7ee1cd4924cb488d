package server

import (
	"fmt"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
)

// InspectResult is inspect_workflow's result: what a workflow is and, in
// preview mode, the prompts its steps render to.
type InspectResult struct {
	Kind                   string                                `json:"kind"`
	Text                   string                                `json:"text"`
	Mode                   protocol.InspectMode                  `json:"mode"`
	Workflow               WorkflowSummary                       `json:"workflow"`
	WorkflowHash           engine.WorkflowHash                   `json:"workflowHash"`
	AppliedFeatures        []workflow.FeatureID                  `json:"appliedFeatures"`
	Capabilities           map[workflow.Capability]workflow.Need `json:"capabilities,omitempty"`
	RecommendedPreferences *workflow.Preferences                 `json:"recommendedPreferences,omitempty"`
	Context                []workflow.ContextInput               `json:"context"`
	Steps                  []StepOutline                         `json:"steps"`
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

// ResultKind implements protocol.Result.
func (InspectResult) ResultKind() protocol.Kind { return "workflow" }

// RenderedText implements protocol.Result.
func (r InspectResult) RenderedText() string { return r.Text }

// Inspect answers inspect_workflow. It never writes.
func (x *Executor) Inspect(raw []byte) protocol.Result {
	in, e := protocol.ParseInspect(raw)
	if e != nil {
		return badArguments("inspect_workflow", raw, e)
	}
	entry, miss := x.find("inspect_workflow", raw, in.WorkspacePath, in.WorkflowID)
	if miss != nil {
		return miss
	}
	c := entry.Compiled
	r := InspectResult{Kind: "workflow", Mode: in.Mode, Workflow: summary(entry), WorkflowHash: c.Hash,
		AppliedFeatures: c.AppliedFeatures, Capabilities: c.Capabilities, RecommendedPreferences: c.RecommendedPreferences,
		Context: c.Context, Steps: outline(c.Steps, 0, in.Mode == protocol.InspectPreview)}
	if r.Context == nil {
		r.Context = []workflow.ContextInput{}
	}
	r.Text = inspectText(r)
	return r
}

func summary(e Entry) WorkflowSummary {
	c := e.Compiled
	return WorkflowSummary{ID: c.ID, Name: c.Name, Description: c.Description, Version: c.Version,
		Kind: c.Kind, IDStatus: e.IDStatus, Source: e.Source, Warnings: e.Warnings}
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
	fmt.Fprintf(&b, "# %s (%s)\n%s\nversion %s, %s from %s, hash %s\n", w.Name, w.ID, w.Description, w.Version, w.Kind, w.Source.Kind, r.WorkflowHash)
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
		b.WriteString(line + "\n")
		if s.Prompt != "" {
			b.WriteString(indent(s.Prompt, s.Depth+1) + "\n")
		}
	}
	fmt.Fprintf(&b, "\nTo run it, call start_workflow with {\"workflowId\": %q}.\n", w.ID)
	return b.String()
}

func indent(s string, depth int) string {
	pad := strings.Repeat("  ", depth)
	return pad + strings.ReplaceAll(s, "\n", "\n"+pad)
}
