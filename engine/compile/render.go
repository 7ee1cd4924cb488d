package compile

import (
	"fmt"
	"strings"

	"github.com/workrail/workrail/engine/workflow"
)

// renderPrompts turns each step's role, blocks (or raw prompt), injected
// blocks and output contract into its final, deterministic prompt text.
func renderPrompts(w Workflow, _ workflow.Workflow) (Workflow, error) {
	w.Steps = mapSteps(w.Steps, func(s Step) Step {
		s.Prompt = render(s, w.Contracts)
		return s
	})
	return w, nil
}

func render(s Step, packs map[workflow.ContractRef]ContractPack) string {
	var b strings.Builder
	if s.role != "" {
		fmt.Fprintf(&b, "Act as: %s\n\n", strings.TrimSpace(s.role))
	}
	var constraints []string
	if s.blocks != nil {
		b.WriteString(strings.TrimSpace(s.blocks.Goal) + "\n")
		constraints = s.blocks.Constraints
	} else {
		b.WriteString(strings.TrimSpace(s.raw) + "\n")
	}
	var guidance, functions []string
	for _, inj := range s.Injections {
		switch {
		case strings.HasPrefix(inj.ID, guidancePrefix):
			guidance = append(guidance, inj.Text)
		case strings.HasPrefix(inj.ID, functionsPrefix):
			functions = append(functions, inj.Text)
		default:
			constraints = append(constraints, inj.Text)
		}
	}
	list(&b, "Constraints", constraints, false)
	if s.blocks != nil {
		list(&b, "Procedure", s.blocks.Procedure, true)
	}
	list(&b, "Guidance", guidance, false)
	list(&b, "Functions", functions, false)
	var required []string
	if s.blocks != nil {
		required = s.blocks.OutputRequired
	}
	if s.Output != nil {
		required = append(required, s.Output.Hints...)
		if pack, ok := packs[s.Output.ContractRef]; ok {
			required = append(required, fmt.Sprintf("In output.artifacts, one object of kind %s (%s) Shaped like this, each <<fill: …>> replaced by what it asks: %s",
				s.Output.ContractRef, pack.Description, Template(s.Output.ContractRef, pack).Value))
		}
	}
	list(&b, "Output required", required, false)
	if s.blocks != nil {
		list(&b, "Verify", s.blocks.Verify, false)
	}
	return strings.TrimRight(b.String(), "\n")
}

func list(b *strings.Builder, title string, items []string, numbered bool) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s:\n", title)
	for i, it := range items {
		if numbered {
			fmt.Fprintf(b, "%d. %s\n", i+1, strings.TrimSpace(it))
		} else {
			fmt.Fprintf(b, "- %s\n", strings.TrimSpace(it))
		}
	}
}
